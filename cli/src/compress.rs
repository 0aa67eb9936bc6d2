//! `blosc2 compress IN OUT`: a file (or stdin) into a contiguous Blosc2 frame.

use crate::common::{
    err_s, input_len, open_input, progress, read_up_to, write_all_to, AtomicOut, Res, Transfer,
};
use crate::options::CompOpts;
use blosc2::chunk::DParams;
use blosc2::schunk::{Storage, SuperChunk};
use std::io::Read;
use std::time::Instant;

/// Read `input` chunk by chunk into a super-chunk stored as `storage`; the
/// super-chunk and the number of bytes read.
fn fill_schunk(
    input: &mut dyn Read,
    total: Option<u64>,
    opts: &CompOpts,
    storage: Storage,
) -> Res<(SuperChunk, u64)> {
    let dparams = DParams {
        nthreads: opts.workers.threads,
        ..DParams::default()
    };
    let mut sc = SuperChunk::new(opts.cparams(), dparams, storage)
        .map_err(|e| format!("cannot create frame: {e}"))?;
    let pb = progress(total, "compress");
    let mut buf = vec![0u8; opts.chunk_size];
    let mut read = 0u64;
    loop {
        let n = read_up_to(input, &mut buf)?;
        if n == 0 {
            break;
        }
        sc.append_buffer(&buf[..n])
            .map_err(|e| format!("compression failed: {e}"))?;
        pb.inc(n as u64);
        read += n as u64;
        if n < buf.len() {
            break;
        }
    }
    pb.finish_and_clear();
    Ok((sc, read))
}

/// Compress `input` into the frame `output` ("-": stdin / stdout).
pub fn compress(input: &str, output: &str, opts: &CompOpts) -> Res<Transfer> {
    let start = Instant::now();
    let total = input_len(input);
    let mut r = open_input(input)?;
    let done = |read: u64, written: u64| Transfer {
        input: read,
        output: written,
        time: start.elapsed(),
    };
    if output == "-" {
        let (sc, read) = fill_schunk(&mut r, total, opts, Storage::FrameInMemory)?;
        let bytes = sc.to_frame_bytes().map_err(err_s)?;
        write_all_to("-", &bytes)?;
        return Ok(done(read, bytes.len() as u64));
    }
    // The frame is built in a temporary file next to OUT, then renamed.
    let out = AtomicOut::path_only(output)?;
    let (sc, read) = fill_schunk(&mut r, total, opts, Storage::FrameFile(out.tmp.clone()))?;
    if sc.nchunks() == 0 {
        drop(sc);
        // an empty input still gives a valid (empty) frame
        let sc = SuperChunk::new(opts.cparams(), DParams::default(), Storage::FrameInMemory)
            .map_err(err_s)?;
        let bytes = sc.to_frame_bytes().map_err(err_s)?;
        drop(out);
        write_all_to(output, &bytes)?;
        return Ok(done(read, bytes.len() as u64));
    }
    drop(sc);
    out.commit()?;
    let written = std::fs::metadata(output).map_or(0, |m| m.len());
    Ok(done(read, written))
}
