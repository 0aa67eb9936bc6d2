//! NDLZ with 4x4 cells (codec meta 4).
//!
//! Tokens: 0 literal cell (or edge cell), 64 cell of one repeated byte,
//! 192 whole-cell match, 128..=191 match of two rows, 224..=255 match of
//! three rows, 40..=63 two matches of two rows each.

use super::{hash12, preamble, MAX_DISTANCE};
use crate::error::Error;

const HASH_SIZE: usize = 1 << 12;

fn put_u16(dest: &mut [u8], op: &mut usize, v: u16) {
    dest[*op..*op + 2].copy_from_slice(&v.to_le_bytes());
    *op += 2;
}

fn put(dest: &mut [u8], op: &mut usize, b: &[u8]) {
    dest[*op..*op + b.len()].copy_from_slice(b);
    *op += b.len();
}

/// Edge extent of cell `i` of `stop` along a dimension of `dim` elements.
fn extent(i: usize, stop: usize, dim: usize, cell: usize) -> usize {
    if i == stop - 1 && !dim.is_multiple_of(cell) {
        dim % cell
    } else {
        cell
    }
}

/// See [`super::compress`]; `dest` is at least 9 bytes and `src` holds
/// exactly the block.
pub fn compress(bs: [i32; 2], src: &[u8], dest: &mut [u8]) -> i32 {
    let (b0, b1) = (bs[0] as usize, bs[1] as usize);
    let input_len = src.len();
    let output_len = dest.len();
    let overhead = 17 + ((b0 * b1 / 16) as i64 - 1) * 2;
    if input_len < 16 || (output_len as i64) < overhead {
        return 0;
    }
    let mut tab_cell = vec![0u32; HASH_SIZE];
    let mut tab_triple = vec![0u32; HASH_SIZE];
    let mut tab_pair = vec![0u32; HASH_SIZE];
    // The hashes persist from cell to cell (only the updates are reset), as
    // in the reference: a stale hash can be written with a zero update.
    let mut hash_triple = [0usize; 2];
    let mut hash_pair = [0usize; 3];

    dest[0] = 2;
    dest[1..5].copy_from_slice(&bs[0].to_le_bytes());
    dest[5..9].copy_from_slice(&bs[1].to_le_bytes());
    let mut op = 9usize;
    let stop = [b0.div_ceil(4), b1.div_ceil(4)];
    for i0 in 0..stop[0] {
        for i1 in 0..stop[1] {
            let mut update_triple = [0u32; 2];
            let mut update_pair = [0u32; 3];
            if op + 17 > output_len {
                return 0;
            }
            let orig = i0 * 4 * b1 + i1 * 4;
            let edge = (b0 % 4 != 0 && i0 == stop[0] - 1) || (b1 % 4 != 0 && i1 == stop[1] - 1);
            if edge {
                dest[op] = 0;
                op += 1;
                let p0 = extent(i0, stop[0], b0, 4);
                let p1 = extent(i1, stop[1], b1, 4);
                for r in 0..p0 {
                    let at = orig + r * b1;
                    put(dest, &mut op, &src[at..at + p1]);
                }
            } else {
                let mut cell = [0u8; 16];
                for r in 0..4 {
                    let at = orig + r * b1;
                    cell[r * 4..r * 4 + 4].copy_from_slice(&src[at..at + 4]);
                }
                let row = |r: usize| &cell[r * 4..r * 4 + 4];
                let anchor = op;
                let hash_cell = hash12(&cell);
                let tc = tab_cell[hash_cell] as usize;
                let distance = if tc != 0 && dest[tc..tc + 16] == cell {
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
                        // Two pairs of rows: (0, j) and the other two.
                        for j in 1..4usize {
                            let mut pair = [0u8; 8];
                            pair[..4].copy_from_slice(row(0));
                            pair[4..].copy_from_slice(row(j));
                            let t = tab_pair[hash12(&pair)] as usize;
                            if t == 0 || dest[t..t + 8] != pair {
                                continue;
                            }
                            let offset = (anchor - t) as u16;
                            if (anchor - t) as u32 >= MAX_DISTANCE {
                                continue;
                            }
                            let mut others = (1..4usize).filter(|&k| k != j);
                            let (l, m) = (others.next().unwrap(), others.next().unwrap());
                            pair[..4].copy_from_slice(row(l));
                            pair[4..].copy_from_slice(row(m));
                            let t2 = tab_pair[hash12(&pair)] as usize;
                            if t2 == 0 || dest[t2..t2 + 8] != pair {
                                continue;
                            }
                            let d2 = (anchor + l * 4 - t2) as u32;
                            if d2 != 0 && d2 < MAX_DISTANCE {
                                literal = false;
                                put(dest, &mut op, &[(1 << 5) | ((j as u8) << 3)]);
                                put_u16(dest, &mut op, offset);
                                put_u16(dest, &mut op, (anchor - t2) as u16);
                                break 'found;
                            }
                        }
                        // Three rows.
                        for i in 0..2usize {
                            for j in i + 1..3 {
                                for k in j + 1..4 {
                                    let mut triple = [0u8; 12];
                                    triple[..4].copy_from_slice(row(i));
                                    triple[4..8].copy_from_slice(row(j));
                                    triple[8..].copy_from_slice(row(k));
                                    let hval = hash12(&triple);
                                    let t = tab_triple[hval] as usize;
                                    let same = if t != 0 {
                                        dest[t..t + 12] == triple
                                    } else {
                                        if j - i == 1 && k - j == 1 {
                                            update_triple[i] = (anchor + 1 + i * 4) as u32;
                                            hash_triple[i] = hval;
                                        }
                                        false
                                    };
                                    let d = if same { (anchor + i * 4 - t) as u32 } else { 0 };
                                    if d != 0 && d < MAX_DISTANCE {
                                        literal = false;
                                        let token = if i == 1 {
                                            7 << 5
                                        } else {
                                            (7 << 5) | (((j + k - 2) as u8) << 3)
                                        };
                                        put(dest, &mut op, &[token]);
                                        put_u16(dest, &mut op, (anchor - t) as u16);
                                        let l = (0..4).find(|&l| l != i && l != j && l != k);
                                        put(dest, &mut op, row(l.unwrap_or(0)));
                                        break 'found;
                                    }
                                }
                            }
                        }
                        // Two rows.
                        for i in 0..3usize {
                            for j in i + 1..4 {
                                let mut pair = [0u8; 8];
                                pair[..4].copy_from_slice(row(i));
                                pair[4..].copy_from_slice(row(j));
                                let hval = hash12(&pair);
                                let t = tab_pair[hval] as usize;
                                let same = if t != 0 {
                                    dest[t..t + 8] == pair
                                } else {
                                    if j - i == 1 {
                                        update_pair[i] = (anchor + 1 + i * 4) as u32;
                                        hash_pair[i] = hval;
                                    }
                                    false
                                };
                                let d = if same { (anchor + i * 4 - t) as u32 } else { 0 };
                                if d != 0 && d < MAX_DISTANCE {
                                    literal = false;
                                    let token = if i == 2 {
                                        1 << 7
                                    } else {
                                        (1 << 7) | ((i as u8) << 5) | ((j as u8) << 3)
                                    };
                                    put(dest, &mut op, &[token]);
                                    put_u16(dest, &mut op, (anchor - t) as u16);
                                    for k in (0..4).filter(|&k| k != i && k != j) {
                                        put(dest, &mut op, row(k));
                                    }
                                    break 'found;
                                }
                            }
                        }
                    }
                    if literal {
                        tab_cell[hash_cell] = (anchor + 1) as u32;
                        if update_triple[0] != 0 {
                            for h in 0..2 {
                                tab_triple[hash_triple[h]] = update_triple[h];
                            }
                        }
                        if update_pair[0] != 0 {
                            for h in 0..3 {
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
                    put_u16(dest, &mut op, (anchor - tc) as u16);
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
    let [b0, b1] = preamble(src, dest.len(), 4)?;
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
    let u16_at = |p: usize| u16::from_le_bytes([src[p], src[p + 1]]);
    let stop = [b0.div_ceil(4), b1.div_ceil(4)];
    let mut ip = 9usize;
    let mut ind = 0usize;
    let mut p1 = 0usize;
    // Reused from cell to cell, like the reference's local buffer.
    let mut local = [0u8; 16];
    let mut same = [0u8; 16];
    for i0 in 0..stop[0] {
        for i1 in 0..stop[1] {
            let p0 = extent(i0, stop[0], b0, 4);
            p1 = extent(i1, stop[1], b1, 4);
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
                let bpos = cur - u16_at(ip) as i64;
                check(bpos, n as i64)?;
                ip += 2;
                &src[bpos as usize..bpos as usize + n]
            } else if token == 64 {
                check(cur + 1, 1)?;
                same.fill(src[ip]);
                ip += 1;
                &same
            } else if token >= 224 {
                check(cur + 1, 2)?;
                let offset = u16_at(ip).wrapping_add(3);
                ip += 2;
                let (i, j, k) = match token >> 3 {
                    28 => (1, 2, 3),
                    29 => (0, 1, 2),
                    30 => (0, 1, 3),
                    _ => (0, 2, 3),
                };
                let bpos = cur + 3 - offset as i64;
                check(bpos, 12)?;
                let r = bpos as usize;
                local[i * 4..i * 4 + 4].copy_from_slice(&src[r..r + 4]);
                local[j * 4..j * 4 + 4].copy_from_slice(&src[r + 4..r + 8]);
                local[k * 4..k * 4 + 4].copy_from_slice(&src[r + 8..r + 12]);
                if let Some(l) = (0..4).find(|&l| l != i && l != j && l != k) {
                    check(ip as i64, 4)?;
                    local[l * 4..l * 4 + 4].copy_from_slice(&src[ip..ip + 4]);
                    ip += 4;
                }
                &local
            } else if (128..=191).contains(&token) {
                check(cur + 1, 2)?;
                let offset = u16_at(ip).wrapping_add(3);
                ip += 2;
                let (i, j) = if token == 128 {
                    (2usize, 3usize)
                } else {
                    let i = ((token - 128) >> 5) as usize;
                    (i, ((token - 128) >> 3) as usize - (i << 2))
                };
                let bpos = cur + 3 - offset as i64;
                check(bpos, 8)?;
                let r = bpos as usize;
                local[i * 4..i * 4 + 4].copy_from_slice(&src[r..r + 4]);
                local[j * 4..j * 4 + 4].copy_from_slice(&src[r + 4..r + 8]);
                for k in (0..4).filter(|&k| k != i && k != j) {
                    check(ip as i64, 4)?;
                    local[k * 4..k * 4 + 4].copy_from_slice(&src[ip..ip + 4]);
                    ip += 4;
                }
                &local
            } else if (40..=63).contains(&token) {
                check(cur + 1, 2)?;
                let off1 = u16_at(ip).wrapping_add(5);
                ip += 2;
                check(cur + 3, 2)?;
                let off2 = u16_at(ip).wrapping_add(5);
                ip += 2;
                let j = ((token - 32) >> 3) as usize;
                let mut others = (1..4usize).filter(|&k| k != j);
                let (l, m) = (others.next().unwrap_or(1), others.next().unwrap_or(2));
                let r1 = cur + 5 - off1 as i64;
                check(r1, 8)?;
                let r1 = r1 as usize;
                local[..4].copy_from_slice(&src[r1..r1 + 4]);
                local[j * 4..j * 4 + 4].copy_from_slice(&src[r1 + 4..r1 + 8]);
                let r2 = cur + 5 - off2 as i64;
                check(r2, 8)?;
                let r2 = r2 as usize;
                local[l * 4..l * 4 + 4].copy_from_slice(&src[r2..r2 + 4]);
                local[m * 4..m * 4 + 4].copy_from_slice(&src[r2 + 4..r2 + 8]);
                &local
            } else {
                return Err(fail);
            };
            let orig = i0 * 4 * b1 + i1 * 4;
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
