//! The CPU features the SIMD kernels use: detected once and cached, and
//! capped by one environment variable.
//!
//! `BLOSC2_RS_SIMD=scalar|sse2|avx2|avx512|neon` (case-insensitive) limits
//! every kernel of the crate (shuffle, bitshuffle, BloscLZ match scanning,
//! the AVX2 build of LZ4, Adler-32) to the instructions of that level, for
//! comparisons and for testing the slower paths.  A level the CPU does not
//! have, or an unknown name, is ignored.  Every kernel produces exactly the
//! same bytes whatever the level; only the speed differs.
//!
//! Code that runs a kernel asks [`features`] (or, to test every kernel the
//! machine can run, [`hardware`]) and builds its capability value from the
//! answer; a capability value exists only when its features are present,
//! which is what makes calling the kernel sound.

use std::sync::OnceLock;

/// The environment variable that caps the SIMD level.
pub const OVERRIDE_VAR: &str = "BLOSC2_RS_SIMD";

/// The instruction-set extensions the kernels of this crate use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// x86_64 SSE2.
    pub sse2: bool,
    /// x86_64 AVX2.
    pub avx2: bool,
    /// x86_64 BMI1 (bit manipulation: `tzcnt`, `andn`).
    pub bmi1: bool,
    /// x86_64 BMI2 (`shlx`, `pext`, ...).
    pub bmi2: bool,
    /// x86_64 LZCNT.
    pub lzcnt: bool,
    /// x86_64 AVX-512 Foundation.
    pub avx512f: bool,
    /// x86_64 AVX-512 byte and word instructions.
    pub avx512bw: bool,
    /// x86_64 AVX-512 on 128- and 256-bit registers.
    pub avx512vl: bool,
    /// x86_64 AVX-512 byte permutes across the whole register.
    pub avx512vbmi: bool,
    /// x86_64 AVX-512 dot products of bytes (VNNI).
    pub avx512vnni: bool,
    /// x86_64 Galois-field instructions (8x8 bit-matrix products).
    pub gfni: bool,
    /// aarch64 Advanced SIMD.
    pub neon: bool,
}

/// A SIMD level, as named by [`OVERRIDE_VAR`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// No SIMD instructions.
    Scalar,
    /// SSE2 (x86_64).
    Sse2,
    /// AVX2 with BMI1, BMI2 and LZCNT (x86_64).
    Avx2,
    /// Every AVX-512 extension besides (x86_64).
    Avx512,
    /// Advanced SIMD (aarch64).
    Neon,
}

impl Level {
    /// Every level, whatever the target architecture.
    pub const ALL: [Level; 5] = [
        Level::Scalar,
        Level::Sse2,
        Level::Avx2,
        Level::Avx512,
        Level::Neon,
    ];

    /// Short lowercase name: "scalar", "sse2", "avx2", "avx512" or "neon".
    pub fn name(self) -> &'static str {
        match self {
            Level::Scalar => "scalar",
            Level::Sse2 => "sse2",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
            Level::Neon => "neon",
        }
    }

    /// The level a name stands for (case-insensitive, surrounding blanks
    /// ignored).
    pub fn from_name(name: &str) -> Option<Level> {
        let wanted = name.trim();
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(wanted))
    }
}

impl Features {
    /// The features of the running CPU (not cached: see [`hardware`]).
    fn detect() -> Features {
        #[allow(unused_mut)]
        let mut f = Features::default();
        #[cfg(target_arch = "x86_64")]
        {
            f.sse2 = std::is_x86_feature_detected!("sse2");
            f.avx2 = std::is_x86_feature_detected!("avx2");
            f.bmi1 = std::is_x86_feature_detected!("bmi1");
            f.bmi2 = std::is_x86_feature_detected!("bmi2");
            f.lzcnt = std::is_x86_feature_detected!("lzcnt");
            f.avx512f = std::is_x86_feature_detected!("avx512f");
            f.avx512bw = std::is_x86_feature_detected!("avx512bw");
            f.avx512vl = std::is_x86_feature_detected!("avx512vl");
            f.avx512vbmi = std::is_x86_feature_detected!("avx512vbmi");
            f.avx512vnni = std::is_x86_feature_detected!("avx512vnni");
            f.gfni = std::is_x86_feature_detected!("gfni");
        }
        #[cfg(target_arch = "aarch64")]
        {
            f.neon = std::arch::is_aarch64_feature_detected!("neon");
        }
        f
    }

    /// Whether these features include the one that defines `level` (any
    /// CPU has [`Level::Scalar`]).
    pub fn has_level(&self, level: Level) -> bool {
        match level {
            Level::Scalar => true,
            Level::Sse2 => self.sse2,
            Level::Avx2 => self.avx2,
            Level::Avx512 => self.avx512f,
            Level::Neon => self.neon,
        }
    }

    /// These features without those above `level`.
    pub fn capped(self, level: Level) -> Features {
        let none = Features::default();
        match level {
            Level::Scalar => none,
            Level::Sse2 => Features {
                sse2: self.sse2,
                ..none
            },
            Level::Avx2 => Features {
                sse2: self.sse2,
                avx2: self.avx2,
                bmi1: self.bmi1,
                bmi2: self.bmi2,
                lzcnt: self.lzcnt,
                ..none
            },
            Level::Avx512 => Features {
                neon: false,
                ..self
            },
            Level::Neon => Features {
                neon: self.neon,
                ..none
            },
        }
    }

    /// These features as capped by the value of [`OVERRIDE_VAR`] (`None`
    /// when it is unset): unchanged when the value names no level or one
    /// these features lack.
    pub fn with_override(self, value: Option<&str>) -> Features {
        match value.and_then(Level::from_name) {
            Some(level) if self.has_level(level) => self.capped(level),
            _ => self,
        }
    }
}

/// The features of the running CPU, detected on the first call.
pub fn hardware() -> &'static Features {
    static HARDWARE: OnceLock<Features> = OnceLock::new();
    HARDWARE.get_or_init(Features::detect)
}

/// The features the kernels may use: [`hardware`] capped by
/// [`OVERRIDE_VAR`], read on the first call.
pub fn features() -> &'static Features {
    static ALLOWED: OnceLock<Features> = OnceLock::new();
    ALLOWED.get_or_init(|| {
        let value = std::env::var(OVERRIDE_VAR).ok();
        hardware().with_override(value.as_deref())
    })
}

/// Who made the CPU: for the few choices between two implementations of
/// the same thing that measured one way on Intel cores and the other on
/// AMD ones (`codec::zlib`'s decoder).  Not capped by [`OVERRIDE_VAR`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vendor {
    /// "GenuineIntel".
    Intel,
    /// "AuthenticAMD".
    Amd,
    /// Any other vendor, and every CPU that is not x86_64.
    Other,
}

/// The running CPU's vendor, read on the first call.
pub fn vendor() -> Vendor {
    static VENDOR: OnceLock<Vendor> = OnceLock::new();
    *VENDOR.get_or_init(detect_vendor)
}

/// The vendor string of CPUID leaf 0 (EBX, EDX, ECX), as a [`Vendor`].
fn detect_vendor() -> Vendor {
    #[cfg(target_arch = "x86_64")]
    {
        // `__cpuid` is a safe function in recent Rust releases and an
        // unsafe one in older ones (this crate's rust-version among them).
        #[allow(unused_unsafe)]
        // SAFETY: every x86_64 CPU has CPUID, and leaf 0 always exists.
        let r = unsafe { std::arch::x86_64::__cpuid(0) };
        let mut id = [0u8; 12];
        id[..4].copy_from_slice(&r.ebx.to_le_bytes());
        id[4..8].copy_from_slice(&r.edx.to_le_bytes());
        id[8..].copy_from_slice(&r.ecx.to_le_bytes());
        match &id {
            b"GenuineIntel" => return Vendor::Intel,
            b"AuthenticAMD" => return Vendor::Amd,
            _ => {}
        }
    }
    Vendor::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    fn everything() -> Features {
        Features {
            sse2: true,
            avx2: true,
            bmi1: true,
            bmi2: true,
            lzcnt: true,
            avx512f: true,
            avx512bw: true,
            avx512vl: true,
            avx512vbmi: true,
            avx512vnni: true,
            gfni: true,
            neon: false,
        }
    }

    #[test]
    fn names_round_trip() {
        for l in Level::ALL {
            assert_eq!(Level::from_name(l.name()), Some(l));
        }
        assert_eq!(Level::from_name(" AVX512 "), Some(Level::Avx512));
        assert_eq!(Level::from_name("altivec"), None);
    }

    #[test]
    fn override_caps_the_features() {
        let all = everything();
        assert_eq!(all.with_override(None), all);
        assert_eq!(all.with_override(Some("bogus")), all);
        assert_eq!(all.with_override(Some("avx512")), all);
        assert_eq!(all.with_override(Some("scalar")), Features::default());
        let avx2 = all.with_override(Some("AVX2"));
        assert!(avx2.avx2 && avx2.bmi2 && avx2.lzcnt && !avx2.avx512f && !avx2.gfni);
        let sse2 = all.with_override(Some("sse2"));
        assert!(sse2.sse2 && !sse2.avx2 && !sse2.bmi1);
        // A level the CPU lacks leaves everything as it is.
        assert_eq!(all.with_override(Some("neon")), all);
        let avx2_only = all.capped(Level::Avx2);
        assert_eq!(avx2_only.with_override(Some("avx512")), avx2_only);
    }

    #[test]
    fn allowed_features_are_a_subset_of_the_hardware() {
        let (hw, ok) = (hardware(), features());
        let pairs = [
            (hw.sse2, ok.sse2),
            (hw.avx2, ok.avx2),
            (hw.bmi1, ok.bmi1),
            (hw.bmi2, ok.bmi2),
            (hw.lzcnt, ok.lzcnt),
            (hw.avx512f, ok.avx512f),
            (hw.avx512bw, ok.avx512bw),
            (hw.avx512vl, ok.avx512vl),
            (hw.avx512vbmi, ok.avx512vbmi),
            (hw.avx512vnni, ok.avx512vnni),
            (hw.gfni, ok.gfni),
            (hw.neon, ok.neon),
        ];
        for (have, allowed) in pairs {
            assert!(have || !allowed);
        }
        if !cfg!(target_arch = "x86_64") {
            assert!(!hw.sse2 && !hw.avx2 && !hw.avx512f);
        }
    }

    /// The vendor read through CPUID is the one Linux reports.
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    #[test]
    fn vendor_matches_proc_cpuinfo() {
        let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
            return;
        };
        let Some(line) = info.lines().find(|l| l.starts_with("vendor_id")) else {
            return;
        };
        let expect = match line.split(':').nth(1).map(str::trim) {
            Some("GenuineIntel") => Vendor::Intel,
            Some("AuthenticAMD") => Vendor::Amd,
            _ => Vendor::Other,
        };
        assert_eq!(vendor(), expect);
    }
}
