//! Point selections: orthogonal (outer-product) selections of indexes per
//! dimension, and lists of flat item coordinates.

use super::array::{chunk_buffer, compress_chunk, read_chunk};
use super::copy::needed_bytes;
use super::geometry::{for_each_index, from_linear, strides, to_linear, Geometry};
use crate::error::{Error, Result};
use crate::schunk::SuperChunk;

/// Check the size of a caller's buffer for an orthogonal selection of
/// `typesize`-byte items: as the reference, a buffer larger than the
/// selection (or a selection whose size overflows) is `InvalidParam`.
pub fn check_buffer_size(typesize: i32, selection: &[&[i64]], buffersize: i64) -> Result<()> {
    let mut n = typesize as i64;
    for s in selection {
        n = n.checked_mul(s.len() as i64).ok_or(Error::InvalidParam)?;
    }
    if buffersize > n {
        return Err(Error::InvalidParam);
    }
    Ok(())
}

/// One selected index along a dimension: its value (position in the array)
/// and its position in the caller's list (position in the buffer).
#[derive(Clone, Copy)]
struct Sel {
    value: i64,
    index: i64,
}

/// The plan of an orthogonal selection: per dimension, the selected
/// indexes sorted by value and cut into runs that fall in one chunk.
struct Plan {
    sorted: Vec<Vec<Sel>>,
    /// Per dimension: (chunk coordinate, start, end) ranges into `sorted`.
    runs: Vec<Vec<(i64, usize, usize)>>,
    bufstrides: Vec<i64>,
}

fn plan(
    g: &Geometry,
    selection: &[&[i64]],
    bufshape: &[i64],
    buflen: usize,
    ts: usize,
) -> Result<Plan> {
    let nd = g.ndim();
    if selection.len() != nd || bufshape.len() != nd || nd == 0 {
        return Err(Error::InvalidParam);
    }
    let mut sorted = Vec::with_capacity(nd);
    let mut runs = Vec::with_capacity(nd);
    for (d, sel) in selection.iter().enumerate() {
        let mut v: Vec<Sel> = Vec::with_capacity(sel.len());
        for (j, &value) in sel.iter().enumerate() {
            if value < 0 || value >= g.shape[d] {
                return Err(Error::InvalidIndex);
            }
            v.push(Sel {
                value,
                index: j as i64,
            });
        }
        v.sort_by_key(|s| (s.value, s.index));
        let cs = g.chunkshape[d] as i64;
        let mut r: Vec<(i64, usize, usize)> = Vec::new();
        for (k, s) in v.iter().enumerate() {
            let c = s.value / cs;
            match r.last_mut() {
                Some(last) if last.0 == c => last.2 = k + 1,
                _ => r.push((c, k, k + 1)),
            }
        }
        if (sel.len() as i64) > bufshape[d] {
            return Err(Error::InvalidParam);
        }
        sorted.push(v);
        runs.push(r);
    }
    let zero = vec![0i64; nd];
    let sizes: Vec<i64> = selection.iter().map(|s| s.len() as i64).collect();
    let need = needed_bytes(bufshape, &zero, &sizes, ts).ok_or(Error::InvalidParam)?;
    if need > buflen {
        return Err(Error::InvalidParam);
    }
    Ok(Plan {
        sorted,
        runs,
        bufstrides: strides(bufshape),
    })
}

/// Visit every chunk the selection touches with, for each selected item in
/// it, (offset of the item in the padded chunk, offset in the buffer), both
/// in items; plus the blocks of the chunk that hold them.
fn walk(
    g: &Geometry,
    p: &Plan,
    mut per_chunk: impl FnMut(i64, &[(usize, usize)], &[bool]) -> Result<()>,
) -> Result<()> {
    let nd = g.ndim();
    let chunk_strides = strides(&g.chunks_per_dim());
    let blocks_per_dim = g.blocks_per_dim();
    let block_strides = strides(&blocks_per_dim);
    let item_block_strides = strides(&g.blockshape.iter().map(|&b| b as i64).collect::<Vec<_>>());
    let nblocks = g.nblocks() as usize;
    let nruns: Vec<i64> = p.runs.iter().map(|r| r.len() as i64).collect();
    let mut items: Vec<(usize, usize)> = Vec::new();
    for_each_index(&nruns, |ri| {
        let runs: Vec<(i64, usize, usize)> = (0..nd).map(|d| p.runs[d][ri[d] as usize]).collect();
        let c: Vec<i64> = runs.iter().map(|r| r.0).collect();
        let nchunk = to_linear(&c, &chunk_strides);
        let counts: Vec<i64> = runs.iter().map(|r| (r.2 - r.1) as i64).collect();
        items.clear();
        let mut needed = vec![false; nblocks];
        let mut b = vec![0i64; nd];
        let mut o = vec![0i64; nd];
        let mut bi = vec![0i64; nd];
        for_each_index(&counts, |k| {
            for d in 0..nd {
                let s = p.sorted[d][runs[d].1 + k[d] as usize];
                let in_chunk = s.value % g.chunkshape[d] as i64;
                b[d] = in_chunk / g.blockshape[d] as i64;
                o[d] = in_chunk % g.blockshape[d] as i64;
                bi[d] = s.index;
            }
            let nblock = to_linear(&b, &block_strides) as usize;
            needed[nblock] = true;
            let at = nblock * g.blocknitems as usize + to_linear(&o, &item_block_strides) as usize;
            items.push((at, to_linear(&bi, &p.bufstrides) as usize));
            Ok(())
        })?;
        per_chunk(nchunk, &items, &needed)
    })
}

/// Read the items of an orthogonal selection into `buf` (shape `bufshape`;
/// item `(i, j, ..)` of the selection lands at that index of the buffer).
pub fn get_orthogonal(
    sc: &SuperChunk,
    g: &Geometry,
    selection: &[&[i64]],
    buf: &mut [u8],
    bufshape: &[i64],
) -> Result<()> {
    let ts = usize::try_from(sc.typesize()).map_err(|_| Error::InvalidParam)?;
    let p = plan(g, selection, bufshape, buf.len(), ts)?;
    let mut data = Vec::new();
    walk(g, &p, |nchunk, items, needed| {
        if data.is_empty() {
            data = chunk_buffer(sc, g, nchunk)?;
        }
        read_chunk(sc, nchunk, &mut data, Some(needed))?;
        for &(at, to) in items {
            buf[to * ts..(to + 1) * ts].copy_from_slice(&data[at * ts..(at + 1) * ts]);
        }
        Ok(())
    })
}

/// Write the items of an orthogonal selection from `buf`.
pub fn set_orthogonal(
    sc: &mut SuperChunk,
    g: &Geometry,
    selection: &[&[i64]],
    buf: &[u8],
    bufshape: &[i64],
) -> Result<()> {
    let ts = usize::try_from(sc.typesize()).map_err(|_| Error::InvalidParam)?;
    let p = plan(g, selection, bufshape, buf.len(), ts)?;
    let mut data = Vec::new();
    walk(g, &p, |nchunk, items, _| {
        if data.is_empty() {
            data = chunk_buffer(&*sc, g, nchunk)?;
        }
        read_chunk(&*sc, nchunk, &mut data, None)?;
        for &(at, from) in items {
            data[at * ts..(at + 1) * ts].copy_from_slice(&buf[from * ts..(from + 1) * ts]);
        }
        let c = compress_chunk(&*sc, g, nchunk, &data)?;
        sc.update_chunk(nchunk, c)?;
        Ok(())
    })
}

/// The number of coordinates of a scattered read (`b2nd_get_sparse_cbuffer`):
/// a negative count is `InvalidParam`; none (`None`) reads nothing, so
/// neither the coordinates nor the caller's buffer are looked at.
pub fn sparse_count(ncoords: i64) -> Result<Option<usize>> {
    match usize::try_from(ncoords) {
        Ok(0) => Ok(None),
        Ok(n) => Ok(Some(n)),
        Err(_) => Err(Error::InvalidParam),
    }
}

/// Items at flat (C-order) coordinates of the array, one after another.
pub fn get_sparse(sc: &SuperChunk, g: &Geometry, coords: &[i64], out: &mut [u8]) -> Result<()> {
    let ts = usize::try_from(sc.typesize()).map_err(|_| Error::InvalidParam)?;
    let nd = g.ndim();
    if coords.is_empty() {
        return Ok(());
    }
    if nd == 0 {
        return Err(Error::InvalidParam);
    }
    if out.len() < coords.len().checked_mul(ts).ok_or(Error::InvalidParam)? {
        return Err(Error::InvalidParam);
    }
    let chunk_strides = strides(&g.chunks_per_dim());
    let block_strides = strides(&g.blocks_per_dim());
    let item_block_strides = strides(&g.blockshape.iter().map(|&b| b as i64).collect::<Vec<_>>());
    let mut idx = vec![0i64; nd];
    let (mut c, mut b, mut o) = (vec![0i64; nd], vec![0i64; nd], vec![0i64; nd]);
    // (chunk, item offset in the padded chunk, block, position in out)
    let mut wanted: Vec<(i64, usize, usize, usize)> = Vec::with_capacity(coords.len());
    for (k, &coord) in coords.iter().enumerate() {
        if coord < 0 || coord >= g.nitems {
            return Err(Error::InvalidParam);
        }
        from_linear(&g.shape, coord, &mut idx);
        for d in 0..nd {
            let cs = g.chunkshape[d] as i64;
            let bs = g.blockshape[d] as i64;
            c[d] = idx[d] / cs;
            b[d] = idx[d] % cs / bs;
            o[d] = idx[d] % cs % bs;
        }
        let nblock = to_linear(&b, &block_strides) as usize;
        let at = nblock * g.blocknitems as usize + to_linear(&o, &item_block_strides) as usize;
        wanted.push((to_linear(&c, &chunk_strides), at, nblock, k));
    }
    wanted.sort_unstable_by_key(|w| (w.0, w.3));
    g.chunk_nbytes(ts as i32)?;
    let mut data = Vec::new();
    let nblocks = g.nblocks() as usize;
    let mut i = 0;
    while i < wanted.len() {
        let nchunk = wanted[i].0;
        if data.is_empty() {
            data = chunk_buffer(sc, g, nchunk)?;
        }
        let mut j = i;
        let mut needed = vec![false; nblocks];
        while j < wanted.len() && wanted[j].0 == nchunk {
            needed[wanted[j].2] = true;
            j += 1;
        }
        read_chunk(sc, nchunk, &mut data, Some(&needed))?;
        for &(_, at, _, k) in &wanted[i..j] {
            out[k * ts..(k + 1) * ts].copy_from_slice(&data[at * ts..(at + 1) * ts]);
        }
        i = j;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::array::{from_buffer, tests::new_array};
    use super::*;

    #[test]
    fn coordinate_counts() {
        assert_eq!(sparse_count(0), Ok(None));
        assert_eq!(sparse_count(3), Ok(Some(3)));
        assert_eq!(sparse_count(-1), Err(Error::InvalidParam));
    }

    #[test]
    fn a_buffer_may_not_be_larger_than_its_selection() {
        let sel: [&[i64]; 2] = [&[0, 2, 5], &[1, 1]];
        assert_eq!(check_buffer_size(4, &sel, 24), Ok(()));
        assert_eq!(check_buffer_size(4, &sel, 8), Ok(()));
        assert_eq!(check_buffer_size(4, &sel, 25), Err(Error::InvalidParam));
        let huge = vec![0i64; 1 << 16];
        let sel: [&[i64]; 4] = [&huge, &huge, &huge, &huge];
        assert_eq!(check_buffer_size(4, &sel, 0), Err(Error::InvalidParam));
    }

    #[test]
    fn orthogonal_and_sparse_match_a_model() {
        let shape = [9i64, 7, 5];
        let (mut sc, m) = new_array(&shape, &[4, 3, 5], &[2, 2, 3], 4);
        let n = m.geom.nitems as usize;
        let model: Vec<u32> = (0..n as u32).map(|v| v * 3 + 1).collect();
        let bytes: Vec<u8> = model.iter().flat_map(|v| v.to_le_bytes()).collect();
        from_buffer(&mut sc, &m.geom, &bytes).unwrap();
        let st = strides(&shape);
        let sel: [&[i64]; 3] = [&[8, 0, 3, 3], &[6, 1], &[4, 0, 2]];
        let bshape = [4i64, 2, 3];
        let mut out = vec![0u8; 24 * 4];
        get_orthogonal(&sc, &m.geom, &sel, &mut out, &bshape).unwrap();
        let mut k = 0;
        for &a in sel[0] {
            for &b in sel[1] {
                for &c in sel[2] {
                    let v = model[(a * st[0] + b * st[1] + c) as usize];
                    assert_eq!(
                        u32::from_le_bytes(out[k * 4..k * 4 + 4].try_into().unwrap()),
                        v
                    );
                    k += 1;
                }
            }
        }
        // Write back doubled values and read them as sparse coordinates.
        let doubled: Vec<u8> = out
            .chunks(4)
            .flat_map(|c| (u32::from_le_bytes(c.try_into().unwrap()) * 2).to_le_bytes())
            .collect();
        set_orthogonal(&mut sc, &m.geom, &sel, &doubled, &bshape).unwrap();
        let coords: Vec<i64> = vec![8 * 35 + 6 * 5 + 4, 0, 3 * 35 + 5 + 2, 5 * 35 + 2 * 5 + 1];
        let mut sp = vec![0u8; 16];
        get_sparse(&sc, &m.geom, &coords, &mut sp).unwrap();
        let got: Vec<u32> = sp
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(
            got,
            vec![model[314] * 2, model[0], model[112] * 2, model[186]]
        );
        // Out of range indexes.
        let bad: [&[i64]; 3] = [&[9], &[0], &[0]];
        assert!(get_orthogonal(&sc, &m.geom, &bad, &mut out, &[1, 1, 1]).is_err());
        assert!(get_sparse(&sc, &m.geom, &[n as i64], &mut sp).is_err());
    }
}
