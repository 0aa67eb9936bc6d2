//! NDLZ with 8x8 cells (codec meta 8).
//!
//! Tokens: 0 literal cell (or edge cell), 64 cell of one repeated byte,
//! 192 whole-cell match, `21 << 3 | r` three rows from row `r` match,
//! `17 << 3 | r` two rows from row `r` match.

use super::{hash12, preamble, MAX_DISTANCE};
use crate::error::Error;

const HASH_SIZE: usize = 1 << 12;
const CELL: usize = 8;
const CELL_SIZE: usize = 64;

fn put(dest: &mut [u8], op: &mut usize, b: &[u8]) {
    dest[*op..*op + b.len()].copy_from_slice(b);
    *op += b.len();
}

fn extent(i: usize, stop: usize, dim: usize) -> usize {
    if i == stop - 1 && !dim.is_multiple_of(CELL) {
        dim % CELL
    } else {
        CELL
    }
}

/// See [`super::compress`].
pub fn compress(bs: [i32; 2], src: &[u8], dest: &mut [u8]) -> i32 {
    let (b0, b1) = (bs[0] as usize, bs[1] as usize);
    let input_len = src.len();
    let output_len = dest.len();
    let overhead = 17 + ((b0 * b1 / CELL_SIZE) as i64 - 1) * 2;
    if input_len < CELL_SIZE || (output_len as i64) < overhead {
        return 0;
    }
    let mut tab_cell = vec![0u32; HASH_SIZE];
    let mut tab_triple = vec![0u32; HASH_SIZE];
    let mut tab_pair = vec![0u32; HASH_SIZE];
    let mut hash_triple = [0usize; 6];
    let mut hash_pair = [0usize; 7];

    dest[0] = 2;
    dest[1..5].copy_from_slice(&bs[0].to_le_bytes());
    dest[5..9].copy_from_slice(&bs[1].to_le_bytes());
    let mut op = 9usize;
    let stop = [b0.div_ceil(CELL), b1.div_ceil(CELL)];
    for i0 in 0..stop[0] {
        for i1 in 0..stop[1] {
            let mut update_triple = [0u32; 6];
            let mut update_pair = [0u32; 7];
            if op + CELL_SIZE + 1 > output_len {
                return 0;
            }
            let orig = i0 * CELL * b1 + i1 * CELL;
            let edge =
                (b0 % CELL != 0 && i0 == stop[0] - 1) || (b1 % CELL != 0 && i1 == stop[1] - 1);
            if edge {
                dest[op] = 0;
                op += 1;
                let p0 = extent(i0, stop[0], b0);
                let p1 = extent(i1, stop[1], b1);
                for r in 0..p0 {
                    let at = orig + r * b1;
                    put(dest, &mut op, &src[at..at + p1]);
                }
            } else {
                let mut cell = [0u8; CELL_SIZE];
                for r in 0..CELL {
                    let at = orig + r * b1;
                    cell[r * CELL..(r + 1) * CELL].copy_from_slice(&src[at..at + CELL]);
                }
                let anchor = op;
                let hash_cell = hash12(&cell);
                let tc = tab_cell[hash_cell] as usize;
                let distance = if tc != 0 && dest[tc..tc + CELL_SIZE] == cell {
                    (anchor - tc) as u32
                } else {
                    0
                };
                let alleq = cell.iter().all(|&b| b == cell[0]);
                if alleq {
                    put(dest, &mut op, &[64, cell[0]]);
                } else if distance == 0 || distance >= MAX_DISTANCE {
                    let mut literal = true;
                    'found: {
                        for (rows, tab, hashes, updates, tag) in [
                            (
                                3usize,
                                &mut tab_triple,
                                &mut hash_triple[..],
                                &mut update_triple[..],
                                21u8,
                            ),
                            (
                                2,
                                &mut tab_pair,
                                &mut hash_pair[..],
                                &mut update_pair[..],
                                17,
                            ),
                        ] {
                            let len = rows * CELL;
                            for i in 0..=CELL - rows {
                                let start = i * CELL;
                                let group = &cell[start..start + len];
                                let hval = hash12(group);
                                let t = tab[hval] as usize;
                                let same = if t != 0 {
                                    dest[t..t + len] == *group
                                } else {
                                    updates[i] = (anchor + 1 + start) as u32;
                                    hashes[i] = hval;
                                    false
                                };
                                let d = if same { (anchor + start - t) as u32 } else { 0 };
                                if d != 0 && d < MAX_DISTANCE {
                                    literal = false;
                                    put(dest, &mut op, &[(tag << 3) | i as u8]);
                                    let offset = (anchor - t) as u16;
                                    put(dest, &mut op, &offset.to_le_bytes());
                                    for l in (0..CELL).filter(|&l| l < i || l >= i + rows) {
                                        put(dest, &mut op, &cell[l * CELL..(l + 1) * CELL]);
                                    }
                                    break 'found;
                                }
                            }
                        }
                    }
                    if literal {
                        tab_cell[hash_cell] = (anchor + 1) as u32;
                        if update_triple[0] != 0 {
                            for h in 0..6 {
                                tab_triple[hash_triple[h]] = update_triple[h];
                            }
                        }
                        if update_pair[0] != 0 {
                            for h in 0..7 {
                                tab_pair[hash_pair[h]] = update_pair[h];
                            }
                        }
                        dest[op] = 0;
                        op += 1;
                        put(dest, &mut op, &cell);
                    }
                } else {
                    dest[op] = (1 << 7) | (1 << 6);
                    op += 1;
                    put(dest, &mut op, &((anchor - tc) as u16).to_le_bytes());
                }
            }
            if op > input_len {
                return 0;
            }
        }
    }
    op as i32
}

/// See [`super::decompress`].
pub fn decompress(src: &[u8], dest: &mut [u8]) -> i32 {
    match decode(src, dest) {
        Ok(n) | Err(n) => n,
    }
}

fn decode(src: &[u8], dest: &mut [u8]) -> Result<i32, i32> {
    let fail = Error::Failure.code();
    let [b0, b1] = preamble(src, dest.len(), CELL)?;
    let (b0, b1) = (b0 as usize, b1 as usize);
    // The cells tile the block: every byte up to `total` is written once.
    let total = b0 * b1;
    let input_len = src.len() as i64;
    let check = |pos: i64, len: i64| -> Result<(), i32> {
        if pos < 0 || len < 0 || pos > input_len - len {
            Err(fail)
        } else {
            Ok(())
        }
    };
    let stop = [b0.div_ceil(CELL), b1.div_ceil(CELL)];
    let mut ip = 9usize;
    let mut ind = 0usize;
    let mut p1 = 0usize;
    let mut local = [0u8; CELL_SIZE];
    let mut same = [0u8; CELL_SIZE];
    for i0 in 0..stop[0] {
        for i1 in 0..stop[1] {
            let p0 = extent(i0, stop[0], b0);
            p1 = extent(i1, stop[1], b1);
            let cur = ip as i64;
            check(cur, 1)?;
            let token = src[ip];
            ip += 1;
            let n = p0 * p1;
            let cellbuf: &[u8] = if token == 0 {
                check(cur + 1, n as i64)?;
                ip += n;
                &src[ip - n..ip]
            } else if token == 192 {
                check(cur + 1, 2)?;
                let bpos = cur - u16::from_le_bytes([src[ip], src[ip + 1]]) as i64;
                check(bpos, n as i64)?;
                ip += 2;
                &src[bpos as usize..bpos as usize + n]
            } else if token == 64 {
                check(cur + 1, 1)?;
                same.fill(src[ip]);
                ip += 1;
                &same
            } else if token >> 3 == 21 || token >> 3 == 17 {
                let rows = if token >> 3 == 21 { 3 } else { 2 };
                let row = (token & 7) as usize;
                if row + rows > CELL {
                    return Err(fail);
                }
                check(cur + 1, 2)?;
                let bpos = cur - u16::from_le_bytes([src[ip], src[ip + 1]]) as i64;
                ip += 2;
                check(bpos, (rows * CELL) as i64)?;
                let r = bpos as usize;
                local[row * CELL..(row + rows) * CELL].copy_from_slice(&src[r..r + rows * CELL]);
                for l in (0..CELL).filter(|&l| l < row || l >= row + rows) {
                    check(ip as i64, CELL as i64)?;
                    local[l * CELL..(l + 1) * CELL].copy_from_slice(&src[ip..ip + CELL]);
                    ip += CELL;
                }
                &local
            } else {
                return Err(fail);
            };
            let orig = i0 * CELL * b1 + i1 * CELL;
            for r in 0..p0 {
                ind = orig + r * b1;
                let out = dest.get_mut(ind..ind + p1).ok_or(fail)?;
                out.copy_from_slice(&cellbuf[r * p1..r * p1 + p1]);
            }
        }
    }
    ind += p1;
    if ind != total {
        return Err(fail);
    }
    Ok(ind as i32)
}
