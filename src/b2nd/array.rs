//! Creating arrays on a super-chunk and moving boxes of items between an
//! array and plain C-order buffers.
//!
//! A stored chunk holds the chunk padded to whole blocks (`extchunkshape`):
//! its blocks one after another in C order over the chunk's block grid, each
//! block a C-order buffer of `blockshape` items.  Chunks follow each other in
//! C order over the array's chunk grid (`extshape / chunkshape`).  Padding
//! items are zero when a chunk is written whole.

use super::copy::{copy_box, needed_bytes};
use super::geometry::{for_each_index, strides, to_linear, Geometry};
use super::meta::{serialize, ArrayMeta};
use crate::alloc;
use crate::chunk::{self, special};
use crate::error::{Error, Result};
use crate::format::header::{Special, EXTENDED_HEADER_LENGTH};
use crate::schunk::SuperChunk;

/// How a new array's chunks start out.
#[derive(Debug, Clone, Copy)]
pub enum Fill<'a> {
    /// Special-value chunks (zeros, NaNs, uninitialized).
    Special(Special),
    /// Every item equal to this value (`typesize` bytes).
    Value(&'a [u8]),
}

impl Fill<'_> {
    /// Whether items of `typesize` bytes can start out so: NaNs exist only
    /// as 4- and 8-byte floats (`Error::Data` otherwise).
    pub fn check_typesize(&self, typesize: i32) -> Result<()> {
        match self {
            Fill::Special(Special::Nan) if typesize != 4 && typesize != 8 => Err(Error::Data),
            _ => Ok(()),
        }
    }

    /// The bytes of the value a [`Fill::Value`] array starts from: one item
    /// of `typesize` bytes, which must be positive (`InvalidParam`).
    pub fn value_nbytes(typesize: i32) -> Result<i64> {
        match typesize {
            ..=0 => Err(Error::InvalidParam),
            n => Ok(i64::from(n)),
        }
    }
}

/// Serialize `meta` as the "b2nd" metalayer.
pub fn meta_bytes(meta: &ArrayMeta) -> Result<Vec<u8>> {
    let g = &meta.geom;
    serialize(
        &g.shape,
        &g.chunkshape,
        &g.blockshape,
        &meta.dtype,
        meta.dtype_format,
    )
}

/// Read the "b2nd" (or older "caterva") metalayer of a super-chunk.
pub fn read_meta(sc: &SuperChunk) -> Result<ArrayMeta> {
    let raw = sc
        .meta_get("b2nd")
        .or_else(|_| sc.meta_get("caterva"))
        .map_err(|_| Error::MetalayerNotFound)?;
    let (meta, _) = super::meta::deserialize(raw)?;
    check_against_schunk(sc, &meta.geom)?;
    Ok(meta)
}

/// The fixed metalayers of an array's super-chunk other than its own
/// "b2nd" one, (name, content) in their order.
pub fn extra_metalayers(sc: &SuperChunk) -> Vec<(String, Vec<u8>)> {
    sc.metalayers()
        .iter()
        .filter(|m| m.name != "b2nd")
        .map(|m| (m.name.clone(), m.content.clone()))
        .collect()
}

/// Every vlmetalayer of a super-chunk, (name, decompressed content) in
/// their order.
pub fn vlmetalayers(sc: &SuperChunk) -> Result<Vec<(String, Vec<u8>)>> {
    sc.vlmetalayers()
        .iter()
        .map(|m| sc.vlmeta_get(&m.name).map(|(_, v)| (m.name.clone(), v)))
        .collect()
}

/// Add the vlmetalayers `items` (as [`vlmetalayers`] gives them) to a
/// super-chunk, compressed with the default parameters.
pub fn add_vlmetalayers(sc: &mut SuperChunk, items: &[(String, Vec<u8>)]) -> Result<()> {
    for (name, content) in items {
        sc.vlmeta_add(name, content, None)?;
    }
    Ok(())
}

/// A super-chunk can back an array only when its chunks can be as large as
/// a padded chunk.
fn check_against_schunk(sc: &SuperChunk, g: &Geometry) -> Result<()> {
    let ts = sc.typesize();
    if ts <= 0 {
        return Err(Error::InvalidParam);
    }
    if g.nitems == 0 {
        return Ok(());
    }
    // A chunk count that does not match the grid is not refused here (the
    // reference opens such arrays too); reading a missing chunk fails then.
    // Stored chunks of another size than a padded chunk are refused: the
    // metalayer lies about the chunk or block shape.  A padded chunk larger
    // than one buffer can hold is no reason to refuse the array (the
    // reference opens it too): only the calls that need such a chunk in one
    // buffer fail later.
    g.block_nbytes(ts)?;
    g.extnitems
        .checked_mul(ts as i64)
        .ok_or(Error::InvalidParam)?;
    if sc.nchunks() > 0 && sc.chunksize > 0 && g.chunk_nbytes(ts).ok() != Some(sc.chunksize) {
        return Err(Error::InvalidParam);
    }
    Ok(())
}

/// Turn a fresh, empty super-chunk into an array: record the metalayers and
/// write the initial chunks.
pub fn init_schunk(
    sc: &mut SuperChunk,
    meta: &ArrayMeta,
    extra_metas: &[(String, Vec<u8>)],
    fill: Fill<'_>,
) -> Result<()> {
    let g = &meta.geom;
    let ts = sc.typesize();
    if ts <= 0 {
        return Err(Error::InvalidParam);
    }
    fill.check_typesize(ts)?;
    g.check_bytes(ts)?;
    let chunk_nbytes = g.chunk_nbytes(ts)?;
    if g.nitems > 0 {
        sc.cparams.blocksize = g.block_nbytes(ts)?;
    }
    sc.meta_add("b2nd", &meta_bytes(meta)?)?;
    for (name, content) in extra_metas {
        sc.meta_add(name, content)?;
    }
    if g.nitems == 0 {
        return Ok(());
    }
    let nchunks = g.nchunks();
    match fill {
        Fill::Special(kind) => {
            let nitems = nchunks
                .checked_mul(g.extchunknitems)
                .ok_or(Error::InvalidParam)?;
            sc.fill_special(nitems, kind, chunk_nbytes)?;
        }
        Fill::Value(v) => {
            if v.len() < ts as usize {
                return Err(Error::InvalidParam);
            }
            let mut c = vec![0u8; EXTENDED_HEADER_LENGTH + ts as usize];
            let n = special::chunk_repeatval(&sc.cparams, chunk_nbytes, v, &mut c)?;
            c.truncate(n);
            for _ in 0..nchunks {
                sc.append_chunk(c.clone())?;
            }
        }
    }
    Ok(())
}

/// Compress one padded chunk of an array with the super-chunk's parameters,
/// the block size being the array's block.
pub fn compress_chunk(sc: &SuperChunk, g: &Geometry, nchunk: i64, data: &[u8]) -> Result<Vec<u8>> {
    let mut cp = sc.cparams.clone();
    cp.blocksize = g.block_nbytes(sc.typesize())?;
    cp.nchunk = nchunk;
    chunk::compress(&cp, data)
}

/// Decompress chunk `nchunk` into `data` (a padded chunk), only the blocks
/// whose `needed` entry is true when `needed` is given.
pub(crate) fn read_chunk(
    sc: &SuperChunk,
    nchunk: i64,
    data: &mut [u8],
    needed: Option<&[bool]>,
) -> Result<()> {
    let n = match needed {
        None => sc.decompress_chunk(nchunk, data)?,
        Some(needed) => {
            // `chunk` gives whole chunks (never lazy ones).
            let c = sc.chunk(nchunk)?;
            let maskout: Vec<bool> = needed.iter().map(|&n| !n).collect();
            chunk::decompress_masked(&sc.dparams, &c, data, &maskout)?
        }
    };
    if n != data.len() {
        return Err(Error::Data);
    }
    Ok(())
}

/// A working buffer for one padded chunk, allocated only once chunk `nchunk`
/// of the super-chunk says it holds that many bytes: the metalayer's shapes
/// alone do not size an allocation (a lying metalayer over small chunks is
/// [`Error::Data`] before anything is allocated).
pub(crate) fn chunk_buffer(sc: &SuperChunk, g: &Geometry, nchunk: i64) -> Result<Vec<u8>> {
    let n = g.chunk_buffer_nbytes(sc.typesize())?;
    check_chunk_nbytes(sc, nchunk, n)?;
    alloc::zeroed(n)
}

/// Refuse chunk `nchunk` unless its header says it holds `nbytes` bytes.
fn check_chunk_nbytes(sc: &SuperChunk, nchunk: i64, nbytes: usize) -> Result<()> {
    let head = sc.lazy_chunk(nchunk)?;
    let (held, _, _) = chunk::sizes(&head)?;
    if held != nbytes {
        return Err(Error::Data);
    }
    Ok(())
}

/// Check a box `[start, stop)` against a shape.
pub(crate) fn check_box(shape: &[i64], start: &[i64], stop: &[i64]) -> Result<()> {
    let nd = shape.len();
    if start.len() != nd || stop.len() != nd {
        return Err(Error::InvalidParam);
    }
    for i in 0..nd {
        if start[i] < 0 || stop[i] < start[i] || stop[i] > shape[i] {
            return Err(Error::InvalidParam);
        }
    }
    Ok(())
}

/// The shape of the box `[start, stop)`, checked against `shape` as
/// `check_box` does (as many dimensions, 0 <= start <= stop <= shape).
pub fn box_shape(shape: &[i64], start: &[i64], stop: &[i64]) -> Result<Vec<i64>> {
    check_box(shape, start, stop)?;
    Ok(stop.iter().zip(start).map(|(e, s)| e - s).collect())
}

/// The bytes of `nitems` items of `typesize` bytes, which a caller's buffer
/// of `buffersize` bytes must hold: `InvalidParam` when it is smaller or
/// the product overflows.
pub fn buffer_nbytes(nitems: i64, typesize: i32, buffersize: i64) -> Result<i64> {
    let need = nitems
        .checked_mul(typesize as i64)
        .ok_or(Error::InvalidParam)?;
    if buffersize < need {
        return Err(Error::InvalidParam);
    }
    Ok(need)
}

/// The part of the array a chunk covers: `[start, stop)`, clipped to the
/// array's shape.
pub(crate) fn chunk_box(g: &Geometry, c: &[i64]) -> (Vec<i64>, Vec<i64>) {
    let nd = g.ndim();
    let start: Vec<i64> = (0..nd).map(|i| c[i] * g.chunkshape[i] as i64).collect();
    let stop: Vec<i64> = (0..nd)
        .map(|i| (start[i] + g.chunkshape[i] as i64).min(g.shape[i]))
        .collect();
    (start, stop)
}

/// One piece of a slice transfer: a block of a chunk and the box of the
/// array it shares with the slice.
struct Piece<'a> {
    nblock: usize,
    block_origin: &'a [i64],
    lo: &'a [i64],
    hi: &'a [i64],
}

/// Visit every chunk the box `[start, stop)` touches, with the pieces
/// (blocks) of it inside the box.  `per_chunk` gets the chunk number, its
/// box, and the list of pieces.
fn walk_slice(
    g: &Geometry,
    start: &[i64],
    stop: &[i64],
    mut per_chunk: impl FnMut(
        i64,
        &[i64],
        &[i64],
        &mut dyn FnMut(&mut dyn FnMut(Piece<'_>) -> Result<()>) -> Result<()>,
    ) -> Result<()>,
) -> Result<()> {
    let nd = g.ndim();
    if start.iter().zip(stop).any(|(a, b)| a >= b) {
        return Ok(());
    }
    let cs: Vec<i64> = g.chunkshape.iter().map(|&c| c as i64).collect();
    let bs: Vec<i64> = g.blockshape.iter().map(|&b| b as i64).collect();
    let first: Vec<i64> = (0..nd).map(|i| start[i] / cs[i]).collect();
    let count: Vec<i64> = (0..nd)
        .map(|i| (stop[i] - 1) / cs[i] - first[i] + 1)
        .collect();
    let chunk_strides = strides(&g.chunks_per_dim());
    let block_strides = strides(&g.blocks_per_dim());
    for_each_index(&count, |rel| {
        let c: Vec<i64> = (0..nd).map(|i| first[i] + rel[i]).collect();
        let nchunk = to_linear(&c, &chunk_strides);
        let (c0, c1) = chunk_box(g, &c);
        let lo: Vec<i64> = (0..nd).map(|i| start[i].max(c0[i])).collect();
        let hi: Vec<i64> = (0..nd).map(|i| stop[i].min(c1[i])).collect();
        let mut blocks = |visit: &mut dyn FnMut(Piece<'_>) -> Result<()>| -> Result<()> {
            let bfirst: Vec<i64> = (0..nd).map(|i| (lo[i] - c0[i]) / bs[i]).collect();
            let bcount: Vec<i64> = (0..nd)
                .map(|i| (hi[i] - 1 - c0[i]) / bs[i] - bfirst[i] + 1)
                .collect();
            for_each_index(&bcount, |brel| {
                let b: Vec<i64> = (0..nd).map(|i| bfirst[i] + brel[i]).collect();
                let origin: Vec<i64> = (0..nd).map(|i| c0[i] + b[i] * bs[i]).collect();
                let plo: Vec<i64> = (0..nd).map(|i| lo[i].max(origin[i])).collect();
                let phi: Vec<i64> = (0..nd).map(|i| hi[i].min(origin[i] + bs[i])).collect();
                visit(Piece {
                    nblock: to_linear(&b, &block_strides) as usize,
                    block_origin: &origin,
                    lo: &plo,
                    hi: &phi,
                })
            })
        };
        per_chunk(nchunk, &c0, &c1, &mut blocks)
    })
}

/// Check the arguments of a slice transfer; returns the typesize.
fn check_slice(
    typesize: i32,
    g: &Geometry,
    start: &[i64],
    stop: &[i64],
    bufshape: &[i64],
    buflen: usize,
) -> Result<i32> {
    if typesize <= 0 {
        return Err(Error::InvalidParam);
    }
    check_box(&g.shape, start, stop)?;
    check_buffer(g.ndim(), start, stop, bufshape, buflen, typesize as usize)?;
    Ok(typesize)
}

fn check_buffer(
    nd: usize,
    start: &[i64],
    stop: &[i64],
    bufshape: &[i64],
    buflen: usize,
    ts: usize,
) -> Result<()> {
    if bufshape.len() != nd {
        return Err(Error::InvalidParam);
    }
    let zero = vec![0i64; nd];
    let extent: Vec<i64> = (0..nd).map(|i| stop[i] - start[i]).collect();
    for i in 0..nd {
        if extent[i] > bufshape[i] {
            return Err(Error::InvalidParam);
        }
    }
    let need = needed_bytes(bufshape, &zero, &extent, ts).ok_or(Error::InvalidParam)?;
    if need > buflen {
        return Err(Error::InvalidParam);
    }
    Ok(())
}

/// Copy the box `[start, stop)` of the array into `buf`, a C-order buffer
/// of shape `bufshape` (the box lands at its origin).  `buf` is zeroed
/// first.
pub fn get_slice(
    sc: &SuperChunk,
    g: &Geometry,
    start: &[i64],
    stop: &[i64],
    buf: &mut [u8],
    bufshape: &[i64],
) -> Result<()> {
    let ts = check_slice(sc.typesize(), g, start, stop, bufshape, buf.len())?;
    let nd = g.ndim();
    buf.fill(0);
    if nd == 0 {
        // check_slice made sure that `buf` holds one item.
        return read_chunk(sc, 0, &mut buf[..ts as usize], None);
    }
    if g.nitems == 0 {
        return Ok(());
    }
    let chunk_nbytes = g.chunk_buffer_nbytes(ts)?;
    let block_nbytes = g.block_nbytes(ts)? as usize;
    let nblocks = g.nblocks() as usize;
    // A padded chunk that the caller's buffer cannot back (a chunk shape
    // far beyond the slice, or beyond the array) is read block by block.
    let whole_chunks = alloc::check(chunk_nbytes, buf.len()).is_ok();
    let mut data = Vec::new();
    let mut block = Vec::new();
    let bs: Vec<i64> = g.blockshape.iter().map(|&b| b as i64).collect();
    let ts = ts as usize;
    walk_slice(g, start, stop, |nchunk, _c0, _c1, blocks| {
        if !whole_chunks {
            let c = sc.chunk(nchunk)?;
            let (held, _, _) = chunk::sizes(&c)?;
            if held != chunk_nbytes {
                return Err(Error::Data);
            }
            if block.is_empty() {
                block = alloc::zeroed_within(block_nbytes, buf.len())?;
            }
            return blocks(&mut |p| {
                let at = (p.nblock * block_nbytes) as i64;
                let n = chunk::getitem_bytes(&sc.dparams, &c, at, block_nbytes as i64, &mut block)?;
                if n != block_nbytes {
                    return Err(Error::Data);
                }
                copy_piece(ts, &block, &bs, &p, start, buf, bufshape)
            });
        }
        let mut needed = vec![false; nblocks];
        blocks(&mut |p| {
            needed[p.nblock] = true;
            Ok(())
        })?;
        let n_needed = needed.iter().filter(|&&n| n).count();
        let partial = n_needed < nblocks;
        if data.is_empty() {
            data = chunk_buffer(sc, g, nchunk)?;
        }
        read_chunk(sc, nchunk, &mut data, partial.then_some(&needed[..]))?;
        blocks(&mut |p| {
            let block = &data[p.nblock * block_nbytes..(p.nblock + 1) * block_nbytes];
            copy_piece(ts, block, &bs, &p, start, buf, bufshape)
        })
    })
}

/// Copy the part of a decompressed block that a slice read wants into the
/// caller's buffer.
fn copy_piece(
    ts: usize,
    block: &[u8],
    blockshape: &[i64],
    p: &Piece<'_>,
    start: &[i64],
    buf: &mut [u8],
    bufshape: &[i64],
) -> Result<()> {
    let nd = blockshape.len();
    let s0: Vec<i64> = (0..nd).map(|i| p.lo[i] - p.block_origin[i]).collect();
    let s1: Vec<i64> = (0..nd).map(|i| p.hi[i] - p.block_origin[i]).collect();
    let d0: Vec<i64> = (0..nd).map(|i| p.lo[i] - start[i]).collect();
    copy_box(ts, block, blockshape, &s0, &s1, buf, bufshape, &d0)
}

/// Write `buf` (C order, shape `bufshape`, read from its origin) into the
/// box `[start, stop)` of the array, recompressing every chunk touched.
pub fn set_slice(
    sc: &mut SuperChunk,
    g: &Geometry,
    start: &[i64],
    stop: &[i64],
    buf: &[u8],
    bufshape: &[i64],
) -> Result<()> {
    let ts = check_slice(sc.typesize(), g, start, stop, bufshape, buf.len())?;
    let nd = g.ndim();
    if nd == 0 {
        let c = compress_chunk(sc, g, 0, &buf[..ts as usize])?;
        sc.update_chunk(0, c)?;
        return Ok(());
    }
    if g.nitems == 0 {
        return Ok(());
    }
    let block_nbytes = g.block_nbytes(ts)? as usize;
    let mut data = Vec::new();
    let bs: Vec<i64> = g.blockshape.iter().map(|&b| b as i64).collect();
    let ts = ts as usize;
    walk_slice(g, start, stop, |nchunk, c0, c1, blocks| {
        if data.is_empty() {
            data = chunk_buffer(&*sc, g, nchunk)?;
        }
        let whole = (0..nd).all(|i| start[i] <= c0[i] && c1[i] <= stop[i]);
        if whole {
            data.fill(0);
        } else {
            read_chunk(&*sc, nchunk, &mut data, None)?;
        }
        blocks(&mut |p| {
            let block = &mut data[p.nblock * block_nbytes..(p.nblock + 1) * block_nbytes];
            let s0: Vec<i64> = (0..nd).map(|i| p.lo[i] - start[i]).collect();
            let s1: Vec<i64> = (0..nd).map(|i| p.hi[i] - start[i]).collect();
            let d0: Vec<i64> = (0..nd).map(|i| p.lo[i] - p.block_origin[i]).collect();
            copy_box(ts, buf, bufshape, &s0, &s1, block, &bs, &d0)
        })?;
        let c = compress_chunk(&*sc, g, nchunk, &data)?;
        sc.update_chunk(nchunk, c)?;
        Ok(())
    })
}

/// Copy of the array's items in C order (`nitems * typesize` bytes).
pub fn to_buffer(sc: &SuperChunk, g: &Geometry) -> Result<Vec<u8>> {
    let ts = usize::try_from(sc.typesize()).map_err(|_| Error::InvalidParam)?;
    let n = usize::try_from(g.nitems)
        .ok()
        .and_then(|n| n.checked_mul(ts))
        .ok_or(Error::MemoryAlloc)?;
    // The array's items: what the stored chunks back is checked by
    // get_slice before it allocates anything more.
    let mut out = alloc::zeroed(n)?;
    get_all(sc, g, &mut out)?;
    Ok(out)
}

/// Read every item, in C order, into `out` (at least `nitems * typesize`
/// bytes); an array without items reads nothing.
pub fn get_all(sc: &SuperChunk, g: &Geometry, out: &mut [u8]) -> Result<()> {
    if g.nitems == 0 {
        return Ok(());
    }
    let zero = vec![0i64; g.ndim()];
    get_slice(sc, g, &zero, &g.shape, out, &g.shape)
}

/// Write the whole array from a C-order buffer.
pub fn from_buffer(sc: &mut SuperChunk, g: &Geometry, buf: &[u8]) -> Result<()> {
    let zero = vec![0i64; g.ndim()];
    set_slice(sc, g, &zero, &g.shape, buf, &g.shape)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::chunk::CParams;
    use crate::schunk::Storage;

    pub(crate) fn new_array(
        shape: &[i64],
        cs: &[i32],
        bs: &[i32],
        ts: i32,
    ) -> (SuperChunk, ArrayMeta) {
        let cp = CParams {
            typesize: ts,
            ..CParams::default()
        };
        let mut sc = SuperChunk::new(cp, Default::default(), Storage::Memory).unwrap();
        let meta = ArrayMeta {
            geom: Geometry::new(shape, cs, bs).unwrap(),
            dtype: "|u1".into(),
            dtype_format: 0,
        };
        init_schunk(&mut sc, &meta, &[], Fill::Special(Special::Zero)).unwrap();
        (sc, meta)
    }

    #[test]
    fn metalayers_carried_to_a_new_array() {
        let (mut sc, _) = new_array(&[4], &[2], &[2], 1);
        sc.meta_add("extra", b"x").unwrap();
        sc.vlmeta_add("v1", b"first", None).unwrap();
        sc.vlmeta_add("v2", b"second", None).unwrap();
        assert_eq!(extra_metalayers(&sc), vec![("extra".into(), b"x".to_vec())]);
        let items = vlmetalayers(&sc).unwrap();
        let (mut other, _) = new_array(&[4], &[2], &[2], 1);
        add_vlmetalayers(&mut other, &items).unwrap();
        assert_eq!(vlmetalayers(&other).unwrap(), items);
        assert_eq!(items[1], ("v2".into(), b"second".to_vec()));
        assert!(
            add_vlmetalayers(&mut other, &items).is_err(),
            "names are unique"
        );
    }

    #[test]
    fn nans_need_float_items() {
        let nan = Fill::Special(Special::Nan);
        assert_eq!(nan.check_typesize(4), Ok(()));
        assert_eq!(nan.check_typesize(8), Ok(()));
        assert_eq!(nan.check_typesize(2), Err(Error::Data));
        assert_eq!(Fill::Special(Special::Zero).check_typesize(2), Ok(()));
        assert_eq!(Fill::value_nbytes(3), Ok(3));
        assert_eq!(Fill::value_nbytes(0), Err(Error::InvalidParam));
        let cp = CParams {
            typesize: 2,
            ..CParams::default()
        };
        let mut sc = SuperChunk::new(cp, Default::default(), Storage::Memory).unwrap();
        let meta = ArrayMeta {
            geom: Geometry::new(&[4], &[2], &[2]).unwrap(),
            dtype: "<f2".into(),
            dtype_format: 0,
        };
        assert_eq!(init_schunk(&mut sc, &meta, &[], nan), Err(Error::Data));
    }

    #[test]
    fn box_shapes_and_buffer_sizes() {
        assert_eq!(box_shape(&[10, 7], &[2, 0], &[5, 7]), Ok(vec![3, 7]));
        assert_eq!(
            box_shape(&[10, 7], &[2, 0], &[5, 8]),
            Err(Error::InvalidParam)
        );
        assert_eq!(box_shape(&[10, 7], &[2], &[5]), Err(Error::InvalidParam));
        assert_eq!(buffer_nbytes(12, 8, 96), Ok(96));
        assert_eq!(buffer_nbytes(12, 8, 95), Err(Error::InvalidParam));
        assert_eq!(
            buffer_nbytes(i64::MAX, 2, i64::MAX),
            Err(Error::InvalidParam)
        );
    }

    #[test]
    fn whole_array_round_trip() {
        for (shape, cs, bs) in [
            (vec![10i64, 7], vec![4, 3], vec![3, 2]),
            (vec![5, 6, 7], vec![5, 6, 7], vec![2, 3, 4]),
            (vec![13], vec![5], vec![5]),
            (vec![3, 1, 4, 2], vec![2, 1, 3, 2], vec![1, 1, 2, 1]),
        ] {
            let (mut sc, m) = new_array(&shape, &cs, &bs, 4);
            let n = m.geom.nitems as usize * 4;
            let data: Vec<u8> = (0..n).map(|i| (i * 31 % 251) as u8).collect();
            from_buffer(&mut sc, &m.geom, &data).unwrap();
            assert_eq!(to_buffer(&sc, &m.geom).unwrap(), data);
            assert_eq!(sc.nchunks(), m.geom.nchunks());
        }
    }

    #[test]
    fn slices_match_a_plain_model() {
        let shape = [11i64, 9, 6];
        let (mut sc, m) = new_array(&shape, &[4, 5, 6], &[2, 3, 4], 2);
        let n = m.geom.nitems as usize;
        let mut model: Vec<u16> = (0..n as u16).collect();
        let bytes: Vec<u8> = model.iter().flat_map(|v| v.to_le_bytes()).collect();
        from_buffer(&mut sc, &m.geom, &bytes).unwrap();
        let st = strides(&shape);
        let mut seed = 7u64;
        let mut rnd = |k: i64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            ((seed >> 33) as i64) % k
        };
        for round in 0..60 {
            let start: Vec<i64> = shape.iter().map(|&s| rnd(s)).collect();
            let stop: Vec<i64> = (0..3)
                .map(|i| start[i] + rnd(shape[i] - start[i] + 1))
                .collect();
            let ext: Vec<i64> = (0..3).map(|i| stop[i] - start[i]).collect();
            let cnt: i64 = ext.iter().product();
            if round % 2 == 0 {
                let mut out = vec![0u8; cnt as usize * 2];
                get_slice(&sc, &m.geom, &start, &stop, &mut out, &ext).unwrap();
                let mut k = 0;
                for_each_index(&ext, |idx| {
                    let pos: Vec<i64> = (0..3).map(|i| start[i] + idx[i]).collect();
                    let v = model[to_linear(&pos, &st) as usize];
                    assert_eq!(u16::from_le_bytes([out[2 * k], out[2 * k + 1]]), v);
                    k += 1;
                    Ok(())
                })
                .unwrap();
            } else {
                let vals: Vec<u16> = (0..cnt)
                    .map(|i| (i as u16).wrapping_mul(977) ^ round)
                    .collect();
                let b: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
                set_slice(&mut sc, &m.geom, &start, &stop, &b, &ext).unwrap();
                let mut k = 0;
                for_each_index(&ext, |idx| {
                    let pos: Vec<i64> = (0..3).map(|i| start[i] + idx[i]).collect();
                    model[to_linear(&pos, &st) as usize] = vals[k];
                    k += 1;
                    Ok(())
                })
                .unwrap();
                let all = to_buffer(&sc, &m.geom).unwrap();
                let expect: Vec<u8> = model.iter().flat_map(|v| v.to_le_bytes()).collect();
                assert_eq!(all, expect);
            }
        }
    }

    #[test]
    fn bad_boxes_are_errors() {
        let (mut sc, m) = new_array(&[4, 4], &[2, 2], &[1, 1], 1);
        let mut out = [0u8; 16];
        assert!(get_slice(&sc, &m.geom, &[0, 0], &[5, 4], &mut out, &[5, 4]).is_err());
        assert!(get_slice(&sc, &m.geom, &[2, 0], &[1, 4], &mut out, &[4, 4]).is_err());
        assert!(get_slice(&sc, &m.geom, &[0, 0], &[4, 4], &mut out[..15], &[4, 4]).is_err());
        assert!(get_slice(&sc, &m.geom, &[0, 0], &[4, 4], &mut out, &[3, 4]).is_err());
        assert!(set_slice(&mut sc, &m.geom, &[0], &[4], &out, &[4]).is_err());
    }
}
