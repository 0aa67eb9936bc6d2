//! Changing an array's shape in place (resize, insert, append, delete,
//! concatenate) and making arrays with other shapes from one (copies with
//! other chunk/block shapes, slices, added or removed unit dimensions).
//!
//! Resizing works on whole chunks as c-blosc2 does: growing inserts zero
//! chunks where the new items go, shrinking deletes the chunks that fall
//! outside.  Inside the array (not at its end) a change must therefore be a
//! whole number of chunks, starting on a chunk boundary.

use super::array::{chunk_box, get_slice, meta_bytes, set_slice};
use super::geometry::{for_each_index, from_linear, strides, to_linear, Geometry};
use super::meta::ArrayMeta;
use crate::chunk::special;
use crate::error::{Error, Result};
use crate::format::header::{Special, EXTENDED_HEADER_LENGTH};
use crate::schunk::SuperChunk;

/// Record `meta` in the super-chunk's "b2nd" (or "caterva") metalayer.
pub fn publish_meta(sc: &mut SuperChunk, meta: &ArrayMeta) -> Result<()> {
    let bytes = meta_bytes(meta)?;
    for name in ["b2nd", "caterva"] {
        if sc.meta_exists(name).is_ok() {
            sc.meta_update(name, &bytes)?;
            return Ok(());
        }
    }
    sc.meta_add("b2nd", &bytes)?;
    Ok(())
}

fn zero_chunk(sc: &SuperChunk, g: &Geometry) -> Result<Vec<u8>> {
    let nbytes = g.chunk_nbytes(sc.typesize())?;
    let mut c = vec![0u8; EXTENDED_HEADER_LENGTH];
    let n = special::chunk_special(&sc.cparams, nbytes, Special::Zero, &mut c)?;
    c.truncate(n);
    Ok(c)
}

/// True when the chunk at grid coordinates `c` starts inside
/// `[at[j], at[j] + len[j])` along some dimension `j`.
fn starts_in(g: &Geometry, c: &[i64], at: &[i64], len: &[i64]) -> bool {
    (0..c.len()).any(|j| {
        let pos = g.chunkshape[j] as i64 * c[j];
        at[j] <= pos && pos < at[j] + len[j]
    })
}

/// Change the shape to `new_shape` (`b2nd_resize`).  Without `start`, items
/// are added or removed at the end of each dimension; with it, at `start`
/// (which must then lie on chunk boundaries and change whole chunks, unless
/// it is the end).
pub fn resize(
    sc: &mut SuperChunk,
    meta: &mut ArrayMeta,
    new_shape: &[i64],
    start: Option<&[i64]>,
) -> Result<()> {
    let nd = meta.geom.ndim();
    if new_shape.len() != nd || new_shape.iter().any(|&s| s < 0) {
        return Err(Error::InvalidParam);
    }
    let old = meta.geom.clone();
    // An array whose chunks do not match its shape (a lying metalayer) is
    // not reshaped.
    if sc.nchunks() != old.nchunks() {
        return Err(Error::Data);
    }
    // Check the target geometry up front: nothing changes on a bad shape.
    old.with_shape(new_shape)?;
    if let Some(st) = start {
        if st.len() != nd {
            return Err(Error::InvalidParam);
        }
        for i in 0..nd {
            let (o, n, s) = (old.shape[i], new_shape[i], st[i]);
            if s < 0 || s > o {
                return Err(Error::InvalidParam);
            }
            let at_end = (n > o && s == o) || (n < o && s + o - n == o) || n == o;
            if !at_end {
                let cs = old.chunkshape[i] as i64;
                if cs == 0 || s % cs != 0 || (n - o) % cs != 0 {
                    return Err(Error::InvalidParam);
                }
            }
        }
    }
    let shrunk: Vec<i64> = (0..nd).map(|i| new_shape[i].min(old.shape[i])).collect();
    shrink(sc, meta, &shrunk, start)?;
    extend(sc, meta, new_shape, start)
}

fn shrink(
    sc: &mut SuperChunk,
    meta: &mut ArrayMeta,
    new_shape: &[i64],
    start: Option<&[i64]>,
) -> Result<()> {
    let old = meta.geom.clone();
    if new_shape == old.shape.as_slice() {
        return Ok(());
    }
    let new = old.with_shape(new_shape)?;
    let at = start.unwrap_or(new_shape);
    let len: Vec<i64> = (0..new_shape.len())
        .map(|i| old.shape[i] - new_shape[i])
        .collect();
    let grid = old.chunks_per_dim();
    let mut c = vec![0i64; grid.len()];
    for i in (0..sc.nchunks()).rev() {
        from_linear(&grid, i, &mut c);
        if starts_in(&old, &c, at, &len) {
            sc.delete_chunk(i)?;
        }
    }
    if new.nitems == 0 {
        while sc.nchunks() > 0 {
            sc.delete_chunk(sc.nchunks() - 1)?;
        }
    }
    meta.geom = new;
    publish_meta(sc, meta)?;
    if sc.nchunks() != meta.geom.nchunks() {
        return Err(Error::Data);
    }
    Ok(())
}

fn extend(
    sc: &mut SuperChunk,
    meta: &mut ArrayMeta,
    new_shape: &[i64],
    start: Option<&[i64]>,
) -> Result<()> {
    let old = meta.geom.clone();
    if new_shape == old.shape.as_slice() {
        return Ok(());
    }
    let new = old.with_shape(new_shape)?;
    let want = new.nchunks();
    if want != sc.nchunks() {
        let zero = zero_chunk(sc, &new)?;
        if old.nitems == 0 {
            // Nothing stored yet: every chunk is new.
            for _ in 0..want {
                sc.append_chunk(zero.clone())?;
            }
        } else {
            let at = start.unwrap_or(&old.shape);
            let len: Vec<i64> = (0..new_shape.len())
                .map(|i| new_shape[i] - old.shape[i])
                .collect();
            let grid = new.chunks_per_dim();
            let mut c = vec![0i64; grid.len()];
            for i in 0..want {
                from_linear(&grid, i, &mut c);
                if starts_in(&new, &c, at, &len) {
                    sc.insert_chunk(i, zero.clone())?;
                }
            }
        }
    }
    meta.geom = new;
    if sc.nchunks() != meta.geom.nchunks() {
        return Err(Error::Data);
    }
    // Data first, shape last: a reader never sees a shape without chunks.
    publish_meta(sc, meta)
}

/// Append `buf` (whole slabs along `axis`) after the end of that axis.
pub fn append(sc: &mut SuperChunk, meta: &mut ArrayMeta, buf: &[u8], axis: usize) -> Result<()> {
    let at = *meta.geom.shape.get(axis).ok_or(Error::InvalidParam)?;
    insert(sc, meta, buf, axis, at)
}

/// Insert `buf` (whole slabs along `axis`) before index `at` of that axis.
pub fn insert(
    sc: &mut SuperChunk,
    meta: &mut ArrayMeta,
    buf: &[u8],
    axis: usize,
    at: i64,
) -> Result<()> {
    let g = meta.geom.clone();
    let nd = g.ndim();
    if axis >= nd || at < 0 || at > g.shape[axis] {
        return Err(Error::InvalidParam);
    }
    let mut slab = sc.typesize() as i64;
    for i in (0..nd).filter(|&i| i != axis) {
        slab = slab.checked_mul(g.shape[i]).ok_or(Error::InvalidParam)?;
    }
    if slab <= 0 || buf.len() as i64 % slab != 0 {
        return Err(Error::InvalidParam);
    }
    let n = buf.len() as i64 / slab;
    let mut new_shape = g.shape.clone();
    new_shape[axis] += n;
    let mut bufshape = g.shape.clone();
    bufshape[axis] = n;
    let mut start = vec![0i64; nd];
    start[axis] = at;
    let at_end = at == g.shape[axis];
    resize(
        sc,
        meta,
        &new_shape,
        if at_end { None } else { Some(&start) },
    )?;
    let mut stop = new_shape;
    stop[axis] = at + n;
    let g = meta.geom.clone();
    set_slice(sc, &g, &start, &stop, buf, &bufshape)
}

/// Remove `len` indexes of `axis` starting at `at`.
pub fn delete(
    sc: &mut SuperChunk,
    meta: &mut ArrayMeta,
    axis: usize,
    at: i64,
    len: i64,
) -> Result<()> {
    let nd = meta.geom.ndim();
    if axis >= nd
        || at < 0
        || len < 0
        || at
            .checked_add(len)
            .is_none_or(|e| e > meta.geom.shape[axis])
    {
        return Err(Error::InvalidParam);
    }
    let mut new_shape = meta.geom.shape.clone();
    new_shape[axis] -= len;
    let mut start = vec![0i64; nd];
    start[axis] = at;
    let at_end = at == meta.geom.shape[axis] - len;
    resize(
        sc,
        meta,
        &new_shape,
        if at_end { None } else { Some(&start) },
    )
}

/// Copy the box of `src` that starts at `offset` and has `dst`'s shape into
/// `dst`, chunk by chunk of `dst`.
pub fn copy_into(
    src_sc: &SuperChunk,
    src: &Geometry,
    offset: &[i64],
    dst_sc: &mut SuperChunk,
    dst: &Geometry,
) -> Result<()> {
    let nd = dst.ndim();
    if src.ndim() != nd || offset.len() != nd || src_sc.typesize() != dst_sc.typesize() {
        return Err(Error::InvalidParam);
    }
    let ts = src_sc.typesize() as usize;
    if nd == 0 {
        let mut one = vec![0u8; ts];
        get_slice(src_sc, src, &[], &[], &mut one, &[])?;
        return set_slice(dst_sc, dst, &[], &[], &one, &[]);
    }
    let grid = dst.chunks_per_dim();
    let mut buf = Vec::new();
    for_each_index(&grid, |c| {
        let (c0, c1) = chunk_box(dst, c);
        let ext: Vec<i64> = (0..nd).map(|i| c1[i] - c0[i]).collect();
        let s0: Vec<i64> = (0..nd).map(|i| c0[i] + offset[i]).collect();
        let s1: Vec<i64> = (0..nd).map(|i| c1[i] + offset[i]).collect();
        let n = ext.iter().product::<i64>() as usize * ts;
        if n > buf.len() {
            buf.try_reserve_exact(n - buf.len())
                .map_err(|_| Error::MemoryAlloc)?;
        }
        buf.resize(n, 0);
        get_slice(src_sc, src, &s0, &s1, &mut buf, &ext)?;
        set_slice(dst_sc, dst, &c0, &c1, &buf, &ext)
    })
}

/// Whether an array `src` of `src_typesize`-byte items may be appended to
/// `dst` along `axis`: both have the same number of dimensions (at least
/// one), `axis` is one of them, the item sizes are equal and so are the
/// extents along every other axis (`InvalidParam` otherwise).
pub fn check_concatenable(
    dst: &Geometry,
    dst_typesize: i32,
    src: &Geometry,
    src_typesize: i32,
    axis: usize,
) -> Result<()> {
    let nd = dst.ndim();
    let same_elsewhere = (0..nd).all(|i| i == axis || dst.shape.get(i) == src.shape.get(i));
    if axis >= nd || src.ndim() != nd || dst_typesize != src_typesize || !same_elsewhere {
        return Err(Error::InvalidParam);
    }
    Ok(())
}

/// [`concatenate`] of an array and the array on the same super-chunk
/// (`src` describes it): the items to append are read from an in-memory
/// copy taken first, as the appending changes the super-chunk.
pub fn concatenate_own(
    sc: &mut SuperChunk,
    dst: &mut ArrayMeta,
    src: &Geometry,
    axis: usize,
) -> Result<()> {
    let snapshot = sc.copy_to(crate::schunk::Storage::Memory, None)?;
    concatenate(sc, dst, &snapshot, src, axis)
}

/// Whether a view with other unit dimensions may be made of the array on
/// `sc`: as the reference, not when the super-chunk has fixed metalayers
/// besides "b2nd" (`InvalidParam`).
pub fn check_viewable(sc: &SuperChunk) -> Result<()> {
    if !super::array::extra_metalayers(sc).is_empty() {
        return Err(Error::InvalidParam);
    }
    Ok(())
}

/// [`concatenate`] with the items of `src` read from `src_sc`, or, when
/// `src_sc` is `None`, from `dst_sc` itself (the array concatenated to
/// itself, through [`concatenate_own`]).
pub fn concatenate_from(
    dst_sc: &mut SuperChunk,
    dst: &mut ArrayMeta,
    src_sc: Option<&SuperChunk>,
    src: &Geometry,
    axis: usize,
) -> Result<()> {
    match src_sc {
        Some(s) => concatenate(dst_sc, dst, s, src, axis),
        None => concatenate_own(dst_sc, dst, src, axis),
    }
}

/// Append the items of `src` after `dst` along `axis` (`b2nd_concatenate`
/// once `dst` is the first array or its copy).
pub fn concatenate(
    dst_sc: &mut SuperChunk,
    dst: &mut ArrayMeta,
    src_sc: &SuperChunk,
    src: &Geometry,
    axis: usize,
) -> Result<()> {
    let nd = dst.geom.ndim();
    check_concatenable(&dst.geom, dst_sc.typesize(), src, src_sc.typesize(), axis)?;
    let mut new_shape = dst.geom.shape.clone();
    new_shape[axis] = new_shape[axis]
        .checked_add(src.shape[axis])
        .ok_or(Error::InvalidParam)?;
    let before = dst.geom.shape[axis];
    resize(dst_sc, dst, &new_shape, None)?;
    let g = dst.geom.clone();
    let aligned = g.chunkshape == src.chunkshape
        && g.blockshape == src.blockshape
        && before % g.chunkshape[axis] as i64 == 0;
    let src_grid = src.chunks_per_dim();
    let src_strides = strides(&src_grid);
    let dst_strides = strides(&g.chunks_per_dim());
    let ts = src_sc.typesize() as usize;
    let mut buf = Vec::new();
    for_each_index(&src_grid, |c| {
        if aligned {
            let n = to_linear(c, &src_strides);
            let mut cc = c.to_vec();
            cc[axis] += before / g.chunkshape[axis] as i64;
            let chunk = src_sc.chunk(n)?.into_owned();
            dst_sc.update_chunk(to_linear(&cc, &dst_strides), chunk)?;
            return Ok(());
        }
        let (s0, s1) = chunk_box(src, c);
        let ext: Vec<i64> = (0..nd).map(|i| s1[i] - s0[i]).collect();
        let n = ext.iter().product::<i64>() as usize * ts;
        if n > buf.len() {
            buf.try_reserve_exact(n - buf.len())
                .map_err(|_| Error::MemoryAlloc)?;
        }
        buf.resize(n, 0);
        get_slice(src_sc, src, &s0, &s1, &mut buf, &ext)?;
        let mut d0 = s0.clone();
        let mut d1 = s1.clone();
        d0[axis] += before;
        d1[axis] += before;
        set_slice(dst_sc, &g, &d0, &d1, &buf, &ext)
    })
}

/// The shapes of `g` with unit dimensions inserted where `axis` is true
/// (`b2nd_expand_dims`); `None` when `axis` asks for fewer old dimensions
/// than there are.
pub fn expanded(g: &Geometry, axis: &[bool]) -> Option<(Vec<i64>, Vec<i32>, Vec<i32>)> {
    let (mut s, mut c, mut b) = (Vec::new(), Vec::new(), Vec::new());
    let mut old = 0;
    for &a in axis {
        if a {
            s.push(1);
            c.push(1);
            b.push(1);
        } else {
            if old >= g.ndim() {
                return None;
            }
            s.push(g.shape[old]);
            c.push(g.chunkshape[old]);
            b.push(g.blockshape[old]);
            old += 1;
        }
    }
    (old == g.ndim()).then_some((s, c, b))
}

/// Which dimensions of `g` have length 1: what `b2nd_squeeze` removes.
pub fn unit_dims(g: &Geometry) -> Vec<bool> {
    g.shape.iter().map(|&s| s == 1).collect()
}

/// The shapes of `g` without the dimensions where `index` is true, which
/// must have length 1 (`b2nd_squeeze_index`).
pub fn squeezed(g: &Geometry, index: &[bool]) -> Result<(Vec<i64>, Vec<i32>, Vec<i32>)> {
    let (mut s, mut c, mut b) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..g.ndim() {
        if index.get(i).copied().unwrap_or(false) {
            if g.shape[i] != 1 {
                return Err(Error::InvalidIndex);
            }
        } else {
            s.push(g.shape[i]);
            c.push(g.chunkshape[i]);
            b.push(g.blockshape[i]);
        }
    }
    Ok((s, c, b))
}

/// Fill `dst` (an empty super-chunk already holding `dst_meta`'s metalayer
/// and same-size chunks) with `src`'s items under another number of unit
/// dimensions: the compressed chunks are reused when the dimensions added
/// or removed have unit chunks and blocks (same bytes), else the items are
/// copied.
pub fn reshape_units(
    src_sc: &SuperChunk,
    src: &Geometry,
    dst_sc: &mut SuperChunk,
    dst: &Geometry,
) -> Result<()> {
    let same_layout = src.nchunks() == dst.nchunks()
        && src.extchunknitems == dst.extchunknitems
        && src.blocknitems == dst.blocknitems
        && strip_units(src) == strip_units(dst);
    if same_layout {
        for n in 0..src_sc.nchunks() {
            let chunk = src_sc.chunk(n)?.into_owned();
            dst_sc.update_chunk(n, chunk)?;
        }
        return Ok(());
    }
    let all = super::array::to_buffer(src_sc, src)?;
    super::array::from_buffer(dst_sc, dst, &all)
}

/// Shapes without the unit dimensions whose chunks and blocks are units.
fn strip_units(g: &Geometry) -> Vec<(i64, i32, i32)> {
    (0..g.ndim())
        .filter(|&i| !(g.shape[i] == 1 && g.chunkshape[i] == 1 && g.blockshape[i] == 1))
        .map(|i| (g.shape[i], g.chunkshape[i], g.blockshape[i]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::array::{from_buffer, tests::new_array, to_buffer};
    use super::*;

    fn fill(sc: &mut SuperChunk, m: &ArrayMeta) -> Vec<u8> {
        let n = m.geom.nitems as usize;
        let data: Vec<u8> = (0..n).map(|i| (i % 250 + 1) as u8).collect();
        from_buffer(sc, &m.geom, &data).unwrap();
        data
    }

    #[test]
    fn grow_and_shrink_at_the_end() {
        let (mut sc, mut m) = new_array(&[5, 3], &[2, 2], &[1, 2], 1);
        let data = fill(&mut sc, &m);
        resize(&mut sc, &mut m, &[7, 6], None).unwrap();
        assert_eq!(sc.nchunks(), 4 * 3);
        let all = to_buffer(&sc, &m.geom).unwrap();
        for r in 0..7 {
            for c in 0..6 {
                let v = all[r * 6 + c];
                let expect = if r < 5 && c < 3 { data[r * 3 + c] } else { 0 };
                assert_eq!(v, expect, "at {r},{c}");
            }
        }
        resize(&mut sc, &mut m, &[3, 2], None).unwrap();
        let all = to_buffer(&sc, &m.geom).unwrap();
        assert_eq!(
            all,
            vec![data[0], data[1], data[3], data[4], data[6], data[7]]
        );
        assert_eq!(sc.nchunks(), 2);
    }

    #[test]
    fn insert_append_delete_in_the_middle() {
        let (mut sc, mut m) = new_array(&[4, 3], &[2, 3], &[2, 3], 1);
        let data = fill(&mut sc, &m);
        let rows: Vec<u8> = (100..106).collect();
        insert(&mut sc, &mut m, &rows, 0, 2).unwrap();
        let all = to_buffer(&sc, &m.geom).unwrap();
        let mut expect = data[..6].to_vec();
        expect.extend_from_slice(&rows);
        expect.extend_from_slice(&data[6..]);
        assert_eq!(all, expect);
        // Appending one row to 6 rows with chunks of 2 rows.
        insert(&mut sc, &mut m, &[7, 8, 9], 0, 6).unwrap();
        expect.extend_from_slice(&[7, 8, 9]);
        assert_eq!(to_buffer(&sc, &m.geom).unwrap(), expect);
        append(&mut sc, &mut m, &[1, 2, 3], 0).unwrap();
        expect.extend_from_slice(&[1, 2, 3]);
        assert_eq!(to_buffer(&sc, &m.geom).unwrap(), expect);
        assert_eq!(
            append(&mut sc, &mut m, &[1, 2, 3], 2),
            Err(Error::InvalidParam)
        );
        delete(&mut sc, &mut m, 0, 2, 2).unwrap();
        let mut e2 = expect[..6].to_vec();
        e2.extend_from_slice(&expect[12..]);
        assert_eq!(to_buffer(&sc, &m.geom).unwrap(), e2);
        // Not on a chunk boundary inside the array: refused, nothing changes.
        assert!(delete(&mut sc, &mut m, 0, 1, 1).is_err());
        assert_eq!(to_buffer(&sc, &m.geom).unwrap(), e2);
    }

    #[test]
    fn squeezing_the_unit_dimensions() {
        let g = Geometry::new(&[1, 5, 1, 3], &[1, 2, 1, 3], &[1, 1, 1, 3]).unwrap();
        let units = unit_dims(&g);
        assert_eq!(units, vec![true, false, true, false]);
        let (s, c, b) = squeezed(&g, &units).unwrap();
        assert_eq!((s, c, b), (vec![5, 3], vec![2, 3], vec![1, 3]));
        let not_unit = squeezed(&g, &[false, true, false, false]);
        assert_eq!(not_unit, Err(Error::InvalidIndex));
    }

    #[test]
    fn views_only_of_plain_arrays() {
        let (mut sc, _) = new_array(&[3, 2], &[2, 2], &[1, 2], 1);
        assert_eq!(check_viewable(&sc), Ok(()));
        sc.vlmeta_add("notes", b"x", None).unwrap();
        assert_eq!(check_viewable(&sc), Ok(()));
        sc.meta_add("extra", b"x").unwrap();
        assert_eq!(check_viewable(&sc), Err(Error::InvalidParam));
    }

    #[test]
    fn concatenate_aligned_and_not() {
        for (cs2, rows1) in [(vec![2, 3], 4i64), (vec![3, 3], 4), (vec![2, 3], 3)] {
            let (mut sc1, mut m1) = new_array(&[rows1, 3], &[2, 3], &[1, 3], 1);
            let d1 = fill(&mut sc1, &m1);
            let (mut sc2, m2) = new_array(&[5, 3], &cs2, &[1, 3], 1);
            let d2: Vec<u8> = (0..15).map(|i| 200 + i as u8).collect();
            from_buffer(&mut sc2, &m2.geom, &d2).unwrap();
            concatenate(&mut sc1, &mut m1, &sc2, &m2.geom, 0).unwrap();
            let mut expect = d1.clone();
            expect.extend_from_slice(&d2);
            assert_eq!(to_buffer(&sc1, &m1.geom).unwrap(), expect);
        }
    }

    #[test]
    fn concatenating_an_array_to_itself() {
        let (mut sc, mut m) = new_array(&[3, 2], &[2, 2], &[1, 2], 1);
        let d = fill(&mut sc, &m);
        let g = m.geom.clone();
        concatenate_from(&mut sc, &mut m, None, &g, 1).unwrap();
        assert_eq!(m.geom.shape, vec![3, 4]);
        let rows: Vec<u8> = d.chunks(2).flat_map(|r| [r, r].concat()).collect();
        assert_eq!(to_buffer(&sc, &m.geom).unwrap(), rows);
        let (other, _) = new_array(&[3, 2], &[2, 2], &[1, 2], 1);
        concatenate_from(&mut sc, &mut m, Some(&other), &g, 1).unwrap();
        assert_eq!(m.geom.shape, vec![3, 6]);
        let rows: Vec<u8> = d.chunks(2).flat_map(|r| [r, r, &[0, 0]].concat()).collect();
        assert_eq!(to_buffer(&sc, &m.geom).unwrap(), rows);
    }

    #[test]
    fn what_may_be_concatenated() {
        let g = |shape: &[i64]| {
            let ones = vec![1i32; shape.len()];
            Geometry::new(shape, &ones, &ones).unwrap()
        };
        let check = check_concatenable;
        assert_eq!(check(&g(&[4, 3]), 2, &g(&[5, 3]), 2, 0), Ok(()));
        assert_eq!(check(&g(&[4, 3]), 2, &g(&[4, 1]), 2, 1), Ok(()));
        let refused = Err(Error::InvalidParam);
        assert_eq!(check(&g(&[4, 3]), 2, &g(&[5, 2]), 2, 0), refused);
        assert_eq!(check(&g(&[4, 3]), 2, &g(&[5, 3]), 4, 0), refused);
        assert_eq!(check(&g(&[4, 3]), 2, &g(&[5, 3]), 2, 2), refused);
        assert_eq!(check(&g(&[4, 3]), 2, &g(&[4, 3, 1]), 2, 0), refused);
        assert_eq!(check(&g(&[]), 2, &g(&[]), 2, 0), refused);
    }
}
