//! Compression and decompression parameters (the engine's view of
//! `blosc2_cparams` / `blosc2_dparams`).

use crate::format::header::{MAX_FILTERS, SHUFFLE};
use crate::plugin::{CallInfo, SchunkRef};
use std::sync::Arc;

/// How blocks are split into per-byte streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitMode {
    /// Always split (when the layout allows it).
    Always = 1,
    /// Never split.
    Never = 2,
    /// Split when the codec and filters usually gain from it.
    Auto = 3,
    /// Like Auto; the default, chosen for readers of older versions.
    ForwardCompat = 4,
}

impl SplitMode {
    /// From the C integer value (unknown values behave as ForwardCompat, as in the reference).
    pub fn from_i32(v: i32) -> SplitMode {
        match v {
            1 => SplitMode::Always,
            2 => SplitMode::Never,
            3 => SplitMode::Auto,
            _ => SplitMode::ForwardCompat,
        }
    }
}

/// Arguments handed to a prefilter for one block.
pub struct PrefilterArgs<'a> {
    /// The source from this block's start to the end of the buffer.
    pub input: &'a [u8],
    /// Where the prefilter writes the block.
    pub output: &'a mut [u8],
    /// Bytes the prefilter should produce.
    pub output_size: i32,
    /// Typesize of the output.
    pub output_typesize: i32,
    /// Offset of this block in the chunk.
    pub output_offset: i32,
    /// Block index.
    pub nblock: i32,
    /// Chunk index in the associated super-chunk, -1 without one.
    pub nchunk: i64,
    /// Worker id.
    pub tid: i32,
    /// Per-thread scratch.
    pub scratch: &'a mut [u8],
    /// Whether the output will be thrown away.
    pub output_is_disposable: bool,
}

/// A function run on each block before the filters (C `blosc2_prefilter_fn`).
pub trait Prefilter: Send + Sync {
    /// Fill `args.output`; non-zero means failure.
    fn apply(&self, args: PrefilterArgs<'_>) -> i32;
    /// Whether the output is disposable (the chunk content does not matter).
    fn output_is_disposable(&self) -> bool {
        false
    }
    /// Output typesize requested (0 = same as input).
    fn output_typesize(&self) -> i32 {
        0
    }
}

/// Arguments handed to a postfilter for one block.
pub struct PostfilterArgs<'a> {
    /// The decoded block.
    pub input: &'a [u8],
    /// Where the block goes.
    pub output: &'a mut [u8],
    /// Typesize.
    pub typesize: i32,
    /// Offset of the block in the chunk.
    pub offset: i32,
    /// Block index.
    pub nblock: i32,
    /// Chunk index, -1 without a super-chunk.
    pub nchunk: i64,
    /// Worker id.
    pub tid: i32,
    /// Per-thread scratch.
    pub scratch: &'a mut [u8],
}

/// A function run on each block after the filters (C `blosc2_postfilter_fn`).
pub trait Postfilter: Send + Sync {
    /// Fill `args.output`; non-zero means failure.
    fn apply(&self, args: PostfilterArgs<'_>) -> i32;
}

/// Compression parameters.
#[derive(Clone)]
pub struct CParams {
    /// Codec id.
    pub compcode: u8,
    /// Codec meta byte.
    pub compcode_meta: u8,
    /// Compression level 0..=9.
    pub clevel: u8,
    /// Train and store a dictionary (zstd, lz4, lz4hc).
    pub use_dict: bool,
    /// Size of the items.
    pub typesize: i32,
    /// Threads.
    pub nthreads: i16,
    /// Block size (0 = automatic).
    pub blocksize: i32,
    /// Split mode.
    pub splitmode: SplitMode,
    /// Filter pipeline.
    pub filters: [u8; MAX_FILTERS],
    /// Filter meta.
    pub filters_meta: [u8; MAX_FILTERS],
    /// Optional prefilter.
    pub prefilter: Option<Arc<dyn Prefilter>>,
    /// Tuner id (0 = stune).
    pub tuner_id: i32,
    /// Instrumented codec (development feature).
    pub instr_codec: bool,
    /// Opaque pointers passed through to plugins.
    pub codec_params: usize,
    /// Opaque pointers passed through to filter plugins.
    pub filter_params: [usize; MAX_FILTERS],
    /// The super-chunk the chunk is compressed for, which plugins may ask
    /// for its typesize and metalayers.
    pub schunk: Option<SchunkRef>,
    /// Chunk index within the super-chunk, for prefilters.
    pub nchunk: i64,
    /// The shapes of the n-dimensional array being compressed, for the
    /// n-dimensional plugins (see [`CallInfo::array`]).
    pub array: Option<crate::codec::ArrayShape>,
}

impl Default for CParams {
    fn default() -> Self {
        CParams {
            compcode: crate::codec::BLOSCLZ,
            compcode_meta: 0,
            clevel: 5,
            use_dict: false,
            typesize: 8,
            nthreads: 1,
            blocksize: 0,
            splitmode: SplitMode::ForwardCompat,
            filters: [0, 0, 0, 0, 0, SHUFFLE],
            filters_meta: [0; MAX_FILTERS],
            prefilter: None,
            tuner_id: 0,
            instr_codec: false,
            codec_params: 0,
            filter_params: [0; MAX_FILTERS],
            schunk: None,
            nchunk: -1,
            array: None,
        }
    }
}

impl std::fmt::Debug for CParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CParams")
            .field("compcode", &self.compcode)
            .field("clevel", &self.clevel)
            .field("typesize", &self.typesize)
            .field("nthreads", &self.nthreads)
            .field("blocksize", &self.blocksize)
            .field("splitmode", &self.splitmode)
            .field("filters", &self.filters)
            .field("filters_meta", &self.filters_meta)
            .field("use_dict", &self.use_dict)
            .finish()
    }
}

impl CParams {
    /// These parameters as a compression for a super-chunk's client runs
    /// them: with a prefilter and a super-chunk, the prefilter is told the
    /// chunk index the super-chunk reports as current (as the reference
    /// does); otherwise they are used as they are.
    pub fn with_current_nchunk(&self) -> std::borrow::Cow<'_, CParams> {
        match (&self.prefilter, &self.schunk) {
            (Some(_), Some(schunk)) => std::borrow::Cow::Owned(CParams {
                nchunk: schunk.0.current_nchunk(),
                ..self.clone()
            }),
            _ => std::borrow::Cow::Borrowed(self),
        }
    }

    /// The plugin-facing view.
    pub fn call_info(&self, meta: u8) -> CallInfo {
        CallInfo {
            meta,
            compcode: self.compcode,
            typesize: self.typesize,
            clevel: self.clevel,
            blocksize: self.blocksize,
            splitmode: self.splitmode as i32,
            nthreads: self.nthreads,
            use_dict: self.use_dict,
            filters: self.filters,
            filters_meta: self.filters_meta,
            codec_params: self.codec_params,
            filter_params: self.filter_params,
            schunk: self.schunk.clone(),
            array: self.array,
        }
    }
}

/// Decompression parameters.
#[derive(Clone)]
pub struct DParams {
    /// Threads.
    pub nthreads: i16,
    /// Optional postfilter.
    pub postfilter: Option<Arc<dyn Postfilter>>,
    /// Typesize hint (used by plugins only).
    pub typesize: i32,
    /// The super-chunk the chunk is decompressed for (see
    /// [`CParams::schunk`]).
    pub schunk: Option<SchunkRef>,
    /// Chunk index within the super-chunk, for postfilters.
    pub nchunk: i64,
    /// The shapes of the n-dimensional array being decompressed, for the
    /// n-dimensional plugins (see [`CallInfo::array`]).
    pub array: Option<crate::codec::ArrayShape>,
}

impl Default for DParams {
    fn default() -> Self {
        DParams {
            nthreads: 1,
            postfilter: None,
            typesize: 8,
            schunk: None,
            nchunk: -1,
            array: None,
        }
    }
}

impl DParams {
    /// As [`CParams::with_current_nchunk`], for a postfilter.
    pub fn with_current_nchunk(&self) -> std::borrow::Cow<'_, DParams> {
        match (&self.postfilter, &self.schunk) {
            (Some(_), Some(schunk)) => std::borrow::Cow::Owned(DParams {
                nchunk: schunk.0.current_nchunk(),
                ..self.clone()
            }),
            _ => std::borrow::Cow::Borrowed(self),
        }
    }
}

impl std::fmt::Debug for DParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DParams")
            .field("nthreads", &self.nthreads)
            .field("typesize", &self.typesize)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::SchunkContext;

    struct AtChunk(i64);
    impl SchunkContext for AtChunk {
        fn typesize(&self) -> Option<i32> {
            None
        }
        fn metalayer(&self, _name: &str) -> Option<Vec<u8>> {
            None
        }
        fn current_nchunk(&self) -> i64 {
            self.0
        }
    }

    struct Noop;
    impl Prefilter for Noop {
        fn apply(&self, _args: PrefilterArgs<'_>) -> i32 {
            0
        }
    }
    impl Postfilter for Noop {
        fn apply(&self, _args: PostfilterArgs<'_>) -> i32 {
            0
        }
    }

    #[test]
    fn filters_see_the_super_chunks_current_chunk_only_with_both() {
        let schunk = Some(SchunkRef(Arc::new(AtChunk(7))));
        let plain = CParams {
            schunk: schunk.clone(),
            ..CParams::default()
        };
        assert_eq!(plain.with_current_nchunk().nchunk, -1);
        let orphan = CParams {
            prefilter: Some(Arc::new(Noop)),
            ..CParams::default()
        };
        assert_eq!(orphan.with_current_nchunk().nchunk, -1);
        let both = CParams {
            prefilter: Some(Arc::new(Noop)),
            schunk: schunk.clone(),
            ..CParams::default()
        };
        assert_eq!(both.with_current_nchunk().nchunk, 7);
        let d = DParams {
            postfilter: Some(Arc::new(Noop)),
            schunk,
            ..DParams::default()
        };
        assert_eq!(d.with_current_nchunk().nchunk, 7);
        assert_eq!(DParams::default().with_current_nchunk().nchunk, -1);
    }
}
