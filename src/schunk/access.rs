//! Reading and rearranging a super-chunk beyond whole chunks: lazy chunks,
//! items at scattered coordinates, the chunks a slice touches, a new chunk
//! order.

use super::{chunk_info, Store, SuperChunk};
use crate::chunk;
use crate::error::{Error, Result};
use crate::format::b2nd_meta::{Markers, Reader};
use crate::format::header::B2_VL_BLOCKS;
use crate::frame::DataEdit;
use std::borrow::Cow;

impl SuperChunk {
    /// Chunk `n` as a lazy chunk when the frame is on disk (header, block
    /// starts and a trailer locating the rest), otherwise the whole chunk.
    pub fn lazy_chunk(&self, n: i64) -> Result<Cow<'_, [u8]>> {
        if n < 0 || n >= self.nchunks() {
            return Err(Error::InvalidParam);
        }
        if let Store::Frame(f) = &self.store {
            if let Some(v) = f.lazy_chunk(n as usize, self.cparams.typesize)? {
                return Ok(Cow::Owned(v));
            }
        }
        self.chunk(n)
    }

    /// The whole chunk behind a lazy chunk of this super-chunk.
    pub fn resolve_lazy(&self, lazy: &[u8]) -> Result<Vec<u8>> {
        match &self.store {
            Store::Frame(f) => f.resolve_lazy(lazy),
            Store::Chunks(_) => Err(Error::InvalidParam),
        }
    }

    /// Items at `coords` (item indexes) into `out`, one after another.
    pub fn get_sparse(&self, coords: &[i64], out: &mut [u8]) -> Result<()> {
        let ts = self.cparams.typesize;
        if ts <= 0 || self.chunksize <= 0 || self.flags2 & B2_VL_BLOCKS != 0 {
            return Err(Error::InvalidParam);
        }
        if self.chunksize % ts != 0 {
            return Err(Error::InvalidParam);
        }
        let ts = ts as usize;
        let need = coords.len().checked_mul(ts).ok_or(Error::InvalidParam)?;
        if out.len() < need {
            return Err(Error::WriteBuffer);
        }
        let nitems = self.nbytes / ts as i64;
        let per_chunk = self.chunksize as i64 / ts as i64;
        let mut cached: Option<(i64, Vec<u8>)> = None;
        for (i, &c) in coords.iter().enumerate() {
            if c < 0 || c >= nitems {
                return Err(Error::InvalidParam);
            }
            let n = c / per_chunk;
            let at = ((c % per_chunk) as usize) * ts;
            // A chunk that `out` cannot back is read item by item
            // (docs/limits.md).
            if crate::alloc::check(self.chunksize as usize, out.len()).is_err() {
                let mut dp = self.dparams.clone();
                dp.nchunk = n;
                let got = chunk::getitem_bytes(
                    &dp,
                    &self.chunk(n)?,
                    at as i64,
                    ts as i64,
                    &mut out[i * ts..],
                )?;
                if got != ts {
                    return Err(Error::Data);
                }
                continue;
            }
            if cached.as_ref().map(|(k, _)| *k) != Some(n) {
                cached = Some((n, self.decompress_chunk_vec(n)?));
            }
            let data = &cached.as_ref().ok_or(Error::Failure)?.1;
            let item = data.get(at..at + ts).ok_or(Error::Data)?;
            out[i * ts..(i + 1) * ts].copy_from_slice(item);
        }
        Ok(())
    }

    /// Items at `ncoords` coordinates, with the rules of the C API's
    /// `blosc2_schunk_get_sparse_buffer`: a negative count is
    /// `InvalidParam`, no coordinates read nothing; otherwise `args` gives
    /// the coordinates (`ncoords` of them) and the output buffer for the
    /// byte count it is asked for.
    pub fn get_sparse_with<'a>(
        &self,
        ncoords: i64,
        args: impl FnOnce(usize, usize) -> Result<(&'a [i64], &'a mut [u8])>,
    ) -> Result<()> {
        let n = usize::try_from(ncoords).map_err(|_| Error::InvalidParam)?;
        if n == 0 {
            return Ok(());
        }
        let len = n
            .checked_mul(self.typesize().max(0) as usize)
            .ok_or(Error::InvalidParam)?;
        let (coords, out) = args(n, len)?;
        self.get_sparse(coords, out)
    }

    /// Block `nblock` of chunk `n`, a chunk of variable-length blocks,
    /// decoded with the parameters `dparams` gives once the chunk is found
    /// (the C API asks its decompression context for them at that point).
    /// An empty chunk or a block number out of range is `InvalidParam`.
    pub fn vl_block<'d>(
        &self,
        n: i64,
        nblock: i32,
        dparams: impl FnOnce() -> Result<&'d chunk::DParams>,
    ) -> Result<Vec<u8>> {
        self.vl_block_into(n, nblock, dparams, crate::alloc::zeroed)
    }

    /// [`SuperChunk::vl_block`] into the buffer `zeroed(n)` gives: `n` zero
    /// bytes, asked for once the block's size is known (the C layer hands a
    /// malloc'ed one to its caller).
    pub fn vl_block_into<'d, B: AsMut<[u8]>>(
        &self,
        n: i64,
        nblock: i32,
        dparams: impl FnOnce() -> Result<&'d chunk::DParams>,
        zeroed: impl FnOnce(usize) -> Result<B>,
    ) -> Result<B> {
        let c = self.chunk(n)?;
        if c.is_empty() {
            return Err(Error::InvalidParam);
        }
        let dparams = dparams()?;
        // A negative block number is past the last block too.
        let j = usize::try_from(nblock).unwrap_or(usize::MAX);
        chunk::vlblocks::decompress_block_into(dparams, &c, j, zeroed)
    }

    /// Indexes of the chunks holding items `[start, stop)` (1-D view).
    pub fn slice_nchunks(&self, start: i64, stop: i64) -> Result<Vec<i64>> {
        if self.nchunks() == 0 {
            return Ok(Vec::new());
        }
        let ts = self.cparams.typesize as i64;
        if self.chunksize <= 0 || start < 0 || stop < start {
            return Err(Error::InvalidParam);
        }
        let cs = self.chunksize as i64;
        let bstart = start.checked_mul(ts).ok_or(Error::InvalidParam)?;
        let bstop = stop.checked_mul(ts).ok_or(Error::InvalidParam)?;
        let first = bstart / cs;
        let last = bstop / cs + i64::from(bstop % cs != 0);
        Ok((first..last.max(first)).collect())
    }

    /// Put chunk `order[i]` at position `i`.
    pub fn reorder_offsets(&mut self, order: &[i64]) -> Result<()> {
        self.exclusive(|s| s.reorder_offsets_here(order))
    }

    fn reorder_offsets_here(&mut self, order: &[i64]) -> Result<()> {
        let n = self.nchunks() as usize;
        if order.len() < n {
            return Err(Error::Data);
        }
        let mut seen = vec![false; n];
        for &o in &order[..n] {
            if o < 0 || o as usize >= n || seen[o as usize] {
                return Err(Error::Data);
            }
            seen[o as usize] = true;
        }
        // A fixed chunk size holds for chunks of that size but the last,
        // which may be shorter; a short chunk moved elsewhere makes it
        // variable (the reference keeps it, then maps items and reads its
        // frame by the wrong size).
        let saved_chunksize = self.chunksize;
        if self.chunksize > 0 && n > 0 {
            let cs = self.chunksize;
            let mut fits = true;
            for (k, &o) in order[..n].iter().enumerate() {
                let nb = self.chunk_nbytes(o)?;
                fits &= if k + 1 == n { nb <= cs } else { nb == cs };
            }
            if !fits {
                self.store_special_offsets()?;
                self.chunksize = 0;
            }
        }
        match &mut self.store {
            Store::Chunks(v) => {
                let old = std::mem::take(v);
                let mut slots: Vec<Option<Vec<u8>>> = old.into_iter().map(Some).collect();
                for &o in &order[..n] {
                    v.push(slots[o as usize].take().ok_or(Error::Data)?);
                }
                Ok(())
            }
            Store::Frame(f) => {
                let old = f.offsets().to_vec();
                let offsets: Vec<i64> = order[..n].iter().map(|&o| old[o as usize]).collect();
                let edit = if f.sparse_dir().is_some() {
                    DataEdit::Sparse {
                        cbytes: f.data_len(),
                    }
                } else {
                    DataEdit::None
                };
                let r = self.commit(edit, Some(offsets), None);
                if r.is_err() {
                    self.chunksize = saved_chunksize;
                }
                r
            }
        }
    }

    /// Decompress a chunk given as bytes, resolving a lazy one first.
    pub fn decompress_any(&self, chunk_bytes: &[u8], dest: &mut [u8]) -> Result<usize> {
        let h = chunk::header(chunk_bytes)?;
        let full;
        let src = if h.lazy() {
            full = self.resolve_lazy(chunk_bytes)?;
            &full[..]
        } else {
            chunk_bytes
        };
        let (_, cb, _) = chunk_info(src)?;
        chunk::decompress_into(&self.dparams, &src[..cb], dest)
    }
}

/// Shape and chunk shape from a "b2nd" (or "caterva") metalayer, read as
/// the reference reads it (markers skipped; the block shape and dtype are
/// not needed).  Every chunk size must be positive and no size negative.
fn b2nd_grid(meta: &[u8]) -> Result<(Vec<i64>, Vec<i64>)> {
    let mut r = Reader::new(meta, Markers::Skipped).ok_or(Error::InvalidHeader)?;
    let shape = r.shape().ok_or(Error::InvalidHeader)?;
    let chunkshape: Vec<i64> = r
        .int32s()
        .ok_or(Error::InvalidHeader)?
        .into_iter()
        .map(i64::from)
        .collect();
    if chunkshape.iter().any(|&c| c <= 0) || shape.iter().any(|&s| s < 0) {
        return Err(Error::InvalidHeader);
    }
    Ok((shape, chunkshape))
}

impl SuperChunk {
    /// Number of dimensions of an n-dimensional super-chunk (its "b2nd" or
    /// "caterva" metalayer), `None` without one.
    pub fn b2nd_ndim(&self) -> Result<Option<usize>> {
        let meta = match self.meta_get("b2nd").or_else(|_| self.meta_get("caterva")) {
            Ok(m) => m,
            Err(_) => return Ok(None),
        };
        Ok(Some(b2nd_grid(meta)?.0.len()))
    }

    /// How many entries each bound of a slice has: the dimensions of an
    /// n-dimensional super-chunk, 1 (an item index) for any other.
    pub fn slice_dims(&self) -> Result<usize> {
        Ok(self.b2nd_ndim()?.unwrap_or(1))
    }

    /// Indexes of the chunks touched by the slice `[start, stop)`, whose
    /// bounds have [`Self::slice_dims`] entries: n-dimensional bounds over
    /// the chunk grid of an n-dimensional super-chunk, item indexes
    /// otherwise.
    pub fn slice_chunk_indexes(&self, start: &[i64], stop: &[i64]) -> Result<Vec<i64>> {
        if self.b2nd_ndim()?.is_some() {
            return self.b2nd_slice_nchunks(start, stop);
        }
        match (start.first(), stop.first()) {
            (Some(&a), Some(&b)) => self.slice_nchunks(a, b),
            _ => Err(Error::InvalidParam),
        }
    }

    /// [`Self::slice_chunk_indexes`] with bounds that `bounds` gives once
    /// told how many entries each has ([`Self::slice_dims`]): the C API
    /// reads that many from each of its two pointers.
    pub fn slice_chunk_indexes_with<'a>(
        &self,
        bounds: impl FnOnce(usize) -> (&'a [i64], &'a [i64]),
    ) -> Result<Vec<i64>> {
        let (start, stop) = bounds(self.slice_dims()?);
        self.slice_chunk_indexes(start, stop)
    }

    /// Indexes (C order over the chunk grid) of the chunks of an
    /// n-dimensional super-chunk touched by the slice `[start, stop)`.
    pub fn b2nd_slice_nchunks(&self, start: &[i64], stop: &[i64]) -> Result<Vec<i64>> {
        let meta = self
            .meta_get("b2nd")
            .or_else(|_| self.meta_get("caterva"))?;
        let (shape, chunkshape) = b2nd_grid(meta)?;
        let nd = shape.len();
        if start.len() < nd || stop.len() < nd {
            return Err(Error::InvalidParam);
        }
        if shape.iter().product::<i64>() == 0 {
            return Ok(Vec::new());
        }
        if nd == 0 {
            return Ok(vec![0]);
        }
        let grid: Vec<i64> = (0..nd)
            .map(|i| (shape[i] + chunkshape[i] - 1) / chunkshape[i])
            .collect();
        let mut first = vec![0i64; nd];
        let mut count = vec![0i64; nd];
        for i in 0..nd {
            if start[i] < 0 || stop[i] < start[i] {
                return Err(Error::InvalidParam);
            }
            first[i] = start[i] / chunkshape[i];
            let end = ((stop[i] + chunkshape[i] - 1) / chunkshape[i])
                .max(first[i] + 1)
                .min(grid[i]);
            count[i] = (end - first[i]).max(0);
        }
        let total: i64 = count.iter().product();
        let mut out = Vec::new();
        for k in 0..total {
            let mut rem = k;
            let mut idx = vec![0i64; nd];
            for i in (0..nd).rev() {
                idx[i] = first[i] + rem % count[i];
                rem /= count[i];
            }
            let mut flat = 0i64;
            let mut empty = false;
            for i in 0..nd {
                let c0 = idx[i] * chunkshape[i];
                let c1 = (c0 + chunkshape[i]).min(shape[i]);
                empty |= c1 <= start[i] || c0 >= stop[i];
                flat = flat * grid[i] + idx[i];
            }
            if !empty {
                out.push(flat);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::b2nd_grid;
    use crate::format::b2nd_meta::write;

    /// Every dimension count up to `B2ND_MAX_DIM` (16) reads back.
    #[test]
    fn b2nd_grid_reads_up_to_sixteen_dimensions() {
        for nd in [1usize, 8, 9, 12, 16] {
            let shape: Vec<i64> = (0..nd as i64).map(|i| i + 2).collect();
            let cs = vec![2i32; nd];
            let bs = vec![1i32; nd];
            let meta = write(&shape, &cs, &bs, "|u1", 0).unwrap();
            let (s, c) = b2nd_grid(&meta).unwrap();
            assert_eq!(s, shape);
            assert_eq!(c, vec![2i64; nd]);
        }
        let mut meta = write(&[2; 16], &[1; 16], &[1; 16], "|u1", 0).unwrap();
        meta[2] = 17;
        assert!(b2nd_grid(&meta).is_err());
    }
}
