//! `blosc2 pack IN OUT`: a file (or stdin) into a Bloscpack file.

use crate::common::{input_len, open_input, progress, read_all, write_all_to, AtomicOut, Res};
use crate::options::{CompOpts, PackExtra};
use blosc2::bloscpack::{self, PackOptions};
use std::io::{Cursor, Read};

/// The Bloscpack writer's options from the command line's (reads the
/// `--metadata` JSON file, stored compact).
pub fn pack_options(opts: &CompOpts, extra: &PackExtra) -> Res<PackOptions> {
    let metadata = match &extra.metadata {
        None => None,
        Some(p) => {
            let text = std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            let v: serde_json::Value = serde_json::from_slice(&text)
                .map_err(|e| format!("{}: not JSON: {e}", p.display()))?;
            Some(serde_json::to_vec(&v).map_err(|e| e.to_string())?)
        }
    };
    Ok(PackOptions {
        compcode: opts.codec.id(),
        clevel: opts.clevel,
        typesize: opts.typesize as usize,
        filter: opts.filter.id(),
        chunk_size: opts.chunk_size,
        checksum: extra.checksum,
        offsets: !extra.no_offsets,
        max_app_chunks: extra.max_app_chunks.map(i64::from),
        metadata,
    })
}

/// Pack the `len` bytes of `input` into the Bloscpack file `output` ("-" is stdout).
pub fn pack_reader(
    input: &mut dyn Read,
    len: u64,
    output: &str,
    popts: &PackOptions,
) -> Res<bloscpack::PackStats> {
    let pb = progress(Some(len), "pack");
    let mut tick = |n: u64| pb.set_position(n);
    let r = if output == "-" {
        let mut c = Cursor::new(Vec::new());
        let st =
            bloscpack::pack(input, len, &mut c, popts, &mut tick).map_err(|e| e.to_string())?;
        write_all_to("-", &c.into_inner())?;
        st
    } else {
        let mut out = AtomicOut::create(output)?;
        let st = bloscpack::pack(input, len, out.writer(), popts, &mut tick)
            .map_err(|e| e.to_string())?;
        out.commit()?;
        st
    };
    pb.finish_and_clear();
    Ok(r)
}

/// Pack `input` into the Bloscpack file `output` ("-": stdin / stdout).
pub fn pack(input: &str, output: &str, opts: &CompOpts, extra: &PackExtra) -> Res<()> {
    let popts = pack_options(opts, extra)?;
    match input_len(input) {
        Some(len) => {
            let mut r = open_input(input)?;
            pack_reader(&mut r, len, output, &popts)?;
        }
        None => {
            // stdin: the header needs the length first
            let data = read_all(input)?;
            pack_reader(&mut &data[..], data.len() as u64, output, &popts)?;
        }
    }
    Ok(())
}
