//! Contexts as C sees them, and the bridges from C callbacks to engine traits.

use super::types::*;
use crate::chunk::env::EnvOverrides;
use crate::chunk::{
    CParams, DParams, Postfilter, PostfilterArgs, Prefilter, PrefilterArgs, SplitMode,
};
use crate::plugin::CallInfo;
use std::os::raw::c_int;
use std::sync::Arc;

/// What `blosc2_create_cctx` / `blosc2_create_dctx` return.
pub struct Context {
    pub(crate) compress: bool,
    pub(crate) cparams: CParams,
    pub(crate) dparams: DParams,
    /// The C parameters as given (returned by `blosc2_ctx_get_*params`).
    pub(crate) c_cparams: blosc2_cparams,
    pub(crate) c_dparams: blosc2_dparams,
    pub(crate) maskout: Option<Vec<bool>>,
    /// Our copy of the prefilter parameters (the reference copies them too).
    pub(crate) preparams: Option<Box<blosc2_prefilter_params>>,
    /// Unique for the life of the process: tells a super-chunk whether the
    /// context in its `cctx`/`dctx` field is the one it last read, even when a
    /// replacement was allocated at the freed one's address.
    pub(crate) id: u64,
}

/// The id of the next context built.
static NEXT_CONTEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn next_context_id() -> u64 {
    NEXT_CONTEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// What the prefilter and postfilter parameter blocks share: where the
/// block's input and output are, which block of which chunk, the worker's
/// scratch buffer and the context.
#[derive(Clone, Copy)]
struct BlockPlace {
    input: *const u8,
    output: *mut u8,
    nchunk: i64,
    nblock: i32,
    tid: i32,
    ttmp: *mut u8,
    ttmp_nbytes: usize,
    ctx: *mut blosc2_context,
}

impl BlockPlace {
    /// Block `nblock` of chunk `nchunk`, run by worker `tid` of context `ctx`.
    fn new(
        (input, output, scratch): (&[u8], &mut [u8], &mut [u8]),
        (nchunk, nblock, tid): (i64, i32, i32),
        ctx: *mut blosc2_context,
    ) -> BlockPlace {
        BlockPlace {
            input: input.as_ptr(),
            output: output.as_mut_ptr(),
            nchunk,
            nblock,
            tid,
            ttmp: scratch.as_mut_ptr(),
            ttmp_nbytes: scratch.len(),
            ctx,
        }
    }
}

/// A prefilter or postfilter parameter block: the [`BlockPlace`] fields
/// and fields of its own.
trait BlockParams: Copy {
    /// The block with no user data and no place (chunk -1), its own fields zero.
    fn empty() -> Self;
    /// This block pointed at `at`.
    fn placed(self, at: BlockPlace) -> Self;
}

/// [`BlockParams`] for a parameter block type with the [`BlockPlace`]
/// fields, given the zero values of its own fields.
macro_rules! block_params {
    ($t:ident { $($own:ident: $zero:expr),* }) => {
        impl BlockParams for $t {
            fn empty() -> Self {
                $t {
                    user_data: std::ptr::null_mut(),
                    input: std::ptr::null(),
                    output: std::ptr::null_mut(),
                    nchunk: -1,
                    nblock: 0,
                    tid: 0,
                    ttmp: std::ptr::null_mut(),
                    ttmp_nbytes: 0,
                    ctx: std::ptr::null_mut(),
                    $($own: $zero),*
                }
            }
            fn placed(self, at: BlockPlace) -> Self {
                $t {
                    input: at.input,
                    output: at.output,
                    nchunk: at.nchunk,
                    nblock: at.nblock,
                    tid: at.tid,
                    ttmp: at.ttmp,
                    ttmp_nbytes: at.ttmp_nbytes,
                    ctx: at.ctx,
                    ..self
                }
            }
        }
    };
}

block_params!(blosc2_prefilter_params {
    output_size: 0,
    output_typesize: 0,
    output_offset: 0,
    output_is_disposable: false
});
block_params!(blosc2_postfilter_params {
    size: 0,
    typesize: 0,
    offset: 0
});

/// A C prefilter or postfilter (`P`, its parameter block), called once per
/// block with a copy of the parameters it was given.
struct CBlockHook<P> {
    f: unsafe extern "C" fn(*mut P) -> i32,
    params: P,
    ctx: usize,
}
// SAFETY: the C caller promises its pre/postfilter may run on worker threads
// (as with the reference, which calls them from its own pool); we only pass
// copies.
unsafe impl<P> Send for CBlockHook<P> {}
// SAFETY: see above; the struct is read-only once built.
unsafe impl<P> Sync for CBlockHook<P> {}

impl<P: BlockParams> CBlockHook<P> {
    /// The hook `f` of context `ctx`, with a copy of the parameter block at
    /// `params` (an empty one for NULL).
    ///
    /// # Safety
    /// `params` must be NULL or point at a valid parameter block.
    unsafe fn new(f: unsafe extern "C" fn(*mut P) -> i32, params: *const P, ctx: &Context) -> Self {
        // SAFETY: guaranteed by the caller.
        let params = unsafe { params.as_ref() }.copied().unwrap_or_else(P::empty);
        CBlockHook {
            f,
            params,
            ctx: ctx as *const Context as usize,
        }
    }

    /// Call the hook on a copy of its parameters pointed at `buffers`
    /// (input, output, scratch) and block `index` (nchunk, nblock, tid),
    /// and completed by `fill`.
    fn call(
        &self,
        buffers: (&[u8], &mut [u8], &mut [u8]),
        index: (i64, i32, i32),
        fill: impl FnOnce(&mut P),
    ) -> i32 {
        let at = BlockPlace::new(buffers, index, self.ctx as *mut blosc2_context);
        let mut p = self.params.placed(at);
        fill(&mut p);
        // SAFETY: the function pointer came from the C caller; the parameter
        // block lives on our stack and its buffers are live slices of the
        // right sizes for the duration of the call.
        unsafe { (self.f)(&mut p) }
    }
}

/// A C prefilter.
type CPrefilter = CBlockHook<blosc2_prefilter_params>;
/// A C postfilter.
type CPostfilter = CBlockHook<blosc2_postfilter_params>;

impl Prefilter for CPrefilter {
    fn apply(&self, a: PrefilterArgs<'_>) -> i32 {
        self.call(
            (a.input, a.output, a.scratch),
            (a.nchunk, a.nblock, a.tid),
            |p| {
                p.output_size = a.output_size;
                p.output_typesize = a.output_typesize;
                p.output_offset = a.output_offset;
                p.output_is_disposable = a.output_is_disposable;
            },
        )
    }
    fn output_is_disposable(&self) -> bool {
        self.params.output_is_disposable
    }
    fn output_typesize(&self) -> i32 {
        self.params.output_typesize
    }
}

impl Postfilter for CPostfilter {
    fn apply(&self, a: PostfilterArgs<'_>) -> i32 {
        let size = a.input.len() as i32;
        self.call(
            (a.input, a.output, a.scratch),
            (a.nchunk, a.nblock, a.tid),
            |p| {
                p.size = size;
                p.typesize = a.typesize;
                p.offset = a.offset;
            },
        )
    }
}

/// The reference's `BLOSC2_CPARAMS_DEFAULTS`.
pub fn cparams_defaults() -> blosc2_cparams {
    blosc2_cparams {
        compcode: 0,
        compcode_meta: 0,
        clevel: 5,
        use_dict: 0,
        typesize: 8,
        nthreads: 1,
        blocksize: 0,
        splitmode: SplitMode::ForwardCompat as i32,
        schunk: std::ptr::null_mut(),
        filters: [0, 0, 0, 0, 0, 1],
        filters_meta: [0; 6],
        prefilter: None,
        preparams: std::ptr::null_mut(),
        tuner_params: std::ptr::null_mut(),
        tuner_id: 0,
        instr_codec: false,
        codec_params: std::ptr::null_mut(),
        filter_params: [std::ptr::null_mut(); 6],
    }
}

/// The reference's `BLOSC2_DPARAMS_DEFAULTS`.
pub fn dparams_defaults() -> blosc2_dparams {
    blosc2_dparams {
        nthreads: 1,
        schunk: std::ptr::null_mut(),
        postfilter: None,
        postparams: std::ptr::null_mut(),
        typesize: 8,
    }
}

/// `c` with the fields that describe a compression the way a plugin call
/// sees it (codec and its meta byte, level, sizes, threads, split mode,
/// filters); the pointers of `c` stay as they are.
pub(crate) fn with_call_fields(c: blosc2_cparams, info: &CallInfo) -> blosc2_cparams {
    blosc2_cparams {
        compcode: info.compcode,
        compcode_meta: info.meta,
        clevel: info.clevel,
        use_dict: info.use_dict as c_int,
        typesize: info.typesize,
        nthreads: info.nthreads,
        blocksize: info.blocksize,
        splitmode: info.splitmode,
        filters: info.filters,
        filters_meta: info.filters_meta,
        ..c
    }
}

/// Engine parameters from C ones, applying the environment overrides that
/// `blosc2_create_cctx` honours. `None` when the reference returns NULL.
pub fn cparams_from_c(c: &blosc2_cparams, apply_env: bool) -> Option<CParams> {
    let mut p = CParams {
        compcode: c.compcode,
        compcode_meta: c.compcode_meta,
        clevel: c.clevel,
        use_dict: c.use_dict != 0,
        typesize: c.typesize,
        nthreads: c.nthreads,
        blocksize: c.blocksize,
        splitmode: SplitMode::from_i32(c.splitmode),
        filters: c.filters,
        filters_meta: c.filters_meta,
        prefilter: None,
        tuner_id: c.tuner_id,
        instr_codec: c.instr_codec,
        codec_params: c.codec_params as usize,
        filter_params: c.filter_params.map(|p| p as usize),
        schunk: super::plugins::schunk_ref(c.schunk as usize),
        nchunk: -1,
        // C finds the array's shapes through `schunk`.
        array: None,
    };
    if !crate::chunk::user_filter::pipeline_usable(&p.filters) {
        return None;
    }
    if apply_env {
        EnvOverrides::from_env().apply(&mut p).ok()?;
    }
    Some(p)
}

impl Context {
    /// Build a compression context (boxed so its address can go into callbacks).
    pub fn new_compress(c: &blosc2_cparams) -> Option<Box<Context>> {
        let cparams = cparams_from_c(c, true)?;
        let mut ctx = Box::new(Context {
            compress: true,
            cparams,
            dparams: DParams::default(),
            c_cparams: *c,
            c_dparams: dparams_defaults(),
            maskout: None,
            preparams: None,
            id: next_context_id(),
        });
        if let Some(f) = c.prefilter {
            // SAFETY: blosc2.h requires preparams to be NULL or valid with a
            // prefilter; it is copied, like the reference does.
            let hook = unsafe { CPrefilter::new(f, c.preparams, &ctx) };
            ctx.preparams = Some(Box::new(hook.params));
            ctx.cparams.prefilter = Some(Arc::new(hook));
        }
        Some(ctx)
    }

    /// The compression parameters as `blosc2_ctx_get_cparams` returns them:
    /// the C ones given, with what the context holds now.
    pub(crate) fn cparams_as_c(&mut self) -> blosc2_cparams {
        let info = self.cparams.call_info(self.cparams.compcode_meta);
        let mut out = with_call_fields(self.c_cparams, &info);
        if let Some(pp) = self.preparams.as_mut() {
            out.preparams = &mut **pp;
        }
        out
    }

    /// The decompression parameters as `blosc2_ctx_get_dparams` returns them.
    pub(crate) fn dparams_as_c(&mut self) -> blosc2_dparams {
        blosc2_dparams {
            nthreads: self.dparams.nthreads,
            ..self.c_dparams
        }
    }

    /// Build a decompression context.
    pub fn new_decompress(d: &blosc2_dparams) -> Box<Context> {
        let mut dparams = DParams {
            nthreads: d.nthreads,
            postfilter: None,
            typesize: d.typesize,
            schunk: super::plugins::schunk_ref(d.schunk as usize),
            nchunk: -1,
            array: None,
        };
        dparams.nthreads = EnvOverrides::from_env().decompress_nthreads(dparams.nthreads);
        let mut ctx = Box::new(Context {
            compress: false,
            cparams: CParams::default(),
            dparams,
            c_cparams: cparams_defaults(),
            c_dparams: *d,
            maskout: None,
            preparams: None,
            id: next_context_id(),
        });
        if let Some(f) = d.postfilter {
            // SAFETY: blosc2.h requires postparams to be NULL or valid with a
            // postfilter; it is copied here.
            let hook = unsafe { CPostfilter::new(f, d.postparams, &ctx) };
            ctx.dparams.postfilter = Some(Arc::new(hook));
        }
        ctx
    }
}
