//! The process-wide settings of the global (non-context) calls, as the
//! reference keeps them: codec, delta, thread count, block size and split
//! mode, which `blosc1_set_*`/`blosc2_set_*` change and `BLOSC_*`
//! environment variables override at each global compression.
//!
//! Global compressions and decompressions run one at a time, as the
//! reference runs them, unless `BLOSC_NOLOCK` is set.

use super::env::EnvOverrides;
use super::params::{CParams, DParams, SplitMode};
use crate::error::{Error, Result};
use crate::format::header::{ChunkHeader, DELTA};
use std::sync::{Mutex, MutexGuard};

/// The settings of the global calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlobalSettings {
    pub compcode: u8,
    pub delta: bool,
    pub nthreads: i16,
    pub blocksize: i32,
    /// The C value of the split mode (any integer; unknown ones act as
    /// forward-compatible).
    pub splitmode: i32,
    /// Between `blosc2_init` and `blosc2_destroy`.
    pub initialized: bool,
}

impl GlobalSettings {
    /// The settings of a process that changed nothing.
    pub const DEFAULT: GlobalSettings = GlobalSettings {
        compcode: crate::codec::BLOSCLZ,
        delta: false,
        nthreads: 1,
        blocksize: 0,
        splitmode: SplitMode::ForwardCompat as i32,
        initialized: false,
    };

    /// Select the codec called `name`; its code, or `NotFound`.
    pub fn set_compressor(&mut self, name: &str) -> Result<u8> {
        let c = crate::codec::code_of(name).ok_or(Error::NotFound)?;
        self.compcode = c;
        Ok(c)
    }

    /// Set the thread count; the previous one. Zero or less is `InvalidParam`.
    pub fn set_nthreads(&mut self, nthreads: i16) -> Result<i16> {
        if nthreads <= 0 {
            return Err(Error::InvalidParam);
        }
        Ok(std::mem::replace(&mut self.nthreads, nthreads))
    }

    /// Set the block size (0: automatic), capped at `i32::MAX`.
    pub fn set_blocksize(&mut self, blocksize: usize) {
        self.blocksize = blocksize.min(i32::MAX as usize) as i32;
    }

    /// Take in the environment at a global compression: the variables that
    /// name a setting change it for the process (as with the reference);
    /// the others override this call's `clevel`, `doshuffle` and `typesize`,
    /// returned.
    pub fn apply_env(
        &mut self,
        env: &EnvOverrides,
        clevel: i32,
        doshuffle: i32,
        typesize: i32,
    ) -> (i32, i32, i32) {
        let clevel = env.clevel.filter(|&v| v >= 0).map_or(clevel, |v| v as i32);
        let doshuffle = env.shuffle.map_or(doshuffle, i32::from);
        if let Some(d) = env.delta {
            self.delta = d;
        }
        let typesize = env
            .typesize
            .filter(|&v| v > 0)
            .map_or(typesize, |v| v as i32);
        if let Some(name) = &env.compressor {
            // An unknown name leaves the codec as it is.
            let _ = self.set_compressor(name);
        }
        if let Some(v) = env.blocksize.filter(|&v| v > 0) {
            self.set_blocksize(v as usize);
        }
        if let Some(v) = env.nthreads.filter(|&v| v > 0) {
            self.nthreads = v.min(i16::MAX as i64) as i16;
        }
        if let Some(m) = env.splitmode {
            self.splitmode = m as i32;
        }
        (clevel, doshuffle, typesize)
    }

    /// The parameters of a global compression at `clevel` with the blosc1
    /// shuffle switch (0 none, 1 byte shuffle for items over one byte,
    /// 2 bit shuffle) and `typesize`.
    pub fn cparams(&self, clevel: u8, doshuffle: i32, typesize: i32) -> CParams {
        let mut filters = [0u8; 6];
        if doshuffle == 1 && typesize > 1 {
            filters[5] = 1;
        }
        if doshuffle == 2 {
            filters[5] = 2;
        }
        if self.delta {
            filters[4] = DELTA;
        }
        CParams {
            compcode: self.compcode,
            clevel,
            typesize,
            nthreads: self.nthreads,
            blocksize: self.blocksize,
            splitmode: SplitMode::from_i32(self.splitmode),
            filters,
            ..CParams::default()
        }
    }

    /// The parameters of a global decompression.
    pub fn dparams(&self) -> DParams {
        DParams {
            nthreads: self.nthreads,
            ..DParams::default()
        }
    }
}

static SETTINGS: Mutex<GlobalSettings> = Mutex::new(GlobalSettings::DEFAULT);

/// Serializes the global compressions and decompressions.
static GLOBAL_CALL: Mutex<()> = Mutex::new(());

/// The process-wide settings, locked for the caller.
pub fn settings() -> MutexGuard<'static, GlobalSettings> {
    SETTINGS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Hold the global-call lock unless `BLOSC_NOLOCK` is set.
fn call_lock() -> Option<MutexGuard<'static, ()>> {
    if std::env::var_os("BLOSC_NOLOCK").is_some() {
        None
    } else {
        Some(GLOBAL_CALL.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Compress `src` into `dest` with the global settings: what
/// `blosc2_compress` does once the environment was taken in
/// ([`GlobalSettings::apply_env`]) and its buffers checked. A `clevel`
/// outside 0..=9 is `CodecParam`; with `BLOSC_BLOSC1_COMPAT` set (and
/// `BLOSC_NOLOCK` not), the chunk is written as Blosc1 writes it.
pub fn compress(
    clevel: i32,
    doshuffle: i32,
    typesize: i32,
    src: &[u8],
    dest: &mut [u8],
) -> Result<usize> {
    if !(0..=9).contains(&clevel) {
        return Err(Error::CodecParam);
    }
    let params = settings().cparams(clevel as u8, doshuffle, typesize);
    let blosc1 = std::env::var_os("BLOSC_BLOSC1_COMPAT").is_some()
        && std::env::var_os("BLOSC_NOLOCK").is_none();
    let _lock = call_lock();
    if blosc1 {
        super::compress_into_blosc1(&params, src, dest)
    } else {
        super::compress_into(&params, src, dest)
    }
}

/// Decompress the chunk `src` into `dest` with the global settings.
pub fn decompress(src: &[u8], dest: &mut [u8]) -> Result<usize> {
    let dparams = settings().dparams();
    let _lock = call_lock();
    super::decompress_into(&dparams, src, dest)
}

/// The type size, input size and destination size a blosc1 call's
/// `size_t` arguments give the blosc2 call it forwards to: an input over
/// `i32::MAX` bytes is `MaxBufsizeExceeded`; a larger type size or
/// destination is taken as `i32::MAX`.
pub fn blosc1_sizes(typesize: usize, nbytes: usize, destsize: usize) -> Result<(i32, i32, i32)> {
    let nbytes = i32::try_from(nbytes).map_err(|_| Error::MaxBufsizeExceeded)?;
    Ok((clamp_i32(typesize), nbytes, clamp_i32(destsize)))
}

/// The destination size of a blosc1 getitem, which gives none: `nitems`
/// items (none for a negative count) of the type size of the chunk's
/// `header` (0 without a valid header), at most `i32::MAX` bytes.
pub fn blosc1_getitem_destsize(header: Option<&ChunkHeader>, nitems: i32) -> i32 {
    let typesize = header.map_or(0, |h| i64::from(h.typesize));
    (nitems.max(0) as i64)
        .saturating_mul(typesize)
        .min(i32::MAX as i64) as i32
}

/// `n`, or `i32::MAX` when larger: a blosc1 `size_t` as a blosc2 `int32_t`.
pub fn clamp_i32(n: usize) -> i32 {
    n.min(i32::MAX as usize) as i32
}

/// The thread count `BLOSC_NTHREADS` asks of a global decompression, set
/// for the process; a value that is not a positive `i16` is `InvalidParam`.
pub fn apply_decompress_env(env: &EnvOverrides) -> Result<()> {
    if let Some(v) = env.nthreads {
        if v <= 0 || v > i16::MAX as i64 {
            return Err(Error::InvalidParam);
        }
        settings().nthreads = v as i16;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blosc1_sizes_refuse_a_large_input_and_clamp_the_rest() {
        let big = i32::MAX as usize + 1;
        assert_eq!(blosc1_sizes(4, 100, 200), Ok((4, 100, 200)));
        assert_eq!(blosc1_sizes(big, 100, big), Ok((i32::MAX, 100, i32::MAX)));
        assert_eq!(blosc1_sizes(4, big, 200), Err(Error::MaxBufsizeExceeded));
        assert_eq!(clamp_i32(usize::MAX), i32::MAX);
    }

    #[test]
    fn a_blosc1_getitem_destination_holds_the_items_asked_for() {
        let h = ChunkHeader {
            typesize: 8,
            ..ChunkHeader::default()
        };
        assert_eq!(blosc1_getitem_destsize(Some(&h), 10), 80);
        assert_eq!(blosc1_getitem_destsize(Some(&h), -3), 0);
        assert_eq!(blosc1_getitem_destsize(None, 10), 0);
        assert_eq!(blosc1_getitem_destsize(Some(&h), i32::MAX), i32::MAX);
    }

    #[test]
    fn the_environment_changes_the_settings_and_the_call() {
        let mut g = GlobalSettings::DEFAULT;
        let env = EnvOverrides {
            clevel: Some(7),
            shuffle: Some(2),
            delta: Some(true),
            typesize: Some(2),
            compressor: Some("lz4".into()),
            blocksize: Some(1 << 40),
            nthreads: Some(4),
            splitmode: Some(SplitMode::Never),
        };
        assert_eq!(g.apply_env(&env, 5, 1, 8), (7, 2, 2));
        assert!(g.delta);
        assert_eq!(g.compcode, crate::codec::LZ4);
        assert_eq!(g.blocksize, i32::MAX);
        assert_eq!(g.nthreads, 4);
        let p = g.cparams(7, 2, 2);
        assert_eq!(p.filters[5], 2);
        assert_eq!(p.filters[4], DELTA);
        assert_eq!(p.splitmode, SplitMode::Never);
        // Nothing set: nothing changes.
        let mut h = GlobalSettings::DEFAULT;
        assert_eq!(h.apply_env(&EnvOverrides::default(), 5, 1, 8), (5, 1, 8));
        assert_eq!(h, GlobalSettings::DEFAULT);
    }

    #[test]
    fn byte_shuffle_needs_items_over_one_byte() {
        let g = GlobalSettings::DEFAULT;
        assert_eq!(g.cparams(5, 1, 1).filters[5], 0);
        assert_eq!(g.cparams(5, 1, 4).filters[5], 1);
        assert!(g.clone().set_nthreads(0).is_err());
        assert!(compress(10, 0, 1, &[1], &mut [0u8; 64]).is_err());
    }
}
