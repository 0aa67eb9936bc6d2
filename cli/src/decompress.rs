//! `blosc2 decompress IN OUT`: a contiguous frame back into its bytes.

use crate::common::{input_len, progress, read_all, AtomicOut, Res, Transfer};
use blosc2::schunk::SuperChunk;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// Open the frame `input` ("-" is stdin) for reading with `threads` workers.
pub fn open_frame(input: &str, threads: i16) -> Res<SuperChunk> {
    let mut sc = if input == "-" {
        SuperChunk::from_frame_bytes(read_all(input)?, true)
    } else {
        if !Path::new(input).exists() {
            return Err(format!("cannot open {input}: No such file or directory"));
        }
        SuperChunk::open(Path::new(input), 0)
    }
    .map_err(|e| format!("{input}: not a readable Blosc2 frame: {e}"))?;
    sc.dparams.nthreads = threads;
    Ok(sc)
}

/// Decompress every chunk of `sc`, in order, into `out`; the bytes written.
pub fn frame_chunks_to(sc: &SuperChunk, out: &mut dyn Write, what: &str) -> Res<u64> {
    let pb = progress(Some(sc.nbytes.max(0) as u64), what);
    let mut done = 0u64;
    for i in 0..sc.nchunks() {
        let d = sc
            .decompress_chunk_vec(i)
            .map_err(|e| format!("chunk {i}: {e}"))?;
        out.write_all(&d)
            .map_err(|e| format!("cannot write output: {e}"))?;
        done += d.len() as u64;
        pb.inc(d.len() as u64);
    }
    pb.finish_and_clear();
    Ok(done)
}

/// Decompress the frame `input` into `output` ("-": stdin / stdout).
pub fn decompress(input: &str, output: &str, threads: i16) -> Res<Transfer> {
    let start = Instant::now();
    let sc = open_frame(input, threads)?;
    let read = input_len(input).unwrap_or_else(|| sc.frame_len().max(0) as u64);
    let written = if output == "-" {
        let mut o = std::io::stdout().lock();
        let n = frame_chunks_to(&sc, &mut o, "decompress")?;
        o.flush().map_err(|e| format!("cannot write stdout: {e}"))?;
        n
    } else {
        let mut out = AtomicOut::create(output)?;
        let n = frame_chunks_to(&sc, out.writer(), "decompress")?;
        out.commit()?;
        n
    };
    Ok(Transfer {
        input: read,
        output: written,
        time: start.elapsed(),
    })
}
