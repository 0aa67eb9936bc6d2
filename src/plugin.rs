//! The interface between the engine and the codecs and filters plugged into
//! it (the built-in plugins as much as those registered at run time): what
//! a plugin is given when it is called ([`CallInfo`]), the traits it
//! implements ([`CodecPlugin`], [`FilterPlugin`]) and what it may ask of the
//! super-chunk the chunk belongs to ([`SchunkContext`]).
//!
//! A leaf of the module graph: the chunk pipeline, the codecs and the
//! filters all depend on it, and it on none of them.

use crate::format::b2nd_meta::{self, Markers, Shapes};
use std::sync::Arc;

/// Most dimensions of an [`ArrayShape`] (`B2ND_MAX_DIM`).
pub const ARRAY_MAX_DIM: usize = b2nd_meta::MAX_DIM;

/// What a plugin may ask of the super-chunk a chunk belongs to.  The C
/// layer implements it over a `blosc2_schunk` (whose fields C plugins read
/// themselves); [`std::any::Any`] lets it recover its own type.
pub trait SchunkContext: std::any::Any + Send + Sync {
    /// The super-chunk's typesize, `None` when it cannot be read.
    fn typesize(&self) -> Option<i32>;
    /// The content of the fixed-length metalayer `name`, `None` without one.
    fn metalayer(&self, name: &str) -> Option<Vec<u8>>;
    /// The chunk index the client says it is working on (the C field
    /// `current_nchunk`), handed to pre- and postfilters; -1 when unknown.
    fn current_nchunk(&self) -> i64 {
        -1
    }
}

/// The super-chunk context a chunk is compressed or decompressed for.
#[derive(Clone)]
pub struct SchunkRef(pub Arc<dyn SchunkContext>);

impl std::fmt::Debug for SchunkRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SchunkRef(..)")
    }
}

/// What a user codec or filter sees of the parameters when it is called
/// (the C layer rebuilds `blosc2_cparams` / `blosc2_dparams` from it).
#[derive(Debug, Clone, Default)]
pub struct CallInfo {
    /// Codec meta byte (or the filter's meta byte for filters).
    pub meta: u8,
    /// Codec id.
    pub compcode: u8,
    /// Typesize of the chunk.
    pub typesize: i32,
    /// Compression level.
    pub clevel: u8,
    /// Block size.
    pub blocksize: i32,
    /// Split mode.
    pub splitmode: i32,
    /// Threads.
    pub nthreads: i16,
    /// Whether dictionaries are on.
    pub use_dict: bool,
    /// Filter pipeline.
    pub filters: [u8; 6],
    /// Filter meta.
    pub filters_meta: [u8; 6],
    /// Opaque user pointer for codec parameters (C `codec_params`).
    pub codec_params: usize,
    /// Opaque user pointers for filter parameters (C `filter_params`).
    pub filter_params: [usize; 6],
    /// The super-chunk the chunk belongs to, when the caller named one.
    pub schunk: Option<SchunkRef>,
    /// The shapes of the n-dimensional array the chunk belongs to, when the
    /// engine knows them (set by `b2nd::NdArray`): the n-dimensional
    /// plugins (ndlz, ndcell, ndmean, zfp) read them here, and from the
    /// "b2nd" metalayer of `schunk` without them.
    pub array: Option<ArrayShape>,
}

/// The shape, chunk shape and block shape of an n-dimensional array, by
/// value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ArrayShape {
    ndim: u8,
    shape: [i64; ARRAY_MAX_DIM],
    chunkshape: [i32; ARRAY_MAX_DIM],
    blockshape: [i32; ARRAY_MAX_DIM],
}

impl ArrayShape {
    /// The three shapes (of one length, at most [`ARRAY_MAX_DIM`]).
    pub fn new(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Option<ArrayShape> {
        let nd = shape.len();
        if nd > ARRAY_MAX_DIM || chunkshape.len() != nd || blockshape.len() != nd {
            return None;
        }
        let mut a = ArrayShape {
            ndim: nd as u8,
            ..ArrayShape::default()
        };
        a.shape[..nd].copy_from_slice(shape);
        a.chunkshape[..nd].copy_from_slice(chunkshape);
        a.blockshape[..nd].copy_from_slice(blockshape);
        Some(a)
    }
    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.ndim as usize
    }
    /// The array's shape.
    pub fn shape(&self) -> &[i64] {
        &self.shape[..self.ndim()]
    }
    /// The chunk shape.
    pub fn chunkshape(&self) -> &[i32] {
        &self.chunkshape[..self.ndim()]
    }
    /// The block shape.
    pub fn blockshape(&self) -> &[i32] {
        &self.blockshape[..self.ndim()]
    }
    /// The three shapes as vectors.
    pub fn to_shapes(&self) -> Shapes {
        Shapes {
            shape: self.shape().to_vec(),
            chunkshape: self.chunkshape().to_vec(),
            blockshape: self.blockshape().to_vec(),
        }
    }
}

/// How a plugin reads the "b2nd" metalayer of the super-chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetaReading {
    /// The seven-entry form with every marker checked and no negative size.
    Strict,
    /// As the reference's `b2nd_deserialize_meta`: markers skipped, values
    /// taken as they are (see [`Markers::Skipped`]).
    AsReference,
}

impl CallInfo {
    /// Whether the block went through the byte shuffle (the codecs may pick
    /// their backend by it: see `zlib`).
    pub fn byte_shuffled(&self) -> bool {
        self.filters.contains(&crate::format::header::SHUFFLE)
    }

    /// Whether the caller gave the array shapes or a super-chunk to read
    /// them from.
    pub fn has_array_context(&self) -> bool {
        self.schunk.is_some() || self.array.is_some()
    }

    /// The typesize of the super-chunk, falling back to the typesize of the
    /// parameters when the super-chunk cannot tell or there are only the
    /// array shapes.  `None` without either.
    pub fn schunk_typesize(&self) -> Option<i32> {
        match &self.schunk {
            Some(s) => s.0.typesize().or(Some(self.typesize)),
            // An array known to the engine: the parameters' typesize is its own.
            None => self.array.map(|_| self.typesize),
        }
    }

    /// The shapes of the array the chunk belongs to: those the engine gave,
    /// otherwise those of the "b2nd" metalayer of the super-chunk, read as
    /// `reading` says.
    pub fn array_shapes(&self, reading: MetaReading) -> Option<Shapes> {
        if let Some(a) = &self.array {
            return Some(a.to_shapes());
        }
        let meta = self.schunk.as_ref()?.0.metalayer("b2nd")?;
        match reading {
            MetaReading::Strict => {
                if meta.first() != Some(&0x97) {
                    return None;
                }
                let s = b2nd_meta::read_shapes(&meta, Markers::Checked)?;
                (!s.any_negative()).then_some(s)
            }
            MetaReading::AsReference => b2nd_meta::read_shapes(&meta, Markers::Skipped),
        }
    }
}

/// A codec supplied by the user (the C layer wraps `blosc2_codec` in this).
pub trait CodecPlugin: Send + Sync {
    /// Compress `src` into `dest`; the number of bytes written, 0 if it does not fit,
    /// negative on error.
    fn encode(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, chunk: &[u8]) -> i32;
    /// Decompress `src` into `dest`; the number of bytes written or negative.
    fn decode(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, chunk: &[u8]) -> i32;
    /// Whether there is an implementation behind the codec: false for the
    /// placeholders (`codec::Unavailable`), which chunks cannot use and
    /// `blosc2_register_codec` may replace.
    fn available(&self) -> bool {
        true
    }
}

/// A filter plugged in by id (32..=255): built in or registered by a user.
pub trait FilterPlugin: Send + Sync {
    /// Apply the filter: `dest` gets `src.len()` bytes. Zero means success.
    fn forward(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, id: u8) -> i32;
    /// Undo the filter. Zero means success.
    fn backward(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, id: u8) -> i32;
}

/// One registered filter.
#[derive(Clone)]
pub struct RegisteredFilter {
    /// Id.
    pub id: u8,
    /// Name.
    pub name: String,
    /// Version.
    pub version: u8,
    /// Implementation.
    pub plugin: Arc<dyn FilterPlugin>,
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake(Option<Vec<u8>>);

    impl SchunkContext for Fake {
        fn typesize(&self) -> Option<i32> {
            Some(4)
        }
        fn metalayer(&self, name: &str) -> Option<Vec<u8>> {
            (name == "b2nd").then(|| self.0.clone()).flatten()
        }
    }

    fn with(meta: Option<Vec<u8>>) -> CallInfo {
        CallInfo {
            typesize: 2,
            schunk: Some(SchunkRef(Arc::new(Fake(meta)))),
            ..CallInfo::default()
        }
    }

    #[test]
    fn shapes_come_from_the_engine_or_the_metalayer() {
        let none = CallInfo::default();
        assert!(!none.has_array_context());
        assert_eq!(none.schunk_typesize(), None);
        assert_eq!(none.array_shapes(MetaReading::AsReference), None);

        let shape = ArrayShape::new(&[10, 4], &[5, 4], &[5, 2]).unwrap();
        let engine = CallInfo {
            typesize: 8,
            array: Some(shape),
            ..CallInfo::default()
        };
        assert_eq!(engine.schunk_typesize(), Some(8));
        assert_eq!(
            engine.array_shapes(MetaReading::Strict),
            Some(shape.to_shapes())
        );

        let meta = b2nd_meta::write(&[10, 4], &[5, 4], &[5, 2], "|u1", 0).unwrap();
        let c = with(Some(meta.clone()));
        assert_eq!(c.schunk_typesize(), Some(4));
        assert_eq!(c.array_shapes(MetaReading::Strict), Some(shape.to_shapes()));
        let mut caterva = meta.clone();
        caterva[0] = 0x96;
        let c = with(Some(caterva));
        assert_eq!(c.array_shapes(MetaReading::Strict), None);
        assert_eq!(
            c.array_shapes(MetaReading::AsReference),
            Some(shape.to_shapes())
        );
        let negative = b2nd_meta::write(&[-10, 4], &[5, 4], &[5, 2], "|u1", 0).unwrap();
        let c = with(Some(negative));
        assert_eq!(c.array_shapes(MetaReading::Strict), None);
        assert!(c.array_shapes(MetaReading::AsReference).is_some());
        assert_eq!(with(None).array_shapes(MetaReading::AsReference), None);
    }
}
