//! Copies of a super-chunk in another storage, and its frame as bytes or
//! in a file.

use super::*;

impl SuperChunk {
    /// A copy in another storage, built the way the reference builds it
    /// (metalayers, then chunks appended one by one, then vlmetalayers
    /// recompressed with the default parameters). With `cparams` the chunks
    /// are recompressed with them when they differ from ours.
    pub fn copy_to(&self, storage: Storage, cparams: Option<CParams>) -> Result<SuperChunk> {
        let same_params = cparams.is_none();
        let mut cp = match cparams {
            Some(c) => c,
            None => {
                // The reference fills a zeroed struct from the context: no
                // threads, and the context's last block size.
                let mut c = self.cparams.clone();
                c.blocksize = self.last_blocksize;
                c
            }
        };
        if cp.blocksize == 0 {
            cp.blocksize = self.last_blocksize;
        }
        cp.prefilter = None;
        let recompress = !same_params
            && (cp.typesize != self.cparams.typesize
                || cp.clevel != self.cparams.clevel
                || cp.compcode != self.cparams.compcode
                || cp.use_dict != self.cparams.use_dict
                || cp.blocksize != self.last_blocksize
                || cp.filters != self.cparams.filters
                || cp.filters_meta != self.cparams.filters_meta)
            && self.flags2 & B2_VL_BLOCKS == 0;
        let mut dp = self.dparams.clone();
        dp.postfilter = None;
        let nthreads_c = if same_params { 0 } else { cp.nthreads };
        let mut out = SuperChunk::new(cp, dp, storage)?;
        out.header_nthreads = (nthreads_c, 1);
        out.chunksize = self.chunksize;
        out.flags2 = self.flags2;
        for m in &self.metalayers {
            out.meta_add(&m.name, &m.content)?;
        }
        for i in 0..self.nchunks() {
            if recompress {
                out.append_buffer(&self.decompress_chunk_vec(i)?)?;
            } else {
                out.append_chunk(self.chunk(i)?.into_owned())?;
            }
        }
        for m in &self.vlmetalayers {
            let (_, content) = self.vlmeta_get(&m.name)?;
            out.vlmeta_add(&m.name, &content, None)?;
        }
        Ok(out)
    }

    /// The super-chunk as a contiguous frame in memory.
    pub fn to_frame_bytes(&self) -> Result<Vec<u8>> {
        match &self.store {
            Store::Frame(f) if f.memory_bytes().is_some() => f.to_bytes(),
            _ => {
                let c = self.copy_to(Storage::FrameInMemory, None)?;
                c.frame().ok_or(Error::Failure)?.to_bytes()
            }
        }
    }

    /// Write the super-chunk as a contiguous frame into a new file (replacing
    /// an existing one); returns the frame length. A frame in memory reports
    /// the write's own error, any other super-chunk `SchunkCopy` (as the
    /// reference, which copies it into a frame first).
    pub fn to_file(&self, path: &Path) -> Result<i64> {
        self.frame_file_error(self.write_frame_to(path))
    }

    /// Append the super-chunk as a contiguous frame at the end of a file
    /// (created when missing); returns the offset where it starts. Errors
    /// as for [`Self::to_file`].
    pub fn append_to_file(&self, path: &Path) -> Result<i64> {
        self.frame_file_error(self.append_frame_to(path))
    }

    /// The error a frame file write reports, as the reference's: the
    /// write's own for a frame held in memory; `SchunkCopy` for any other
    /// super-chunk, which is copied into a frame first.
    fn frame_file_error(&self, r: Result<i64>) -> Result<i64> {
        let in_memory_frame = self.frame().is_some_and(|f| f.memory_bytes().is_some());
        r.map_err(|e| {
            if in_memory_frame {
                e
            } else {
                Error::SchunkCopy
            }
        })
    }

    fn write_frame_to(&self, path: &Path) -> Result<i64> {
        let bytes = self.to_frame_bytes()?;
        std::fs::write(path, &bytes).map_err(|_| Error::FileWrite)?;
        Ok(bytes.len() as i64)
    }

    fn append_frame_to(&self, path: &Path) -> Result<i64> {
        use std::io::Write;
        let bytes = self.to_frame_bytes()?;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|_| Error::FileOpen)?;
        let at = f.metadata().map_err(|_| Error::FileRead)?.len();
        f.write_all(&bytes).map_err(|_| Error::FileWrite)?;
        Ok(at as i64)
    }
}
