//! Run-time selection of the SIMD kernel used by the shuffle filters.
//!
//! The best kernel the CPU supports is picked once (AVX2, then SSE2, then the
//! portable scalar code) and cached.  The environment variable
//! `BLOSC2_RS_SIMD=scalar|sse2|avx2` overrides the choice when the CPU can run
//! the requested kernel; otherwise it is ignored.
//!
//! Every kernel produces exactly the same bytes; they only differ in speed.

use once_cell::sync::OnceCell;

/// One implementation of the (bit)shuffle kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Portable code, no SIMD intrinsics.
    Scalar,
    /// 128-bit SSE2 intrinsics (x86_64 only).
    Sse2,
    /// 256-bit AVX2 intrinsics (x86_64 only).
    Avx2,
}

impl Kernel {
    /// Every kernel this build knows about, slowest first.
    pub const ALL: [Kernel; 3] = [Kernel::Scalar, Kernel::Sse2, Kernel::Avx2];

    /// Short lowercase name: "scalar", "sse2" or "avx2".
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Scalar => "scalar",
            Kernel::Sse2 => "sse2",
            Kernel::Avx2 => "avx2",
        }
    }

    /// Parse a name as accepted by `BLOSC2_RS_SIMD` (case-insensitive).
    pub fn from_name(name: &str) -> Option<Kernel> {
        let wanted = name.trim();
        Kernel::ALL
            .iter()
            .copied()
            .find(|k| k.name().eq_ignore_ascii_case(wanted))
    }

    /// Whether the running CPU can execute this kernel.
    pub fn is_supported(self) -> bool {
        match self {
            Kernel::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => std::is_x86_feature_detected!("sse2"),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => std::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
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
                Kernel::Avx2 => Kernel::Sse2,
                _ => Kernel::Scalar,
            };
        }
        k
    }
}

static ACTIVE: OnceCell<Kernel> = OnceCell::new();

fn choose() -> Kernel {
    if let Ok(value) = std::env::var("BLOSC2_RS_SIMD") {
        if let Some(k) = Kernel::from_name(&value) {
            if k.is_supported() {
                return k;
            }
        }
    }
    Kernel::best()
}

/// The kernel used by the top-level filter functions (chosen once, cached).
pub fn active_kernel() -> Kernel {
    *ACTIVE.get_or_init(choose)
}

/// Name of the kernel in use: "scalar", "sse2" or "avx2".
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
        assert_eq!(Kernel::from_name("neon"), None);
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
