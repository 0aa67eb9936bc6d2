//! `blosc2 convert IN OUT`: a Bloscpack file into a contiguous frame, or a
//! frame into a Bloscpack file (the direction follows the input's magic).

use crate::common::{
    err_s, input_len, open_input, progress, read_all, read_up_to, write_all_to, AtomicOut, Res,
};
use crate::options::{CompOpts, PackExtra};
use crate::pack::{pack_options, pack_reader};
use blosc2::bloscpack;
use blosc2::chunk::DParams;
use blosc2::schunk::{Storage, SuperChunk};
use std::fs::File;
use std::io::{Cursor, Read};
use std::path::Path;

/// Whether the file `input` starts with the Bloscpack magic (stdin: no).
fn is_bloscpack(input: &str) -> Res<bool> {
    if input == "-" {
        return Ok(false);
    }
    let mut f = File::open(input).map_err(|e| format!("cannot open {input}: {e}"))?;
    let mut m = [0u8; 4];
    let n = read_up_to(&mut f, &mut m)?;
    Ok(n == 4 && &m == bloscpack::header::MAGIC)
}

/// Convert `input` into `output` ("-": stdin / stdout).
pub fn convert(input: &str, output: &str, opts: &CompOpts, extra: &PackExtra) -> Res<()> {
    let data_stdin = if input == "-" {
        Some(read_all(input)?)
    } else {
        None
    };
    let blp = match &data_stdin {
        Some(d) => d.starts_with(bloscpack::header::MAGIC),
        None => is_bloscpack(input)?,
    };
    if blp {
        bloscpack_to_frame(input, data_stdin, output, opts)
    } else {
        frame_to_bloscpack(input, data_stdin, output, opts, extra)
    }
}

/// Every Bloscpack chunk becomes one frame chunk; JSON metadata becomes the
/// variable-length metalayer `bloscpack_metadata`.
fn bloscpack_to_frame(
    input: &str,
    data_stdin: Option<Vec<u8>>,
    output: &str,
    opts: &CompOpts,
) -> Res<()> {
    let (r, len): (Box<dyn Read>, Option<u64>) = match data_stdin {
        Some(d) => {
            let l = d.len() as u64;
            (Box::new(Cursor::new(d)), Some(l))
        }
        None => (open_input(input)?, input_len(input)),
    };
    let mut reader = bloscpack::Reader::new(r, len).map_err(|e| format!("{input}: {e}"))?;
    let mut cp = opts.cparams();
    cp.typesize = reader.header.typesize.max(1) as i32;
    let out = if output == "-" {
        None
    } else {
        Some(AtomicOut::path_only(output)?)
    };
    let storage = match &out {
        Some(o) => Storage::FrameFile(o.tmp.clone()),
        None => Storage::FrameInMemory,
    };
    let mut sc = SuperChunk::new(cp, DParams::default(), storage).map_err(err_s)?;
    let pb = progress(reader.header.total_size(), "convert");
    while let Some(d) = reader.next_chunk().map_err(|e| format!("{input}: {e}"))? {
        sc.append_buffer(&d)
            .map_err(|e| format!("compression failed: {e}"))?;
        pb.inc(d.len() as u64);
    }
    if let Some(m) = &reader.metadata {
        if m.header.magic_format == b"JSON" {
            sc.vlmeta_add("bloscpack_metadata", &m.data, None)
                .map_err(|e| format!("cannot store the metadata: {e}"))?;
        }
    }
    pb.finish_and_clear();
    match out {
        Some(o) => {
            drop(sc);
            o.commit()
        }
        None => write_all_to("-", &sc.to_frame_bytes().map_err(err_s)?),
    }
}

/// The frame's chunks, decompressed, are packed again with the frame's
/// typesize and chunk size; its `bloscpack_metadata` becomes the metadata
/// unless `--metadata` names one.
fn frame_to_bloscpack(
    input: &str,
    data_stdin: Option<Vec<u8>>,
    output: &str,
    opts: &CompOpts,
    extra: &PackExtra,
) -> Res<()> {
    let not_either =
        |e: blosc2::Error| format!("{input}: neither a Bloscpack file nor a Blosc2 frame: {e}");
    let sc = match data_stdin {
        Some(d) => SuperChunk::from_frame_bytes(d, true).map_err(not_either)?,
        None => {
            if !Path::new(input).exists() {
                return Err(format!("cannot open {input}: No such file or directory"));
            }
            SuperChunk::open(Path::new(input), 0).map_err(not_either)?
        }
    };
    let mut popts = pack_options(opts, extra)?;
    popts.typesize = sc.typesize().clamp(1, 255) as usize;
    if sc.chunksize > 0 {
        popts.chunk_size = sc.chunksize as usize;
    }
    if let Ok((_, m)) = sc.vlmeta_get("bloscpack_metadata") {
        if popts.metadata.is_none() {
            popts.metadata = Some(m);
        }
    }
    let total = sc.nbytes.max(0) as u64;
    let mut r = FrameReader {
        sc: &sc,
        next: 0,
        buf: Vec::new(),
        pos: 0,
    };
    pack_reader(&mut r, total, output, &popts)?;
    Ok(())
}

/// The decompressed bytes of a super-chunk as a `Read`.
struct FrameReader<'a> {
    sc: &'a SuperChunk,
    next: i64,
    buf: Vec<u8>,
    pos: usize,
}

impl Read for FrameReader<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.pos == self.buf.len() {
            if self.next >= self.sc.nchunks() {
                return Ok(0);
            }
            self.buf = self
                .sc
                .decompress_chunk_vec(self.next)
                .map_err(|e| std::io::Error::other(format!("chunk {}: {e}", self.next)))?;
            self.pos = 0;
            self.next += 1;
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}
