//! Helpers every subcommand uses: reading inputs (`-` is stdin), writing
//! outputs atomically (`-` is stdout), the progress bar and the one-line
//! summary of a compression or decompression.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fs::File;
use std::io::{BufReader, BufWriter, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::time::Duration;

/// A subcommand's result: the error is the one line printed after `blosc2: error: `.
pub type Res<T> = Result<T, String>;

/// Inputs at least this large get a progress bar (when stderr is a terminal).
const PROGRESS_MIN: u64 = 8 << 20;

/// The message of a library error.
pub fn err_s(e: blosc2::Error) -> String {
    e.to_string()
}

/// An output file written to a temporary in the same directory and renamed
/// into place on success; dropped without `commit`, the temporary is removed.
pub struct AtomicOut {
    pub tmp: PathBuf,
    dest: PathBuf,
    file: Option<BufWriter<File>>,
}

impl AtomicOut {
    pub fn create(dest: &str) -> Res<AtomicOut> {
        let dest = PathBuf::from(dest);
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dest
            .file_name()
            .ok_or_else(|| format!("{}: not a file name", dest.display()))?
            .to_string_lossy()
            .into_owned();
        let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        let f = File::create(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
        Ok(AtomicOut {
            tmp,
            dest,
            file: Some(BufWriter::new(f)),
        })
    }

    /// Only a temporary path (not created), for writers that create it themselves.
    pub fn path_only(dest: &str) -> Res<AtomicOut> {
        let mut a = AtomicOut::create(dest)?;
        a.file = None;
        let _ = std::fs::remove_file(&a.tmp);
        Ok(a)
    }

    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.file.as_mut().expect("AtomicOut opened without a file")
    }

    pub fn commit(mut self) -> Res<()> {
        if let Some(f) = self.file.take() {
            let f = f
                .into_inner()
                .map_err(|e| format!("cannot write {}: {}", self.dest.display(), e.error()))?;
            f.sync_all()
                .map_err(|e| format!("cannot write {}: {e}", self.dest.display()))?;
        }
        std::fs::rename(&self.tmp, &self.dest)
            .map_err(|e| format!("cannot rename to {}: {e}", self.dest.display()))
    }
}

impl Drop for AtomicOut {
    fn drop(&mut self) {
        // After a successful rename the temporary no longer exists.
        self.file = None;
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// Write `bytes` to `output` ("-" is stdout) atomically.
pub fn write_all_to(output: &str, bytes: &[u8]) -> Res<()> {
    if output == "-" {
        let mut o = std::io::stdout().lock();
        o.write_all(bytes)
            .and_then(|_| o.flush())
            .map_err(|e| format!("cannot write stdout: {e}"))
    } else {
        let mut a = AtomicOut::create(output)?;
        a.writer()
            .write_all(bytes)
            .map_err(|e| format!("cannot write {output}: {e}"))?;
        a.commit()
    }
}

/// The whole of `input` ("-" is stdin).
pub fn read_all(input: &str) -> Res<Vec<u8>> {
    if input == "-" {
        let mut v = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut v)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        Ok(v)
    } else {
        std::fs::read(input).map_err(|e| format!("cannot read {input}: {e}"))
    }
}

/// The size of the file `input`; `None` for stdin or when it cannot be known.
pub fn input_len(input: &str) -> Option<u64> {
    if input == "-" {
        None
    } else {
        std::fs::metadata(input).ok().map(|m| m.len())
    }
}

/// A buffered reader of `input` ("-" is stdin); a directory is an error.
pub fn open_input(input: &str) -> Res<Box<dyn Read>> {
    if input == "-" {
        Ok(Box::new(std::io::stdin().lock()))
    } else {
        let f = File::open(input).map_err(|e| format!("cannot open {input}: {e}"))?;
        if f.metadata().map(|m| m.is_dir()).unwrap_or(false) {
            return Err(format!("{input} is a directory"));
        }
        Ok(Box::new(BufReader::with_capacity(1 << 20, f)))
    }
}

/// Fill `buf` from `r` as far as the input goes; the count read.
pub fn read_up_to(r: &mut dyn Read, buf: &mut [u8]) -> Res<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("cannot read input: {e}")),
        }
    }
    Ok(got)
}

/// A progress bar on stderr for `total` bytes, hidden unless stderr is a
/// terminal and the job is large.
pub fn progress(total: Option<u64>, what: &str) -> ProgressBar {
    let show = std::io::stderr().is_terminal() && total.is_some_and(|t| t >= PROGRESS_MIN);
    if !show {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:40}] {bytes}/{total_bytes} ({binary_bytes_per_sec}, {eta})",
        )
        .unwrap()
        .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb
}

/// What a compression or decompression moved, for its one-line summary.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transfer {
    /// Bytes read (the file, or what came from stdin).
    pub input: u64,
    /// Bytes written.
    pub output: u64,
    /// Wall time of the whole job.
    pub time: Duration,
}

impl Transfer {
    /// `compressed 16777216 -> 1406512 bytes (ratio 11.93x) at 812.4 MB/s in 0.021 s`.
    /// The speed counts the uncompressed side (the larger of the two for a
    /// compressor, as zstd and pigz report it); the ratio is uncompressed over
    /// compressed.
    pub fn summary(&self, verb: &str) -> String {
        let (raw, packed) = if verb.starts_with("compress") {
            (self.input, self.output)
        } else {
            (self.output, self.input)
        };
        let secs = self.time.as_secs_f64();
        let ratio = raw as f64 / packed.max(1) as f64;
        format!(
            "{verb} {} -> {} bytes (ratio {ratio:.2}x) at {} in {secs:.3} s",
            self.input,
            self.output,
            speed(raw, secs)
        )
    }
}

/// `bytes` per `secs` in MB/s, or GB/s from 1000 MB/s on (decimal units).
fn speed(bytes: u64, secs: f64) -> String {
    let per_s = bytes as f64 / secs.max(1e-9);
    if per_s >= 1e9 {
        format!("{:.2} GB/s", per_s / 1e9)
    } else {
        format!("{:.1} MB/s", per_s / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_reports_sizes_ratio_and_speed() {
        let t = Transfer {
            input: 4_000_000,
            output: 1_000_000,
            time: Duration::from_millis(10),
        };
        assert_eq!(
            t.summary("compressed"),
            "compressed 4000000 -> 1000000 bytes (ratio 4.00x) at 400.0 MB/s in 0.010 s"
        );
        let back = Transfer {
            input: 1_000_000,
            output: 4_000_000,
            time: Duration::from_millis(2),
        };
        assert_eq!(
            back.summary("decompressed"),
            "decompressed 1000000 -> 4000000 bytes (ratio 4.00x) at 2.00 GB/s in 0.002 s"
        );
    }

    #[test]
    fn summary_of_an_empty_instant_job_has_no_division_by_zero() {
        let t = Transfer {
            input: 0,
            output: 0,
            time: Duration::ZERO,
        };
        assert!(t.summary("compressed").contains("ratio 0.00x"));
    }

    #[test]
    fn atomic_output_appears_only_on_commit() {
        let dir = std::env::temp_dir().join(format!("blosc2-cli-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let dest = dir.join("out.bin");
        let dest_s = dest.to_str().unwrap();
        {
            let mut a = AtomicOut::create(dest_s).unwrap();
            a.writer().write_all(b"dropped").unwrap();
        }
        assert!(!dest.exists());
        let mut a = AtomicOut::create(dest_s).unwrap();
        a.writer().write_all(b"kept").unwrap();
        a.commit().unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"kept");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
