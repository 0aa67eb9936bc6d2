//! Adding, replacing and removing chunks of a super-chunk.

use super::*;

impl SuperChunk {
    /// Compress `src` with the super-chunk parameters and append it.
    pub fn append_buffer(&mut self, src: &[u8]) -> Result<i64> {
        self.exclusive(|s| s.append_buffer_here(src))
    }

    pub(super) fn append_buffer_here(&mut self, src: &[u8]) -> Result<i64> {
        let mut cp = self.cparams.clone();
        cp.nchunk = self.nchunks();
        let c = chunk::compress(&cp, src)?;
        self.last_blocksize = chunk::header(&c)?.blocksize;
        self.append_chunk(c)
    }

    /// The chunksize rules the reference applies before adding a chunk at
    /// `at` (`replace`: updating the chunk there).
    pub(super) fn check_chunk(
        &mut self,
        chunk: &[u8],
        at: i64,
        kind: Op,
    ) -> Result<(i32, usize, ChunkHeader)> {
        let (nb, cb, h) = chunk_info(chunk)?;
        let err = match kind {
            Op::Append => Error::ChunkAppend,
            Op::Insert => Error::ChunkInsert,
            Op::Update => Error::ChunkUpdate,
        };
        let nchunks = self.nchunks();
        let vl = chunk_flags2(&h) & B2_VL_BLOCKS != 0;
        let reference = match kind {
            Op::Update if nchunks > 1 || (nchunks == 1 && at != 0) => {
                Some(if at == 0 { 1 } else { 0 })
            }
            Op::Update => None,
            _ if nchunks > 0 => Some(0),
            _ => None,
        };
        let mut new_flags2 = self.flags2;
        match reference {
            Some(r) => {
                let rh = chunk::header(&self.chunk(r)?)?;
                if (chunk_flags2(&rh) & B2_VL_BLOCKS != 0) != vl {
                    return Err(err);
                }
            }
            None => new_flags2 = chunk_flags2(&h),
        }
        let mut chunksize = self.chunksize;
        let mut variable = chunksize == 0;
        if chunksize == -1 {
            chunksize = nb;
        }
        if !variable {
            // An empty chunk makes the size variable too: a frame of fixed
            // chunksize tells its number of chunks by nbytes / chunksize,
            // which an empty chunk does not change (the reference keeps the
            // size and writes a frame that neither library can open).
            let becomes_variable = match kind {
                Op::Update => nb > chunksize || (at != nchunks - 1 && nb != chunksize) || nb == 0,
                Op::Append | Op::Insert if nchunks > 0 => {
                    let last = self.chunk_nbytes(nchunks - 1)?;
                    last < chunksize
                        || nb > chunksize
                        || nb == 0
                        || (kind == Op::Insert && at != nchunks && nb != chunksize)
                }
                _ => false,
            };
            if becomes_variable {
                // Special offsets take their size from the fixed chunk size:
                // store them as chunks while it still holds.
                self.store_special_offsets()?;
                variable = true;
                chunksize = 0;
            }
        }
        if !variable && chunksize > 0 && nb > chunksize {
            return Err(err);
        }
        self.flags2 = new_flags2;
        self.chunksize = chunksize;
        Ok((nb, cb, h))
    }

    /// Append a compressed chunk; returns the new number of chunks.
    pub fn append_chunk(&mut self, chunk: Vec<u8>) -> Result<i64> {
        self.exclusive(|s| s.append_chunk_here(chunk))
    }

    pub(super) fn append_chunk_here(&mut self, chunk: Vec<u8>) -> Result<i64> {
        let n = self.nchunks();
        self.insert_or_append(n, chunk, Op::Append)
    }

    /// Insert a compressed chunk at position `n`.
    pub fn insert_chunk(&mut self, n: i64, chunk: Vec<u8>) -> Result<i64> {
        self.exclusive(|s| s.insert_chunk_here(n, chunk))
    }

    pub(super) fn insert_chunk_here(&mut self, n: i64, chunk: Vec<u8>) -> Result<i64> {
        if n < 0 || n > self.nchunks() {
            return Err(Error::InvalidParam);
        }
        self.insert_or_append(n, chunk, Op::Insert)
    }

    pub(super) fn insert_or_append(&mut self, n: i64, mut chunk: Vec<u8>, op: Op) -> Result<i64> {
        let saved = (self.chunksize, self.flags2, self.nbytes, self.cbytes);
        let (nb, cb, h) = self.check_chunk(&chunk, n, op)?;
        keep_only(&mut chunk, cb);
        // A frame stores a special chunk as an offset only while its chunk
        // size is fixed (the offset carries no size).
        let special = special_kind(&h).filter(|_| self.chunksize > 0);
        self.nbytes += nb as i64;
        let r = if let Store::Chunks(v) = &mut self.store {
            self.cbytes += cb as i64;
            v.insert(n as usize, chunk);
            Ok(())
        } else {
            let f = self.frame().ok_or(Error::Failure)?;
            let mut offsets = f.offsets().to_vec();
            if f.sparse_dir().is_some() {
                let mut cbytes = f.data_len();
                let mut new_file = None;
                let off = match special {
                    Some(k) => special_offset(k).unwrap_or(0),
                    None => {
                        let id = f.add_sparse_chunk(&chunk)?;
                        new_file = Some(id);
                        cbytes += chunk.len() as u64;
                        id
                    }
                };
                offsets.insert(n as usize, off);
                let r = self.commit(DataEdit::Sparse { cbytes }, Some(offsets), None);
                if let (Err(_), Some(id), Some(f)) = (&r, new_file, self.frame()) {
                    // The index does not name the new file: drop it.
                    let _ = f.remove_sparse_chunk(id);
                }
                r
            } else {
                let (off, edit) = match special {
                    Some(k) => (special_offset(k).unwrap_or(0), DataEdit::None),
                    None => (f.data_len() as i64, DataEdit::Append(&chunk)),
                };
                offsets.insert(n as usize, off);
                self.commit(edit, Some(offsets), None)
            }
        };
        if let Err(e) = r {
            (self.chunksize, self.flags2, self.nbytes, self.cbytes) = saved;
            self.recount_frame_cbytes();
            return Err(e);
        }
        Ok(self.nchunks())
    }

    /// Replace chunk `n`.
    pub fn update_chunk(&mut self, n: i64, chunk: Vec<u8>) -> Result<i64> {
        self.exclusive(|s| s.update_chunk_here(n, chunk))
    }

    pub(super) fn update_chunk_here(&mut self, n: i64, mut chunk: Vec<u8>) -> Result<i64> {
        if n < 0 || n >= self.nchunks() {
            return Err(Error::InvalidParam);
        }
        let saved = (self.chunksize, self.flags2, self.nbytes, self.cbytes);
        let (nb, cb, h) = self.check_chunk(&chunk, n, Op::Update)?;
        keep_only(&mut chunk, cb);
        // As in `insert_or_append`: special offsets need a fixed size.
        let special = special_kind(&h).filter(|_| self.chunksize > 0);
        let r = (|| {
            let old_nb = self.chunk_nbytes(n)? as i64;
            self.nbytes += nb as i64 - old_nb;
            if let Store::Chunks(v) = &mut self.store {
                let old_cb = uncounted_cbytes(v[n as usize].len());
                self.cbytes += cb as i64 - old_cb;
                v[n as usize] = chunk;
                return Ok(());
            }
            let f = self.frame().ok_or(Error::Failure)?;
            let mut offsets = f.offsets().to_vec();
            if f.sparse_dir().is_some() {
                let old = offsets[n as usize];
                let mut cbytes = f.data_len();
                if old >= 0 {
                    cbytes = cbytes.saturating_sub(f.sparse_chunk_size(old).unwrap_or(0));
                }
                // The old chunk file stays untouched until the new index is
                // written: a replacement is staged beside it, then renamed.
                let mut staged = None;
                let mut new_file = None;
                match special {
                    Some(k) => offsets[n as usize] = special_offset(k).unwrap_or(0),
                    None if old >= 0 => {
                        f.stage_sparse_chunk(old, &chunk)?;
                        staged = Some(old);
                        cbytes += chunk.len() as u64;
                    }
                    None => {
                        let id = f.add_sparse_chunk(&chunk)?;
                        new_file = Some(id);
                        cbytes += chunk.len() as u64;
                        offsets[n as usize] = id;
                    }
                }
                let became_special = special.is_some() && old >= 0;
                let r = self.commit(DataEdit::Sparse { cbytes }, Some(offsets), None);
                let f = self.frame().ok_or(Error::Failure)?;
                return match r {
                    Ok(()) => {
                        if let Some(id) = staged {
                            f.publish_staged_chunk(id)?;
                        }
                        if became_special {
                            f.remove_sparse_chunk(old)?;
                        }
                        Ok(())
                    }
                    Err(e) => {
                        if let Some(id) = staged {
                            f.discard_staged_chunk(id);
                        }
                        if let Some(id) = new_file {
                            let _ = f.remove_sparse_chunk(id);
                        }
                        Err(e)
                    }
                };
            }
            let span = f.chunk_span(n as usize)?;
            let data_len = f.data_len() as i64;
            let new_bytes: &[u8] = if special.is_some() { &[] } else { &chunk };
            let edit = match span {
                Some((at, old_len)) => {
                    let delta = new_bytes.len() as i64 - old_len as i64;
                    for (i, o) in offsets.iter_mut().enumerate() {
                        if i as i64 != n && *o > at as i64 {
                            *o += delta;
                        }
                    }
                    offsets[n as usize] = match special {
                        Some(k) => special_offset(k).unwrap_or(0),
                        None => at as i64,
                    };
                    DataEdit::Replace {
                        at,
                        old_len,
                        new: new_bytes,
                    }
                }
                None => match special {
                    Some(k) => {
                        offsets[n as usize] = special_offset(k).unwrap_or(0);
                        DataEdit::None
                    }
                    None => {
                        offsets[n as usize] = data_len;
                        DataEdit::Append(new_bytes)
                    }
                },
            };
            self.commit(edit, Some(offsets), None)
        })();
        if let Err(e) = r {
            (self.chunksize, self.flags2, self.nbytes, self.cbytes) = saved;
            self.recount_frame_cbytes();
            return Err(e);
        }
        Ok(self.nchunks())
    }

    /// Remove chunk `n`.
    pub fn delete_chunk(&mut self, n: i64) -> Result<i64> {
        self.exclusive(|s| s.delete_chunk_here(n))
    }

    pub(super) fn delete_chunk_here(&mut self, n: i64) -> Result<i64> {
        if n < 0 || n >= self.nchunks() {
            return Err(Error::InvalidParam);
        }
        let saved = (self.chunksize, self.flags2, self.nbytes, self.cbytes);
        let r = (|| {
            let old_nb = self.chunk_nbytes(n)? as i64;
            self.nbytes -= old_nb;
            if self.nchunks() == 1 {
                self.flags2 = 0;
            }
            if let Store::Chunks(v) = &mut self.store {
                let old = v.remove(n as usize);
                self.cbytes -= uncounted_cbytes(old.len());
                return Ok(());
            }
            let f = self.frame().ok_or(Error::Failure)?;
            let mut offsets = f.offsets().to_vec();
            let room = offsets.len() * 8 + EXTENDED_HEADER_LENGTH;
            let old = offsets.remove(n as usize);
            if f.sparse_dir().is_some() {
                let mut cbytes = f.data_len();
                if old >= 0 {
                    cbytes = cbytes.saturating_sub(f.sparse_chunk_size(old).unwrap_or(0));
                }
                let off_chunk = crate::frame::compress_offsets_into(&offsets, room)?;
                // The index stops naming the chunk file before it goes away.
                self.commit(DataEdit::Sparse { cbytes }, Some(offsets), Some(off_chunk))?;
                if old >= 0 {
                    if let Some(f) = self.frame() {
                        f.remove_sparse_chunk(old)?;
                    }
                }
                return Ok(());
            }
            let edit = if offsets.is_empty() {
                DataEdit::Reset
            } else {
                DataEdit::None
            };
            let off_chunk = crate::frame::compress_offsets_into(&offsets, room)?;
            self.commit(edit, Some(offsets), Some(off_chunk))
        })();
        if let Err(e) = r {
            (self.chunksize, self.flags2, self.nbytes, self.cbytes) = saved;
            self.recount_frame_cbytes();
            return Err(e);
        }
        Ok(self.nchunks())
    }
}

impl SuperChunk {
    /// Store every chunk of a frame that is only a special offset (a chunk
    /// of zeros, NaNs or uninitialized values, whose size the fixed chunk
    /// size gives) as the 32-byte chunk it stands for; called before the
    /// chunk size becomes variable, after which nothing in the frame would
    /// tell those chunks' sizes (the reference leaves the offsets, and its
    /// frame then fails to give those chunks back). What the super-chunk
    /// holds is unchanged, and the frame stays valid at every step.
    pub(super) fn store_special_offsets(&mut self) -> Result<()> {
        let Some(f) = self.frame() else {
            return Ok(());
        };
        if self.chunksize <= 0 {
            return Ok(());
        }
        let mut offsets = f.offsets().to_vec();
        let specials: Vec<usize> = (0..offsets.len()).filter(|&i| offsets[i] < 0).collect();
        if specials.is_empty() {
            return Ok(());
        }
        let mut chunks = Vec::with_capacity(specials.len());
        for &i in &specials {
            let kind = crate::format::frame::offset_special(offsets[i])?;
            chunks.push(self.special_chunk(i as i64, kind)?);
        }
        let f = self.frame().ok_or(Error::Failure)?;
        if f.sparse_dir().is_none() {
            let base = f.data_len() as i64;
            let mut data = Vec::new();
            for (&i, c) in specials.iter().zip(&chunks) {
                offsets[i] = base + data.len() as i64;
                data.extend_from_slice(c);
            }
            return self.commit(DataEdit::Append(&data), Some(offsets), None);
        }
        let mut cbytes = f.data_len();
        let mut added = Vec::new();
        let mut r = Ok(());
        for (&i, c) in specials.iter().zip(&chunks) {
            match f.add_sparse_chunk(c) {
                Ok(id) => {
                    added.push(id);
                    offsets[i] = id;
                    cbytes += c.len() as u64;
                }
                Err(e) => {
                    r = Err(e);
                    break;
                }
            }
        }
        if r.is_ok() {
            r = self.commit(DataEdit::Sparse { cbytes }, Some(offsets), None);
        }
        if r.is_err() {
            // The index does not name the new files: drop them.
            if let Some(f) = self.frame() {
                for id in added {
                    let _ = f.remove_sparse_chunk(id);
                }
            }
        }
        r
    }

    /// After an edit that failed: the compressed size of a frame is what
    /// the frame holds (an earlier step may have stored chunks in it).
    fn recount_frame_cbytes(&mut self) {
        if let Some(f) = self.frame() {
            self.cbytes = f.data_len() as i64;
        }
    }
}

/// Cut a chunk to be stored to its `cbytes`, and give back room it holds
/// beyond them (a stored chunk keeps only its bytes).
fn keep_only(chunk: &mut Vec<u8>, cbytes: usize) {
    chunk.truncate(cbytes);
    if chunk.capacity() > chunk.len() + chunk.len() / 8 + 64 {
        chunk.shrink_to_fit();
    }
}
