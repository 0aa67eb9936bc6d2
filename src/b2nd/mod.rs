//! N-dimensional arrays on super-chunks (the b2nd layer of c-blosc2).
//!
//! An array is a super-chunk with a "b2nd" metalayer holding its shape,
//! chunk shape, block shape and dtype.  Chunks cover the array in C order
//! over the chunk grid; each chunk is stored padded to whole blocks, block
//! after block (see [`mod@array`]).  [`NdArray`] owns its super-chunk; the
//! free functions of [`mod@array`], [`select`] and [`reshape`] work on any
//! super-chunk and [`ArrayMeta`] pair (the C layer keeps the super-chunk
//! in its own `blosc2_schunk`).
//!
//! ```
//! use blosc2::b2nd::NdArray;
//! use blosc2::chunk::CParams;
//! use blosc2::schunk::Storage;
//! let cp = CParams { typesize: 4, ..CParams::default() };
//! let data: Vec<u8> = (0..60u32).flat_map(|v| v.to_le_bytes()).collect();
//! let a = NdArray::from_buffer(cp, Storage::Memory, &[6, 10], &[4, 5], &[2, 5], "<u4", &data).unwrap();
//! let mut out = vec![0u8; 2 * 3 * 4];
//! a.get_slice(&[1, 2], &[3, 5], &mut out, &[2, 3]).unwrap();
//! assert_eq!(&out[..4], &12u32.to_le_bytes());
//! ```

#![forbid(unsafe_code)]

pub mod array;
pub mod copy;
pub mod follow;
pub mod geometry;
pub mod meta;
pub mod params;
pub mod reshape;
pub mod save;
pub mod select;

pub use array::Fill;
pub use geometry::{Geometry, MAX_DIM};
pub use meta::ArrayMeta;
pub use params::ArrayParams;

use crate::chunk::{CParams, DParams};
use crate::error::{Error, Result};
use crate::format::header::Special;
use crate::schunk::{Storage, SuperChunk};
use std::path::Path;

/// An n-dimensional array that owns its super-chunk.
#[derive(Debug)]
pub struct NdArray {
    /// The super-chunk holding the chunks and the metalayers.
    pub sc: SuperChunk,
    /// Shapes and dtype (kept equal to the "b2nd" metalayer).
    pub meta: ArrayMeta,
}

impl NdArray {
    /// A new array with every item set as `fill` says.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cparams: CParams,
        dparams: DParams,
        storage: Storage,
        shape: &[i64],
        chunkshape: &[i32],
        blockshape: &[i32],
        dtype: &str,
        fill: Fill<'_>,
    ) -> Result<NdArray> {
        let meta = ArrayMeta {
            geom: Geometry::new(shape, chunkshape, blockshape)?,
            dtype: dtype.to_string(),
            dtype_format: 0,
        };
        let mut sc = SuperChunk::new(cparams, dparams, storage)?;
        pass_shapes(&mut sc, &meta.geom);
        array::init_schunk(&mut sc, &meta, &[], fill)?;
        Ok(NdArray { sc, meta })
    }

    /// A new array holding `data` (C order, `nitems * typesize` bytes).
    #[allow(clippy::too_many_arguments)]
    pub fn from_buffer(
        cparams: CParams,
        storage: Storage,
        shape: &[i64],
        chunkshape: &[i32],
        blockshape: &[i32],
        dtype: &str,
        data: &[u8],
    ) -> Result<NdArray> {
        let mut a = NdArray::new(
            cparams,
            DParams::default(),
            storage,
            shape,
            chunkshape,
            blockshape,
            dtype,
            Fill::Special(Special::Zero),
        )?;
        let need = a.nbytes()?;
        if data.len() < need {
            return Err(Error::InvalidParam);
        }
        array::from_buffer(&mut a.sc, &a.meta.geom, &data[..need])?;
        Ok(a)
    }

    /// The array of a super-chunk with a "b2nd" metalayer.
    pub fn from_schunk(mut sc: SuperChunk) -> Result<NdArray> {
        let meta = array::read_meta(&sc)?;
        pass_shapes(&mut sc, &meta.geom);
        Ok(NdArray { sc, meta })
    }

    /// Open an array stored in a frame file or sparse-frame directory.
    pub fn open(path: &Path) -> Result<NdArray> {
        NdArray::from_schunk(SuperChunk::open(path, 0)?)
    }

    /// The array in a contiguous frame held in memory.
    pub fn from_frame_bytes(bytes: Vec<u8>) -> Result<NdArray> {
        NdArray::from_schunk(SuperChunk::from_frame_bytes(bytes, true)?)
    }

    /// Shape.
    pub fn shape(&self) -> &[i64] {
        &self.meta.geom.shape
    }

    /// Size in bytes of all items.
    pub fn nbytes(&self) -> Result<usize> {
        usize::try_from(self.meta.geom.nitems)
            .ok()
            .and_then(|n| n.checked_mul(self.sc.typesize() as usize))
            .ok_or(Error::InvalidParam)
    }

    /// All items in C order.
    pub fn to_buffer(&self) -> Result<Vec<u8>> {
        array::to_buffer(&self.sc, &self.meta.geom)
    }

    /// Read the box `[start, stop)` into `buf` (shape `bufshape`).
    pub fn get_slice(
        &self,
        start: &[i64],
        stop: &[i64],
        buf: &mut [u8],
        bufshape: &[i64],
    ) -> Result<()> {
        array::get_slice(&self.sc, &self.meta.geom, start, stop, buf, bufshape)
    }

    /// Write the box `[start, stop)` from `buf` (shape `bufshape`).
    pub fn set_slice(
        &mut self,
        start: &[i64],
        stop: &[i64],
        buf: &[u8],
        bufshape: &[i64],
    ) -> Result<()> {
        array::set_slice(&mut self.sc, &self.meta.geom, start, stop, buf, bufshape)
    }

    /// Read an orthogonal selection.
    pub fn get_orthogonal(
        &self,
        selection: &[&[i64]],
        buf: &mut [u8],
        bufshape: &[i64],
    ) -> Result<()> {
        select::get_orthogonal(&self.sc, &self.meta.geom, selection, buf, bufshape)
    }

    /// Write an orthogonal selection.
    pub fn set_orthogonal(
        &mut self,
        selection: &[&[i64]],
        buf: &[u8],
        bufshape: &[i64],
    ) -> Result<()> {
        select::set_orthogonal(&mut self.sc, &self.meta.geom, selection, buf, bufshape)
    }

    /// Resize (see [`reshape::resize`]).
    pub fn resize(&mut self, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
        let r = reshape::resize(&mut self.sc, &mut self.meta, new_shape, start);
        pass_shapes(&mut self.sc, &self.meta.geom);
        r
    }

    /// Append whole slabs along `axis`.
    pub fn append(&mut self, buf: &[u8], axis: usize) -> Result<()> {
        let r = reshape::append(&mut self.sc, &mut self.meta, buf, axis);
        pass_shapes(&mut self.sc, &self.meta.geom);
        r
    }

    /// Insert whole slabs along `axis` before index `at`.
    pub fn insert(&mut self, buf: &[u8], axis: usize, at: i64) -> Result<()> {
        let r = reshape::insert(&mut self.sc, &mut self.meta, buf, axis, at);
        pass_shapes(&mut self.sc, &self.meta.geom);
        r
    }

    /// Delete `len` indexes of `axis` from `at`.
    pub fn delete(&mut self, axis: usize, at: i64, len: i64) -> Result<()> {
        let r = reshape::delete(&mut self.sc, &mut self.meta, axis, at, len);
        pass_shapes(&mut self.sc, &self.meta.geom);
        r
    }
}

/// Hand the array's shapes to the super-chunk's parameters, so that the
/// n-dimensional codecs and filters (ndlz, ndcell, ndmean, zfp) find them
/// without a C super-chunk (see [`crate::plugin::CallInfo::array`]); the
/// decompression side gets the array's typesize too (they decode with it).
fn pass_shapes(sc: &mut SuperChunk, g: &Geometry) {
    let shapes = crate::codec::ArrayShape::new(&g.shape, &g.chunkshape, &g.blockshape);
    sc.cparams.array = shapes;
    sc.dparams.array = shapes;
    sc.dparams.typesize = sc.cparams.typesize;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The n-dimensional plugins through the Rust API alone: the array hands
    /// its shapes to them (no C super-chunk), and what they wrote reads back.
    #[test]
    fn nd_plugins_work_through_ndarray() {
        use crate::codec::ndlz::NDLZ;
        use crate::filter::plugins::{NDCELL, NDMEAN};
        use crate::format::header::{NOFILTER, SHUFFLE};
        let shape = [37i64, 45];
        let (cs, bs) = ([20i32, 24], [16i32, 16]);
        let n = (shape[0] * shape[1]) as usize;
        // Bytes in smooth runs, so that ndlz finds matching cells.
        let bytes: Vec<u8> = (0..n)
            .map(|i| ((i / 45) / 3 + (i % 45) / 5) as u8)
            .collect();
        for cell in [4u8, 8] {
            let cp = CParams {
                typesize: 1,
                compcode: NDLZ,
                compcode_meta: cell,
                filters: [NOFILTER; 6],
                ..CParams::default()
            };
            let a = NdArray::from_buffer(cp, Storage::Memory, &shape, &cs, &bs, "|u1", &bytes)
                .unwrap_or_else(|e| panic!("ndlz{cell}: {e:?}"));
            assert_eq!(a.to_buffer().unwrap(), bytes, "ndlz{cell}");
            let h = crate::chunk::header(&a.sc.chunk(0).unwrap()).unwrap();
            assert!(!h.memcpyed() && h.udcompcode == NDLZ, "ndlz{cell} was used");
            let frame = a.sc.to_frame_bytes().unwrap();
            let b = NdArray::from_frame_bytes(frame).unwrap();
            assert_eq!(b.to_buffer().unwrap(), bytes, "ndlz{cell} from a frame");
        }
        // ndcell (lossless) on 4-byte items, 3 dimensions.
        let shape3 = [9i64, 10, 11];
        let (cs3, bs3) = ([6i32, 8, 11], [4i32, 4, 6]);
        let n3 = (shape3[0] * shape3[1] * shape3[2]) as usize;
        let ints: Vec<u8> = (0..n3 as u32)
            .flat_map(|v| (v * 7 % 1000).to_le_bytes())
            .collect();
        let mut filters = [NOFILTER; 6];
        let mut meta = [0u8; 6];
        filters[4] = NDCELL;
        meta[4] = 2;
        filters[5] = SHUFFLE;
        let cp = CParams {
            typesize: 4,
            filters,
            filters_meta: meta,
            ..CParams::default()
        };
        let mut a = NdArray::from_buffer(cp, Storage::Memory, &shape3, &cs3, &bs3, "<u4", &ints)
            .unwrap_or_else(|e| panic!("ndcell: {e:?}"));
        assert_eq!(a.to_buffer().unwrap(), ints, "ndcell");
        let mut part = vec![0u8; 2 * 3 * 4 * 4];
        a.get_slice(&[1, 2, 3], &[3, 5, 7], &mut part, &[2, 3, 4])
            .unwrap();
        let at = |i: usize, j: usize, k: usize| {
            let p = ((i * 10 + j) * 11 + k) * 4;
            ints[p..p + 4].to_vec()
        };
        assert_eq!(part[..4], at(1, 2, 3)[..]);
        // A slice written back goes through the filter again.
        let new: Vec<u8> = (0..24u32).flat_map(|v| (5000 + v).to_le_bytes()).collect();
        a.set_slice(&[1, 2, 3], &[3, 5, 7], &new, &[2, 3, 4])
            .unwrap();
        a.get_slice(&[1, 2, 3], &[3, 5, 7], &mut part, &[2, 3, 4])
            .unwrap();
        assert_eq!(part, new);
        // ndmean (lossy) on doubles constant over each 2x2 cell of every
        // block: the means are the items themselves, so it reads back exactly.
        let shape2 = [16i64, 12];
        let (cs2, bs2) = ([8i32, 12], [4i32, 6]);
        let doubles: Vec<u8> = (0..16usize)
            .flat_map(|i| (0..12usize).map(move |j| ((i / 2) * 10 + j / 2) as f64 * 0.5))
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let mut filters = [NOFILTER; 6];
        let mut meta = [0u8; 6];
        filters[4] = NDMEAN;
        meta[4] = 2;
        filters[5] = SHUFFLE;
        let cp = CParams {
            typesize: 8,
            filters,
            filters_meta: meta,
            ..CParams::default()
        };
        let a = NdArray::from_buffer(cp, Storage::Memory, &shape2, &cs2, &bs2, "<f8", &doubles)
            .unwrap_or_else(|e| panic!("ndmean: {e:?}"));
        assert_eq!(a.to_buffer().unwrap(), doubles, "ndmean");
        // Items that differ inside a cell come back as the cell's mean.
        let mut uneven = doubles.clone();
        uneven[..8].copy_from_slice(&3.0f64.to_le_bytes());
        let cp = CParams {
            typesize: 8,
            filters,
            filters_meta: meta,
            ..CParams::default()
        };
        let a =
            NdArray::from_buffer(cp, Storage::Memory, &shape2, &cs2, &bs2, "<f8", &uneven).unwrap();
        let back = a.to_buffer().unwrap();
        let first = f64::from_le_bytes(back[..8].try_into().unwrap());
        assert_eq!(first, 0.75, "mean of 3, 0, 0, 0");
    }

    /// zfp (lossy, fixed accuracy 10^-3) on a smooth field of doubles,
    /// through the Rust API alone.
    #[cfg(feature = "zfp")]
    #[test]
    fn zfp_works_through_ndarray() {
        use crate::format::header::NOFILTER;
        let shape2 = [16i64, 12];
        let (cs2, bs2) = ([8i32, 12], [4i32, 6]);
        let smooth: Vec<f64> = (0..16usize)
            .flat_map(|i| (0..12usize).map(move |j| (i as f64 * 0.3).sin() + j as f64 * 0.01))
            .collect();
        let raw: Vec<u8> = smooth.iter().flat_map(|v| v.to_le_bytes()).collect();
        let cp = CParams {
            typesize: 8,
            compcode: crate::codec::ZFP_FIXED_ACCURACY,
            compcode_meta: (-3i8) as u8,
            filters: [NOFILTER; 6],
            ..CParams::default()
        };
        let a = NdArray::from_buffer(cp, Storage::Memory, &shape2, &cs2, &bs2, "<f8", &raw)
            .unwrap_or_else(|e| panic!("zfp: {e:?}"));
        let h = crate::chunk::header(&a.sc.chunk(0).unwrap()).unwrap();
        assert!(!h.memcpyed() && (h.cbytes as usize) < cs2[0] as usize * 12 * 8);
        let back = a.to_buffer().unwrap();
        for (k, v) in back.chunks_exact(8).enumerate() {
            let v = f64::from_le_bytes(v.try_into().unwrap());
            assert!(
                (v - smooth[k]).abs() <= 1e-3,
                "zfp item {k}: {v} vs {}",
                smooth[k]
            );
        }
    }

    #[test]
    fn frame_round_trip_keeps_the_array() {
        let cp = CParams {
            typesize: 8,
            ..CParams::default()
        };
        let data: Vec<u8> = (0..7 * 5 * 3u64)
            .flat_map(|v| (v * v).to_le_bytes())
            .collect();
        let a = NdArray::from_buffer(
            cp,
            Storage::FrameInMemory,
            &[7, 5, 3],
            &[3, 5, 2],
            &[2, 2, 2],
            "<u8",
            &data,
        )
        .unwrap();
        let frame = a.sc.to_frame_bytes().unwrap();
        let b = NdArray::from_frame_bytes(frame).unwrap();
        assert_eq!(b.meta, a.meta);
        assert_eq!(b.to_buffer().unwrap(), data);
    }

    #[test]
    fn zero_dimensional_and_empty_arrays() {
        let cp = CParams {
            typesize: 4,
            ..CParams::default()
        };
        let mut a = NdArray::from_buffer(
            cp.clone(),
            Storage::Memory,
            &[],
            &[],
            &[],
            "<i4",
            &7i32.to_le_bytes(),
        )
        .unwrap();
        assert_eq!(a.to_buffer().unwrap(), 7i32.to_le_bytes());
        a.set_slice(&[], &[], &9i32.to_le_bytes(), &[]).unwrap();
        assert_eq!(a.to_buffer().unwrap(), 9i32.to_le_bytes());
        let mut e =
            NdArray::from_buffer(cp, Storage::Memory, &[0, 4], &[2, 2], &[1, 2], "<i4", &[])
                .unwrap();
        assert_eq!(e.sc.nchunks(), 0);
        assert!(e.to_buffer().unwrap().is_empty());
        let row: Vec<u8> = (0..16).collect();
        e.append(&row, 0).unwrap();
        assert_eq!(e.shape(), &[1, 4]);
        assert_eq!(e.to_buffer().unwrap(), row);
    }

    /// Mutated "b2nd" metalayers inside a frame: opening either fails
    /// cleanly or gives an array whose every operation returns (no panic,
    /// no out-of-bounds access).
    #[test]
    fn mutated_metalayers_in_frames_never_panic() {
        let cp = CParams {
            typesize: 2,
            ..CParams::default()
        };
        let data: Vec<u8> = (0..9 * 7 * 2).map(|i| i as u8).collect();
        let a = NdArray::from_buffer(
            cp,
            Storage::FrameInMemory,
            &[9, 7],
            &[4, 3],
            &[2, 2],
            "<i2",
            &data,
        )
        .unwrap();
        let frame = a.sc.to_frame_bytes().unwrap();
        let meta = array::meta_bytes(&a.meta).unwrap();
        let at = frame
            .windows(meta.len())
            .position(|w| w == meta.as_slice())
            .expect("the metalayer is stored verbatim");
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut rnd = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut opened = 0;
        for _ in 0..3000 {
            let mut f = frame.clone();
            for _ in 0..1 + rnd(3) {
                let i = at + rnd(meta.len());
                f[i] = match rnd(4) {
                    0 => f[i] ^ (1 << rnd(8)),
                    1 => 0xff,
                    2 => 0,
                    _ => rnd(256) as u8,
                };
            }
            let Ok(mut b) = NdArray::from_frame_bytes(f) else {
                continue;
            };
            opened += 1;
            // Reading everything of a (lying) huge shape is only slow.
            if b.meta.geom.nitems > 1 << 16 {
                continue;
            }
            let _ = b.to_buffer();
            let nd = b.meta.geom.ndim();
            let mut out = vec![0u8; 64];
            let ones = vec![1i64; nd];
            let _ = b.get_slice(&vec![0; nd], &ones, &mut out, &ones);
            let _ = b.set_slice(&vec![0; nd], &ones, &[7u8; 64], &ones);
            let grown: Vec<i64> = b.shape().iter().map(|&s| s.saturating_add(1)).collect();
            let _ = b.resize(&grown, None);
        }
        assert!(opened > 0);
    }
}
