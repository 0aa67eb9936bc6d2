//! Items of a super-chunk: filling with special values, reading and
//! writing ranges of items across chunks.

use super::*;

impl SuperChunk {
    /// Fill an empty super-chunk with `nitems` special values in chunks of
    /// `chunksize` bytes; returns the number of chunks.
    pub fn fill_special(&mut self, nitems: i64, kind: Special, chunksize: i32) -> Result<i64> {
        self.exclusive(|s| s.fill_special_here(nitems, kind, chunksize))
    }

    /// [`Self::fill_special`] with the special value named by its C code
    /// (`BLOSC2_SPECIAL_ZERO`, `_NAN` or `_UNINIT`); any other code is
    /// `SchunkSpecial`, whatever the other arguments.
    pub fn fill_special_code(&mut self, nitems: i64, code: i32, chunksize: i32) -> Result<i64> {
        let kind = u8::try_from(code)
            .ok()
            .and_then(Special::from_bits)
            .filter(|k| matches!(k, Special::Zero | Special::Nan | Special::Uninit))
            .ok_or(Error::SchunkSpecial)?;
        self.fill_special(nitems, kind, chunksize)
    }

    pub(super) fn fill_special_here(
        &mut self,
        nitems: i64,
        kind: Special,
        chunksize: i32,
    ) -> Result<i64> {
        if nitems == 0 {
            return Ok(0);
        }
        let ts = self.cparams.typesize;
        if nitems < 0 || chunksize <= 0 || ts <= 0 {
            return Err(Error::InvalidParam);
        }
        if self.nbytes > 0 || self.cbytes > 0 {
            return Err(Error::FrameSpecial);
        }
        let chunkitems = chunksize / ts;
        if chunkitems <= 0 {
            return Err(Error::InvalidParam);
        }
        let full = nitems / chunkitems as i64;
        if full > i32::MAX as i64 || nitems > i64::MAX / ts as i64 {
            return Err(Error::SchunkSpecial);
        }
        let leftover = (nitems % chunkitems as i64) as i32;
        if !matches!(kind, Special::Zero | Special::Nan | Special::Uninit) {
            return Err(Error::SchunkSpecial);
        }
        let mut params = self.cparams.clone();
        params.prefilter = None;
        let make = |size: i32| -> Result<Vec<u8>> {
            let mut c = vec![0u8; EXTENDED_HEADER_LENGTH];
            special::chunk_special(&params, size, kind, &mut c)?;
            Ok(c)
        };
        match &self.store {
            Store::Chunks(_) => {
                let c = make(chunksize).map_err(|_| Error::SchunkSpecial)?;
                let c2 = make(leftover * ts).map_err(|_| Error::SchunkSpecial)?;
                for _ in 0..full {
                    self.append_chunk(c.clone())
                        .map_err(|_| Error::SchunkSpecial)?;
                }
                if leftover > 0 {
                    self.append_chunk(c2).map_err(|_| Error::SchunkSpecial)?;
                }
            }
            Store::Frame(_) => {
                let total = full + i64::from(leftover > 0);
                if total.checked_mul(8).is_none_or(|b| b > i32::MAX as i64) {
                    return Err(Error::FrameSpecial);
                }
                let sample = make(chunksize).map_err(|_| Error::FrameSpecial)?;
                let off = special_offset(kind).ok_or(Error::FrameSpecial)?;
                let oparams = CParams {
                    typesize: 8,
                    blocksize: 16 * 1024,
                    clevel: 5,
                    compcode: crate::codec::BLOSCLZ,
                    ..params.clone()
                };
                let mut off_chunk = vec![0u8; EXTENDED_HEADER_LENGTH + 8];
                let n = special::chunk_repeatval(
                    &oparams,
                    (total * 8) as i32,
                    &off.to_le_bytes(),
                    &mut off_chunk,
                )
                .map_err(|_| Error::Data)?;
                off_chunk.truncate(n);
                let saved = (self.chunksize, self.nbytes, self.blocksize);
                self.blocksize = chunk::header(&sample)?.blocksize;
                self.chunksize = chunksize;
                self.nbytes = nitems * ts as i64;
                let offsets = vec![off; total as usize];
                if let Err(e) = self.commit(DataEdit::None, Some(offsets), Some(off_chunk)) {
                    (self.chunksize, self.nbytes, self.blocksize) = saved;
                    return Err(e);
                }
            }
        }
        Ok(self.nchunks())
    }

    pub(super) fn slice_range(&self, start: i64, stop: i64) -> Result<(i64, i64)> {
        let ts = self.cparams.typesize as i64;
        if start < 0 || stop < start || self.chunksize <= 0 {
            return Err(Error::InvalidParam);
        }
        let (bs, be) = (
            start.checked_mul(ts).ok_or(Error::InvalidParam)?,
            stop.checked_mul(ts).ok_or(Error::InvalidParam)?,
        );
        if be > self.nbytes {
            return Err(Error::InvalidParam);
        }
        Ok((bs, be))
    }

    /// Decode items `[start, stop)` into `dest`.
    pub fn get_slice(&self, start: i64, stop: i64, dest: &mut [u8]) -> Result<()> {
        let (bs, be) = self.slice_range(start, stop)?;
        if dest.len() < (be - bs) as usize {
            return Err(Error::WriteBuffer);
        }
        for (n, c0, c1, at) in chunk_spans(self.chunksize as i64, bs, be) {
            let out = &mut dest[at..at + (c1 - c0) as usize];
            let chunk = self.chunk(n)?;
            let (nb, cb, _) = chunk_info(&chunk)?;
            if (nb as i64) < c1 {
                return Err(Error::Failure);
            }
            let mut dp = self.dparams.clone();
            dp.nchunk = n;
            if c0 == 0 && c1 == nb as i64 {
                chunk::decompress_into(&dp, &chunk[..cb], out)?;
            } else {
                let got = chunk::getitem_bytes(&dp, &chunk[..cb], c0, c1 - c0, out)?;
                if got as i64 != c1 - c0 {
                    return Err(Error::Failure);
                }
            }
        }
        Ok(())
    }

    /// Decode items `[start, stop)` into the buffer `dest` gives for their
    /// byte count, with the rules of the C API's
    /// `blosc2_schunk_get_slice_buffer`: an empty or reversed range reads
    /// nothing (and asks for no buffer); a range that starts before 0, ends
    /// past the last item or is larger than memory is `Failure`.
    pub fn get_slice_with<'a>(
        &self,
        start: i64,
        stop: i64,
        dest: impl FnOnce(usize) -> &'a mut [u8],
    ) -> Result<()> {
        if stop <= start {
            return Ok(());
        }
        // `stop - start` itself overflows for a range from far below 0.
        let len = stop
            .checked_sub(start)
            .and_then(|n| n.checked_mul(self.typesize() as i64))
            .ok_or(Error::Failure)?;
        if start < 0 || len > isize::MAX as i64 {
            return Err(Error::Failure);
        }
        let len = usize::try_from(len).map_err(|_| Error::Failure)?;
        match self.get_slice(start, stop, dest(len)) {
            Err(Error::InvalidParam) => Err(Error::Failure),
            r => r,
        }
    }

    /// Overwrite items `[start, stop)` from `src`, recompressing the chunks touched.
    pub fn set_slice(&mut self, start: i64, stop: i64, src: &[u8]) -> Result<()> {
        self.exclusive(|s| s.set_slice_here(start, stop, src))
    }

    /// Overwrite items `[start, stop)` from the buffer `src` gives for
    /// their byte count, with the rules of the C API's
    /// `blosc2_schunk_set_slice_buffer`: a reversed range, or one whose size
    /// overflows, is `InvalidParam` (and asks for no buffer).
    pub fn set_slice_with<'a>(
        &mut self,
        start: i64,
        stop: i64,
        src: impl FnOnce(usize) -> &'a [u8],
    ) -> Result<()> {
        if stop < start {
            return Err(Error::InvalidParam);
        }
        let len = stop
            .checked_sub(start)
            .and_then(|n| n.checked_mul(self.typesize() as i64))
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(Error::InvalidParam)?;
        self.set_slice(start, stop, src(len))
    }

    pub(super) fn set_slice_here(&mut self, start: i64, stop: i64, src: &[u8]) -> Result<()> {
        let (bs, be) = self.slice_range(start, stop)?;
        if src.len() < (be - bs) as usize {
            return Err(Error::ReadBuffer);
        }
        for (n, c0, c1, at) in chunk_spans(self.chunksize as i64, bs, be) {
            let mut data = self.decompress_chunk_vec(n)?;
            if (data.len() as i64) < c1 {
                return Err(Error::Failure);
            }
            data[c0 as usize..c1 as usize].copy_from_slice(&src[at..at + (c1 - c0) as usize]);
            let mut cp = self.cparams.clone();
            cp.nchunk = n;
            let c = chunk::compress(&cp, &data)?;
            self.last_blocksize = chunk::header(&c)?.blocksize;
            self.update_chunk(n, c)?;
        }
        Ok(())
    }
}

/// The chunks (of `cs` bytes each) that the data bytes `[bs, be)` fall in:
/// for each its number `n`, the range `[c0, c1)` of its bytes, and where
/// that range starts counted from `bs`.
fn chunk_spans(cs: i64, bs: i64, be: i64) -> impl Iterator<Item = (i64, i64, i64, usize)> {
    let mut pos = bs;
    std::iter::from_fn(move || {
        if pos >= be {
            return None;
        }
        let n = pos / cs;
        let c0 = pos - n * cs;
        let c1 = (be - n * cs).min(cs);
        let at = (pos - bs) as usize;
        pos += c1 - c0;
        Some((n, c0, c1, at))
    })
}
