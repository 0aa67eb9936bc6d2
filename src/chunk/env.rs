//! The `BLOSC_*` environment variables that override compression and
//! decompression parameters, read as the reference reads them.
//!
//! Two kinds of call honour them, with different rules (both the
//! reference's): a context made from parameters ([`EnvOverrides::apply`],
//! used by `blosc2_create_cctx` and the super-chunk constructors), and the
//! global blosc1-style calls, where the variables change the process-wide
//! settings ([`super::global`]).

use super::params::{CParams, SplitMode};
use crate::error::{Error, Result};
use crate::format::header::DELTA;

/// The overriding variables that are set, parsed (unset or unknown values: `None`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvOverrides {
    /// `BLOSC_CLEVEL`, any integer.
    pub clevel: Option<i64>,
    /// `BLOSC_SHUFFLE`: `NOSHUFFLE` 0, `SHUFFLE` 1, `BITSHUFFLE` 2.
    pub shuffle: Option<u8>,
    /// `BLOSC_DELTA`: `1` or `0`.
    pub delta: Option<bool>,
    /// `BLOSC_TYPESIZE`, any integer.
    pub typesize: Option<i64>,
    /// `BLOSC_COMPRESSOR`, in lower case (the documentation spells the
    /// names in upper case; both are accepted).
    pub compressor: Option<String>,
    /// `BLOSC_BLOCKSIZE`, any integer.
    pub blocksize: Option<i64>,
    /// `BLOSC_NTHREADS`, any integer.
    pub nthreads: Option<i64>,
    /// `BLOSC_SPLITMODE`: `ALWAYS`, `NEVER`, `AUTO` or `FORWARD_COMPAT`.
    pub splitmode: Option<SplitMode>,
}

/// An integer as C's `strtol` reads these variables: leading blanks, an
/// optional sign, the leading digits; no digits read as 0.
pub fn parse_int(v: &str) -> i64 {
    let t = v.trim_start();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    let n: i64 = digits[..end].parse().unwrap_or(0);
    if neg {
        -n
    } else {
        n
    }
}

/// A thread count from `BLOSC_NTHREADS` when positive, capped at `i16::MAX`.
fn positive_nthreads(v: Option<i64>) -> Option<i16> {
    v.filter(|&n| n > 0).map(|n| n.min(i16::MAX as i64) as i16)
}

impl EnvOverrides {
    /// The variables of this process's environment, read now.
    pub fn from_env() -> EnvOverrides {
        EnvOverrides::from_lookup(|name| std::env::var(name).ok())
    }

    /// The variables as `get` gives them (for tests and embedders).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> EnvOverrides {
        let int = |name: &str| get(name).map(|v| parse_int(&v));
        EnvOverrides {
            clevel: int("BLOSC_CLEVEL"),
            shuffle: get("BLOSC_SHUFFLE").and_then(|v| match v.as_str() {
                "NOSHUFFLE" => Some(0),
                "SHUFFLE" => Some(1),
                "BITSHUFFLE" => Some(2),
                _ => None,
            }),
            delta: get("BLOSC_DELTA").and_then(|v| match v.as_str() {
                "1" => Some(true),
                "0" => Some(false),
                _ => None,
            }),
            typesize: int("BLOSC_TYPESIZE"),
            compressor: get("BLOSC_COMPRESSOR").map(|v| v.to_ascii_lowercase()),
            blocksize: int("BLOSC_BLOCKSIZE"),
            nthreads: int("BLOSC_NTHREADS"),
            splitmode: get("BLOSC_SPLITMODE").and_then(|v| match v.as_str() {
                "ALWAYS" => Some(SplitMode::Always),
                "NEVER" => Some(SplitMode::Never),
                "AUTO" => Some(SplitMode::Auto),
                "FORWARD_COMPAT" => Some(SplitMode::ForwardCompat),
                _ => None,
            }),
        }
    }

    /// Override the parameters of a compression context. A compressor name
    /// that is not one of the built-in codecs is an error (the reference
    /// then makes no context).
    pub fn apply(&self, p: &mut CParams) -> Result<()> {
        if let Some(t) = self.typesize.filter(|&t| t > 0) {
            p.typesize = t as i32;
        }
        if let Some(s) = self.shuffle {
            // Byte shuffle of 1-byte items is no shuffle: left as it was.
            if !(s == 1 && p.typesize <= 1) {
                p.filters[5] = s;
            }
        }
        if self.delta == Some(true) {
            p.filters[4] = DELTA;
        }
        if let Some(v) = self.clevel.filter(|&v| v >= 0) {
            p.clevel = v.min(255) as u8;
        }
        if let Some(name) = &self.compressor {
            match crate::codec::code_of(name) {
                Some(c) if c < 6 => p.compcode = c,
                _ => return Err(Error::CodecSupport),
            }
        }
        if let Some(v) = self.blocksize.filter(|&v| v > 0) {
            p.blocksize = v as i32;
        }
        if let Some(n) = positive_nthreads(self.nthreads) {
            p.nthreads = n;
        }
        if let Some(m) = self.splitmode {
            p.splitmode = m;
        }
        Ok(())
    }

    /// The thread count of a decompression context: `BLOSC_NTHREADS` when
    /// positive, `nthreads` otherwise.
    pub fn decompress_nthreads(&self, nthreads: i16) -> i16 {
        positive_nthreads(self.nthreads).unwrap_or(nthreads)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> EnvOverrides {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        EnvOverrides::from_lookup(|name| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn integers_read_as_strtol_does() {
        assert_eq!(parse_int("  42abc"), 42);
        assert_eq!(parse_int("-7"), -7);
        assert_eq!(parse_int("+3"), 3);
        assert_eq!(parse_int("x"), 0);
    }

    #[test]
    fn context_parameters_take_the_overrides() {
        let e = env(&[
            ("BLOSC_CLEVEL", "300"),
            ("BLOSC_SHUFFLE", "BITSHUFFLE"),
            ("BLOSC_DELTA", "1"),
            ("BLOSC_TYPESIZE", "4"),
            ("BLOSC_COMPRESSOR", "ZSTD"),
            ("BLOSC_BLOCKSIZE", "65536"),
            ("BLOSC_NTHREADS", "99999"),
            ("BLOSC_SPLITMODE", "NEVER"),
        ]);
        let mut p = CParams::default();
        e.apply(&mut p).unwrap();
        assert_eq!(p.clevel, 255);
        assert_eq!(p.filters[5], 2);
        assert_eq!(p.filters[4], DELTA);
        assert_eq!(p.typesize, 4);
        assert_eq!(p.compcode, crate::codec::ZSTD);
        assert_eq!(p.blocksize, 65536);
        assert_eq!(p.nthreads, i16::MAX);
        assert_eq!(p.splitmode, SplitMode::Never);
        assert_eq!(e.decompress_nthreads(2), i16::MAX);
    }

    #[test]
    fn unknown_values_leave_parameters_alone() {
        let e = env(&[
            ("BLOSC_SHUFFLE", "shuffle"),
            ("BLOSC_CLEVEL", "-1"),
            ("BLOSC_NTHREADS", "0"),
            ("BLOSC_SPLITMODE", "SOMETIMES"),
        ]);
        let mut p = CParams::default();
        let before = (p.filters, p.clevel, p.nthreads, p.splitmode);
        e.apply(&mut p).unwrap();
        assert_eq!((p.filters, p.clevel, p.nthreads, p.splitmode), before);
        assert_eq!(e.decompress_nthreads(3), 3);
        // Byte shuffle is not forced on 1-byte items.
        let mut one = CParams {
            typesize: 1,
            ..CParams::default()
        };
        one.filters[5] = 0;
        env(&[("BLOSC_SHUFFLE", "SHUFFLE")])
            .apply(&mut one)
            .unwrap();
        assert_eq!(one.filters[5], 0);
    }

    #[test]
    fn an_unknown_compressor_is_an_error() {
        let mut p = CParams::default();
        assert!(env(&[("BLOSC_COMPRESSOR", "nope")]).apply(&mut p).is_err());
    }
}
