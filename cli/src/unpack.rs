//! `blosc2 unpack IN OUT`: a Bloscpack file back into its bytes.

use crate::common::{input_len, open_input, progress, AtomicOut, Res};
use blosc2::bloscpack;
use std::io::Write;

/// Unpack the Bloscpack file `input` into `output` ("-": stdin / stdout).
pub fn unpack(input: &str, output: &str, threads: i16) -> Res<()> {
    let len = input_len(input);
    let r = open_input(input)?;
    let mut reader = bloscpack::Reader::new(r, len).map_err(|e| format!("{input}: {e}"))?;
    reader.set_threads(threads);
    let pb = progress(reader.header.total_size(), "unpack");
    let mut run = |w: &mut dyn Write| -> Res<()> {
        while let Some(d) = reader.next_chunk().map_err(|e| format!("{input}: {e}"))? {
            w.write_all(&d)
                .map_err(|e| format!("cannot write output: {e}"))?;
            pb.inc(d.len() as u64);
        }
        Ok(())
    };
    if output == "-" {
        let mut o = std::io::stdout().lock();
        run(&mut o)?;
        o.flush().map_err(|e| format!("cannot write stdout: {e}"))?;
    } else {
        let mut out = AtomicOut::create(output)?;
        run(out.writer())?;
        out.commit()?;
    }
    pb.finish_and_clear();
    Ok(())
}
