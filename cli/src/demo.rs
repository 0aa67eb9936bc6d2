//! `blosc2 demo`: the main job on a built-in dataset, end to end: compress
//! 16 MiB of float64 into a frame, describe it, decompress it and compare.

use crate::bench::default_dataset;
use crate::common::{read_all, write_all_to, Res};
use crate::compress::compress;
use crate::decompress::decompress;
use crate::info::info;
use crate::options::CompOpts;
use std::path::Path;
use std::time::Instant;

/// Run the demo, writing demo.raw, demo.b2frame and demo.out into `dir`.
pub fn demo(dir: &Path, opts: &CompOpts) -> Res<()> {
    let data: Vec<u8> = (0..4).flat_map(|_| default_dataset()).collect();
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let (raw, frame, out) = (path("demo.raw"), path("demo.b2frame"), path("demo.out"));
    write_all_to(&raw, &data)?;
    println!(
        "built-in dataset: {} bytes of float64 (a noisy ramp) in {raw}",
        data.len()
    );
    let t = Instant::now();
    compress(&raw, &frame, opts)?;
    let ct = t.elapsed().as_secs_f64();
    println!("compressed into {frame} in {:.3} s", ct);
    info(&frame, false, &mut std::io::stdout().lock())?;
    let t = Instant::now();
    decompress(&frame, &out, opts.workers.threads)?;
    let dt = t.elapsed().as_secs_f64();
    let back = read_all(&out)?;
    if back != data {
        return Err(format!("{out} differs from {raw}: the round trip failed"));
    }
    println!("decompressed into {out} in {dt:.3} s; every byte matches");
    Ok(())
}
