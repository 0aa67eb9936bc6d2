//! Run-time selection of the SIMD kernel used by the shuffle filters.
//!
//! The best kernel the CPU supports is picked once and cached: on x86_64
//! AVX-512 (with VBMI and GFNI), then AVX2, then SSE2; on aarch64 NEON;
//! otherwise (or when none is available) the portable scalar code.  The
//! CPU features come from [`crate::cpu`], whose override variable
//! (`BLOSC2_RS_SIMD=scalar|sse2|avx2|avx512|neon`) caps the choice.
//!
//! Every kernel produces exactly the same bytes; they only differ in speed.

use crate::cpu::{self, Features};
use std::sync::OnceLock;

/// One implementation of the (bit)shuffle kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Portable code, no SIMD intrinsics.
    Scalar,
    /// 128-bit SSE2 intrinsics (x86_64 only).
    Sse2,
    /// 256-bit AVX2 intrinsics (x86_64 only).
    Avx2,
    /// 512-bit AVX-512 intrinsics (x86_64 only): needs AVX-512 F, BW and
    /// VBMI (byte permutes across the whole register) and GFNI (8x8 bit
    /// matrix transposes in one instruction), besides AVX2 for the parts it
    /// leaves to that kernel.  Ice Lake and later Intel cores, AMD Zen 4 and
    /// later.
    Avx512,
    /// 128-bit NEON (Advanced SIMD) intrinsics (aarch64 only).
    Neon,
}

impl Kernel {
    /// Every kernel this build knows about, whatever the target
    /// architecture; among those one CPU supports, slowest first.
    pub const ALL: [Kernel; 5] = [
        Kernel::Scalar,
        Kernel::Sse2,
        Kernel::Avx2,
        Kernel::Avx512,
        Kernel::Neon,
    ];

    /// Short lowercase name: "scalar", "sse2", "avx2", "avx512" or "neon".
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Scalar => "scalar",
            Kernel::Sse2 => "sse2",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
            Kernel::Neon => "neon",
        }
    }

    /// The kernel of a name as accepted by `BLOSC2_RS_SIMD` (case-insensitive).
    pub fn from_name(name: &str) -> Option<Kernel> {
        let wanted = name.trim();
        Kernel::ALL
            .iter()
            .copied()
            .find(|k| k.name().eq_ignore_ascii_case(wanted))
    }

    /// Whether a CPU with `features` can execute this kernel.  The
    /// features of another architecture are never set, so its kernels
    /// never qualify.
    pub fn runs_on(self, features: &Features) -> bool {
        let f = features;
        match self {
            Kernel::Scalar => true,
            Kernel::Sse2 => f.sse2,
            Kernel::Avx2 => f.avx2,
            Kernel::Avx512 => f.avx2 && f.avx512f && f.avx512bw && f.avx512vbmi && f.gfni,
            Kernel::Neon => f.neon,
        }
    }

    /// Whether the running CPU can execute this kernel (whatever the
    /// override variable says).
    pub fn is_supported(self) -> bool {
        self.runs_on(cpu::hardware())
    }

    /// The kernels the running CPU supports, slowest first.
    pub fn supported() -> Vec<Kernel> {
        Kernel::ALL
            .iter()
            .copied()
            .filter(|k| k.is_supported())
            .collect()
    }

    /// The fastest kernel the CPU supports.
    pub fn best() -> Kernel {
        *Kernel::supported().last().unwrap_or(&Kernel::Scalar)
    }

    /// This kernel if the CPU supports it, otherwise the best one that is
    /// no faster.  The SIMD entry points are only ever reached through the
    /// value returned here, which is what makes calling them sound.
    pub(crate) fn usable(self) -> Kernel {
        let mut k = self;
        while !k.is_supported() {
            k = match k {
                Kernel::Avx512 => Kernel::Avx2,
                Kernel::Avx2 => Kernel::Sse2,
                Kernel::Sse2 | Kernel::Neon | Kernel::Scalar => Kernel::Scalar,
            };
        }
        k
    }
}

/// The fastest kernel the features allowed by [`cpu::features`] run.
fn choose() -> Kernel {
    let allowed = cpu::features();
    Kernel::ALL
        .into_iter()
        .rev()
        .find(|k| k.runs_on(allowed))
        .unwrap_or(Kernel::Scalar)
}

/// The kernel used by the top-level filter functions (chosen once, cached).
pub fn active_kernel() -> Kernel {
    static ACTIVE: OnceLock<Kernel> = OnceLock::new();
    *ACTIVE.get_or_init(choose)
}

/// Name of the kernel in use: "scalar", "sse2", "avx2", "avx512" or "neon".
pub fn simd_kernel_name() -> &'static str {
    active_kernel().name()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in Kernel::ALL {
            assert_eq!(Kernel::from_name(k.name()), Some(k));
        }
        assert_eq!(Kernel::from_name("AVX2"), Some(Kernel::Avx2));
        assert_eq!(Kernel::from_name("AVX512"), Some(Kernel::Avx512));
        assert_eq!(Kernel::from_name(" Neon "), Some(Kernel::Neon));
        assert_eq!(Kernel::from_name("altivec"), None);
    }

    #[test]
    fn kernels_follow_the_architecture() {
        let supported = Kernel::supported();
        assert_eq!(supported[0], Kernel::Scalar);
        if cfg!(target_arch = "x86_64") {
            assert!(!Kernel::Neon.is_supported());
            assert_eq!(Kernel::Neon.usable(), Kernel::Scalar);
        } else if cfg!(target_arch = "aarch64") {
            assert!(!Kernel::Sse2.is_supported() && !Kernel::Avx2.is_supported());
            assert!(!Kernel::Avx512.is_supported());
            assert_eq!(Kernel::Avx2.usable(), Kernel::Scalar);
            assert_eq!(Kernel::Avx512.usable(), Kernel::Scalar);
            // Advanced SIMD is part of the baseline of every aarch64 target
            // the standard library ships for.
            assert!(Kernel::Neon.is_supported());
            assert_eq!(Kernel::best(), Kernel::Neon);
        } else {
            assert_eq!(supported, vec![Kernel::Scalar]);
        }
    }

    /// Prints the kernel in use (visible with `--nocapture`) and, when
    /// `BLOSC2_RS_EXPECT_SIMD` is set, checks that it is that one; the
    /// cross-compiled runs of `scripts/cross-aarch64.sh` rely on it.
    #[test]
    fn active_kernel_is_expected() {
        println!("simd kernel: {}", simd_kernel_name());
        if let Ok(want) = std::env::var("BLOSC2_RS_EXPECT_SIMD") {
            assert_eq!(simd_kernel_name(), want.trim().to_ascii_lowercase());
        }
    }

    #[test]
    fn usable_is_supported() {
        for k in Kernel::ALL {
            assert!(k.usable().is_supported());
        }
        assert!(Kernel::Scalar.is_supported());
        assert!(active_kernel().is_supported());
        assert_eq!(simd_kernel_name(), active_kernel().name());
    }
}
