/*
 * capi-tests/abi/all_names.c -- every public name of the c-blosc2 3.3.5
 * headers, used once with its exact reference type.
 *
 * Compile-only check (no linking):
 *   gcc -std=c11 -Wall -Werror -I<include> -c all_names.c
 *   g++ -std=c++17 -x c++ -Wall -Werror -I<include> -c all_names.c
 *
 * What is verified:
 *  - every struct member exists and has exactly the reference type
 *    (its address is stored in a pointer of the reference member type);
 *  - every function and static inline helper exists with exactly the
 *    reference signature (its address is stored in a function pointer of
 *    the reference type), including the BLOSC1_COMPAT aliases;
 *  - every function-pointer typedef is the reference type;
 *  - every enumerator and numeric macro has the reference value and every
 *    string macro has the reference length (exact text under C++), checked
 *    with static assertions;
 *  - every other typedef, struct tag, default initializer object and
 *    function-like / attribute macro is usable as in the reference.
 *
 * The lists were extracted from the reference headers.
 */
#define BLOSC1_COMPAT
#include <b2nd.h>
#include <blosc2.h>
#include <blosc2/blosc2-common.h>
#include <blosc2/blosc2-export.h>
#include <blosc2/blosc2-stdio.h>
#include <blosc2/codecs-registry.h>
#include <blosc2/filters-registry.h>
#include <blosc2/tuners-registry.h>

#include <stddef.h>

#ifdef __cplusplus
#  define STATIC_CHECK(cond, what) static_assert(cond, what)
static constexpr bool same_text(const char *a, const char *b) {
  return *a == *b && (*a == '\0' || same_text(a + 1, b + 1));
}
#  define CHECK_STRING(name, text) \
  static_assert(sizeof(name) == sizeof(text) && same_text(name, text), #name)
#else
#  define STATIC_CHECK(cond, what) _Static_assert(cond, what)
#  define CHECK_STRING(name, text) \
  _Static_assert(sizeof(name) == sizeof(text), #name)
#endif
#define CHECK_VALUE(name, value) STATIC_CHECK((long long)(name) == (value##LL), #name)

#define SINK(x) ((void)(x))

#define IGNORE_DEPRECATED_BEGIN \
  _Pragma("GCC diagnostic push") \
  _Pragma("GCC diagnostic ignored \"-Wdeprecated-declarations\"")
#define IGNORE_DEPRECATED_END _Pragma("GCC diagnostic pop")

/* ------------------------------------------------------------------ */
/* Include guards and configuration macros                            */
/* ------------------------------------------------------------------ */
#if !defined(BLOSC_BLOSC2_H) || !defined(BLOSC_B2ND_H) ||                 \
    !defined(BLOSC_BLOSC2_BLOSC2_EXPORT_H) ||                             \
    !defined(BLOSC_BLOSC2_BLOSC2_COMMON_H) ||                             \
    !defined(BLOSC_BLOSC2_BLOSC2_STDIO_H) ||                              \
    !defined(BLOSC_BLOSC2_CODECS_REGISTRY_H) ||                           \
    !defined(BLOSC_BLOSC2_FILTERS_REGISTRY_H) ||                          \
    !defined(BLOSC_BLOSC2_TUNERS_REGISTRY_H)
#  error "an include guard macro is missing"
#endif
#if !defined(BLOSC_EXPORT) || !defined(BLOSC_NO_EXPORT) ||                \
    !defined(BLOSC_UNUSED_VAR) || !defined(BLOSC_UNUSED_PARAM) ||         \
    !defined(BLOSC_ATTRIBUTE_UNUSED) || !defined(B2ND_DEPRECATED) ||      \
    !defined(BLOSC_TRACE) || !defined(BLOSC_TRACE_ERROR) ||               \
    !defined(BLOSC_TRACE_WARNING) || !defined(BLOSC_TRACE_INFO) ||        \
    !defined(BLOSC_ERROR_NULL) || !defined(BLOSC_ERROR) ||                \
    !defined(BLOSC_INFO)
#  error "a helper macro is missing"
#endif
#if defined(__GNUC__) && !defined(BLOSC_GCC_VERSION)
#  error "BLOSC_GCC_VERSION is missing"
#endif
#if (defined(__x86_64__) || defined(__i386__)) && defined(BLOSC_STRICT_ALIGN)
#  error "BLOSC_STRICT_ALIGN must not be defined on x86"
#endif
#if defined(B2ND_REQUIRE_META_NBYTES)
#  error "B2ND_REQUIRE_META_NBYTES is internal to b2nd_deserialize_meta_inline"
#endif
#if defined(_WIN32) && !defined(__MINGW32__) && !defined(getpid)
#  error "getpid alias missing on Windows"
#endif
#if defined(_MSC_VER) && (defined(_M_X64) || (defined(_M_IX86) && _M_IX86_FP >= 2)) && !defined(__SSE2__)
#  error "__SSE2__ must be defined"
#endif

/* ------------------------------------------------------------------ */
/* Enumerators and numeric macros                                     */
/* ------------------------------------------------------------------ */
CHECK_VALUE(BLOSC_CODEC_NDLZ, 32);
CHECK_VALUE(BLOSC_CODEC_ZFP_FIXED_ACCURACY, 33);
CHECK_VALUE(BLOSC_CODEC_ZFP_FIXED_PRECISION, 34);
CHECK_VALUE(BLOSC_CODEC_ZFP_FIXED_RATE, 35);
CHECK_VALUE(BLOSC_CODEC_OPENHTJ2K, 36);
CHECK_VALUE(BLOSC_CODEC_GROK, 37);
CHECK_VALUE(BLOSC_CODEC_OPENZL, 38);
CHECK_VALUE(BLOSC_CODEC_J2K, 39);
CHECK_VALUE(BLOSC_CODEC_HTJ2K, 40);
CHECK_VALUE(BLOSC_FILTER_NDCELL, 32);
CHECK_VALUE(BLOSC_FILTER_NDMEAN, 33);
CHECK_VALUE(BLOSC_FILTER_BYTEDELTA_BUGGY, 34);
CHECK_VALUE(BLOSC_FILTER_BYTEDELTA, 35);
CHECK_VALUE(BLOSC_FILTER_INT_TRUNC, 36);
CHECK_VALUE(BLOSC_BTUNE, 32);
CHECK_VALUE(BLOSC1_VERSION_FORMAT_PRE1, 1);
CHECK_VALUE(BLOSC1_VERSION_FORMAT, 2);
CHECK_VALUE(BLOSC2_VERSION_FORMAT_ALPHA, 3);
CHECK_VALUE(BLOSC2_VERSION_FORMAT_BETA1, 4);
CHECK_VALUE(BLOSC2_VERSION_FORMAT_STABLE, 5);
CHECK_VALUE(BLOSC2_VERSION_FORMAT_VL_BLOCKS, 6);
CHECK_VALUE(BLOSC2_VERSION_FORMAT, 6);
CHECK_VALUE(BLOSC2_VERSION_FRAME_FORMAT_BETA2, 1);
CHECK_VALUE(BLOSC2_VERSION_FRAME_FORMAT_RC1, 2);
CHECK_VALUE(BLOSC2_VERSION_FRAME_FORMAT_VL_BLOCKS, 3);
CHECK_VALUE(BLOSC2_VERSION_FRAME_FORMAT, 3);
CHECK_VALUE(BLOSC_MIN_HEADER_LENGTH, 16);
CHECK_VALUE(BLOSC_EXTENDED_HEADER_LENGTH, 32);
CHECK_VALUE(BLOSC2_MAX_OVERHEAD, 32);
CHECK_VALUE(BLOSC2_MAX_BUFFERSIZE, 2147483615);
CHECK_VALUE(BLOSC_MAX_TYPESIZE, 255);
CHECK_VALUE(BLOSC_MIN_BUFFERSIZE, 32);
CHECK_VALUE(BLOSC2_DEFINED_TUNER_START, 0);
CHECK_VALUE(BLOSC2_DEFINED_TUNER_STOP, 31);
CHECK_VALUE(BLOSC2_GLOBAL_REGISTERED_TUNER_START, 32);
CHECK_VALUE(BLOSC2_GLOBAL_REGISTERED_TUNER_STOP, 159);
CHECK_VALUE(BLOSC2_GLOBAL_REGISTERED_TUNERS, 0);
CHECK_VALUE(BLOSC2_USER_REGISTERED_TUNER_START, 160);
CHECK_VALUE(BLOSC2_USER_REGISTERED_TUNER_STOP, 255);
CHECK_VALUE(BLOSC_STUNE, 0);
CHECK_VALUE(BLOSC_LAST_TUNER, 1);
CHECK_VALUE(BLOSC_LAST_REGISTERED_TUNE, 31);
CHECK_VALUE(BLOSC2_DEFINED_FILTERS_START, 0);
CHECK_VALUE(BLOSC2_DEFINED_FILTERS_STOP, 31);
CHECK_VALUE(BLOSC2_GLOBAL_REGISTERED_FILTERS_START, 32);
CHECK_VALUE(BLOSC2_GLOBAL_REGISTERED_FILTERS_STOP, 159);
CHECK_VALUE(BLOSC2_GLOBAL_REGISTERED_FILTERS, 5);
CHECK_VALUE(BLOSC2_USER_REGISTERED_FILTERS_START, 160);
CHECK_VALUE(BLOSC2_USER_REGISTERED_FILTERS_STOP, 255);
CHECK_VALUE(BLOSC2_MAX_FILTERS, 6);
CHECK_VALUE(BLOSC2_MAX_UDFILTERS, 16);
CHECK_VALUE(BLOSC_NOSHUFFLE, 0);
CHECK_VALUE(BLOSC_NOFILTER, 0);
CHECK_VALUE(BLOSC_SHUFFLE, 1);
CHECK_VALUE(BLOSC_BITSHUFFLE, 2);
CHECK_VALUE(BLOSC_DELTA, 3);
CHECK_VALUE(BLOSC_TRUNC_PREC, 4);
CHECK_VALUE(BLOSC_LAST_FILTER, 5);
CHECK_VALUE(BLOSC_LAST_REGISTERED_FILTER, 36);
CHECK_VALUE(BLOSC_DOSHUFFLE, 1);
CHECK_VALUE(BLOSC_MEMCPYED, 2);
CHECK_VALUE(BLOSC_DOBITSHUFFLE, 4);
CHECK_VALUE(BLOSC_DODELTA, 8);
CHECK_VALUE(BLOSC2_USEDICT, 1);
CHECK_VALUE(BLOSC2_BIGENDIAN, 2);
CHECK_VALUE(BLOSC2_INSTR_CODEC, 128);
CHECK_VALUE(BLOSC2_VL_BLOCKS, 1);
CHECK_VALUE(BLOSC2_MAXDICTSIZE, 32768);
CHECK_VALUE(BLOSC2_MINUSEFULDICT, 256);
CHECK_VALUE(BLOSC2_MAXBLOCKSIZE, 536866816);
CHECK_VALUE(BLOSC2_MAXTYPESIZE, 536866816);
CHECK_VALUE(BLOSC2_DEFINED_CODECS_START, 0);
CHECK_VALUE(BLOSC2_DEFINED_CODECS_STOP, 31);
CHECK_VALUE(BLOSC2_GLOBAL_REGISTERED_CODECS_START, 32);
CHECK_VALUE(BLOSC2_GLOBAL_REGISTERED_CODECS_STOP, 159);
CHECK_VALUE(BLOSC2_GLOBAL_REGISTERED_CODECS, 5);
CHECK_VALUE(BLOSC2_USER_REGISTERED_CODECS_START, 160);
CHECK_VALUE(BLOSC2_USER_REGISTERED_CODECS_STOP, 255);
CHECK_VALUE(BLOSC_BLOSCLZ, 0);
CHECK_VALUE(BLOSC_LZ4, 1);
CHECK_VALUE(BLOSC_LZ4HC, 2);
CHECK_VALUE(BLOSC_ZLIB, 4);
CHECK_VALUE(BLOSC_ZSTD, 5);
CHECK_VALUE(BLOSC_LAST_CODEC, 6);
CHECK_VALUE(BLOSC_LAST_REGISTERED_CODEC, 36);
CHECK_VALUE(BLOSC_BLOSCLZ_LIB, 0);
CHECK_VALUE(BLOSC_LZ4_LIB, 1);
CHECK_VALUE(BLOSC_ZLIB_LIB, 3);
CHECK_VALUE(BLOSC_ZSTD_LIB, 4);
CHECK_VALUE(BLOSC_UDCODEC_LIB, 6);
CHECK_VALUE(BLOSC_SCHUNK_LIB, 7);
CHECK_VALUE(BLOSC_BLOSCLZ_FORMAT, 0);
CHECK_VALUE(BLOSC_LZ4_FORMAT, 1);
CHECK_VALUE(BLOSC_LZ4HC_FORMAT, 1);
CHECK_VALUE(BLOSC_ZLIB_FORMAT, 3);
CHECK_VALUE(BLOSC_ZSTD_FORMAT, 4);
CHECK_VALUE(BLOSC_UDCODEC_FORMAT, 6);
CHECK_VALUE(BLOSC_BLOSCLZ_VERSION_FORMAT, 1);
CHECK_VALUE(BLOSC_LZ4_VERSION_FORMAT, 1);
CHECK_VALUE(BLOSC_LZ4HC_VERSION_FORMAT, 1);
CHECK_VALUE(BLOSC_ZLIB_VERSION_FORMAT, 1);
CHECK_VALUE(BLOSC_ZSTD_VERSION_FORMAT, 1);
CHECK_VALUE(BLOSC_UDCODEC_VERSION_FORMAT, 1);
CHECK_VALUE(BLOSC_ALWAYS_SPLIT, 1);
CHECK_VALUE(BLOSC_NEVER_SPLIT, 2);
CHECK_VALUE(BLOSC_AUTO_SPLIT, 3);
CHECK_VALUE(BLOSC_FORWARD_COMPAT_SPLIT, 4);
CHECK_VALUE(BLOSC2_CHUNK_VERSION, 0);
CHECK_VALUE(BLOSC2_CHUNK_VERSIONLZ, 1);
CHECK_VALUE(BLOSC2_CHUNK_FLAGS, 2);
CHECK_VALUE(BLOSC2_CHUNK_TYPESIZE, 3);
CHECK_VALUE(BLOSC2_CHUNK_NBYTES, 4);
CHECK_VALUE(BLOSC2_CHUNK_BLOCKSIZE, 8);
CHECK_VALUE(BLOSC2_CHUNK_CBYTES, 12);
CHECK_VALUE(BLOSC2_CHUNK_FILTER_CODES, 16);
CHECK_VALUE(BLOSC2_CHUNK_FILTER_META, 24);
CHECK_VALUE(BLOSC2_CHUNK_BLOSC2_FLAGS2, 30);
CHECK_VALUE(BLOSC2_CHUNK_BLOSC2_FLAGS, 31);
CHECK_VALUE(BLOSC2_NO_SPECIAL, 0);
CHECK_VALUE(BLOSC2_SPECIAL_ZERO, 1);
CHECK_VALUE(BLOSC2_SPECIAL_NAN, 2);
CHECK_VALUE(BLOSC2_SPECIAL_VALUE, 3);
CHECK_VALUE(BLOSC2_SPECIAL_UNINIT, 4);
CHECK_VALUE(BLOSC2_SPECIAL_LASTID, 4);
CHECK_VALUE(BLOSC2_SPECIAL_MASK, 7);
CHECK_VALUE(BLOSC2_ERROR_SUCCESS, 0);
CHECK_VALUE(BLOSC2_ERROR_FAILURE, -1);
CHECK_VALUE(BLOSC2_ERROR_STREAM, -2);
CHECK_VALUE(BLOSC2_ERROR_DATA, -3);
CHECK_VALUE(BLOSC2_ERROR_MEMORY_ALLOC, -4);
CHECK_VALUE(BLOSC2_ERROR_READ_BUFFER, -5);
CHECK_VALUE(BLOSC2_ERROR_WRITE_BUFFER, -6);
CHECK_VALUE(BLOSC2_ERROR_CODEC_SUPPORT, -7);
CHECK_VALUE(BLOSC2_ERROR_CODEC_PARAM, -8);
CHECK_VALUE(BLOSC2_ERROR_CODEC_DICT, -9);
CHECK_VALUE(BLOSC2_ERROR_VERSION_SUPPORT, -10);
CHECK_VALUE(BLOSC2_ERROR_INVALID_HEADER, -11);
CHECK_VALUE(BLOSC2_ERROR_INVALID_PARAM, -12);
CHECK_VALUE(BLOSC2_ERROR_FILE_READ, -13);
CHECK_VALUE(BLOSC2_ERROR_FILE_WRITE, -14);
CHECK_VALUE(BLOSC2_ERROR_FILE_OPEN, -15);
CHECK_VALUE(BLOSC2_ERROR_NOT_FOUND, -16);
CHECK_VALUE(BLOSC2_ERROR_RUN_LENGTH, -17);
CHECK_VALUE(BLOSC2_ERROR_FILTER_PIPELINE, -18);
CHECK_VALUE(BLOSC2_ERROR_CHUNK_INSERT, -19);
CHECK_VALUE(BLOSC2_ERROR_CHUNK_APPEND, -20);
CHECK_VALUE(BLOSC2_ERROR_CHUNK_UPDATE, -21);
CHECK_VALUE(BLOSC2_ERROR_2GB_LIMIT, -22);
CHECK_VALUE(BLOSC2_ERROR_SCHUNK_COPY, -23);
CHECK_VALUE(BLOSC2_ERROR_FRAME_TYPE, -24);
CHECK_VALUE(BLOSC2_ERROR_FILE_TRUNCATE, -25);
CHECK_VALUE(BLOSC2_ERROR_THREAD_CREATE, -26);
CHECK_VALUE(BLOSC2_ERROR_POSTFILTER, -27);
CHECK_VALUE(BLOSC2_ERROR_FRAME_SPECIAL, -28);
CHECK_VALUE(BLOSC2_ERROR_SCHUNK_SPECIAL, -29);
CHECK_VALUE(BLOSC2_ERROR_PLUGIN_IO, -30);
CHECK_VALUE(BLOSC2_ERROR_FILE_REMOVE, -31);
CHECK_VALUE(BLOSC2_ERROR_NULL_POINTER, -32);
CHECK_VALUE(BLOSC2_ERROR_INVALID_INDEX, -33);
CHECK_VALUE(BLOSC2_ERROR_METALAYER_NOT_FOUND, -34);
CHECK_VALUE(BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED, -35);
CHECK_VALUE(BLOSC2_ERROR_TUNER, -36);
CHECK_VALUE(BLOSC2_ERROR_LOCK, -37);
CHECK_VALUE(BLOSC2_IO_FILESYSTEM, 0);
CHECK_VALUE(BLOSC2_IO_FILESYSTEM_MMAP, 1);
CHECK_VALUE(BLOSC_IO_LAST_BLOSC_DEFINED, 2);
CHECK_VALUE(BLOSC_IO_LAST_REGISTERED, 32);
CHECK_VALUE(BLOSC2_IO_BLOSC_DEFINED, 32);
CHECK_VALUE(BLOSC2_IO_REGISTERED, 160);
CHECK_VALUE(BLOSC2_IO_USER_DEFINED, 256);
CHECK_VALUE(BLOSC2_VERSION_MAJOR, 3);
CHECK_VALUE(BLOSC2_VERSION_MINOR, 3);
CHECK_VALUE(BLOSC2_VERSION_RELEASE, 5);
CHECK_VALUE(BLOSC2_MAX_METALAYERS, 16);
CHECK_VALUE(BLOSC2_METALAYER_NAME_MAXLEN, 31);
CHECK_VALUE(BLOSC2_MAX_VLMETALAYERS, 8192);
CHECK_VALUE(BLOSC2_VLMETALAYERS_NAME_MAXLEN, 31);
CHECK_VALUE(B2ND_METALAYER_VERSION, 0);
CHECK_VALUE(B2ND_MAX_DIM, 16);
CHECK_VALUE(B2ND_MAX_METALAYERS, 15);
CHECK_VALUE(DTYPE_NUMPY_FORMAT, 0);
CHECK_VALUE(B2ND_DEFAULT_DTYPE_FORMAT, 0);
CHECK_VALUE(BLOSC_VERSION_MAJOR, 3);
CHECK_VALUE(BLOSC_VERSION_MINOR, 3);
CHECK_VALUE(BLOSC_VERSION_RELEASE, 5);
CHECK_VALUE(BLOSC_MAX_OVERHEAD, 32);
CHECK_VALUE(BLOSC_MAX_BUFFERSIZE, 2147483615);

/* ------------------------------------------------------------------ */
/* Struct members, with their exact types                             */
/* ------------------------------------------------------------------ */
static void use_blosc2_stdio_file(blosc2_stdio_file *s) {
  { FILE **p = &s->file; (void)p; }
}
static void use_blosc2_stdio_params(blosc2_stdio_params *s) {
  { bool *p = &s->locking; (void)p; }
}
static void use_blosc2_stdio_mmap(blosc2_stdio_mmap *s) {
  { const char* *p = &s->mode; (void)p; }
  { size_t *p = &s->initial_mapping_size; (void)p; }
  { bool *p = &s->needs_free; (void)p; }
  { char* *p = &s->addr; (void)p; }
  { char* *p = &s->urlpath; (void)p; }
  { size_t *p = &s->file_size; (void)p; }
  { size_t *p = &s->mapping_size; (void)p; }
  { bool *p = &s->is_memory_only; (void)p; }
  { FILE* *p = &s->file; (void)p; }
  { int *p = &s->fd; (void)p; }
  { int64_t *p = &s->access_flags; (void)p; }
  { int64_t *p = &s->map_flags; (void)p; }
}
static void use_codec_info(codec_info *s) {
  { char **p = &s->encoder; (void)p; }
  { char **p = &s->decoder; (void)p; }
}
static void use_filter_info(filter_info *s) {
  { char **p = &s->forward; (void)p; }
  { char **p = &s->backward; (void)p; }
}
static void use_tuner_info(tuner_info *s) {
  { char **p = &s->init; (void)p; }
  { char **p = &s->next_blocksize; (void)p; }
  { char **p = &s->next_cparams; (void)p; }
  { char **p = &s->update; (void)p; }
  { char **p = &s->free; (void)p; }
}
static void use_blosc2_instr(blosc2_instr *s) {
  { float *p = &s->cratio; (void)p; }
  { float *p = &s->cspeed; (void)p; }
  { float *p = &s->filter_speed; (void)p; }
  { uint8_t (*p)[4] = &s->flags; (void)p; }
}
static void use_blosc2_io_cb(blosc2_io_cb *s) {
  { uint8_t *p = &s->id; (void)p; }
  { char* *p = &s->name; (void)p; }
  { bool *p = &s->is_allocation_necessary; (void)p; }
  { blosc2_open_cb *p = &s->open; (void)p; }
  { blosc2_close_cb *p = &s->close; (void)p; }
  { blosc2_size_cb *p = &s->size; (void)p; }
  { blosc2_write_cb *p = &s->write; (void)p; }
  { blosc2_read_cb *p = &s->read; (void)p; }
  { blosc2_truncate_cb *p = &s->truncate; (void)p; }
  { blosc2_destroy_cb *p = &s->destroy; (void)p; }
}
static void use_blosc2_io(blosc2_io *s) {
  { uint8_t *p = &s->id; (void)p; }
  { const char **p = &s->name; (void)p; }
  { void **p = &s->params; (void)p; }
}
static void use_blosc2_tuner(blosc2_tuner *s) {
  { int (**p)(void * config, blosc2_context* cctx, blosc2_context* dctx) = &s->init; (void)p; }
  { int (**p)(blosc2_context * context) = &s->next_blocksize; (void)p; }
  { int (**p)(blosc2_context * context) = &s->next_cparams; (void)p; }
  { int (**p)(blosc2_context * context, double ctime) = &s->update; (void)p; }
  { int (**p)(blosc2_context * context) = &s->free; (void)p; }
  { int *p = &s->id; (void)p; }
  { char **p = &s->name; (void)p; }
}
static void use_blosc2_prefilter_params(blosc2_prefilter_params *s) {
  { void **p = &s->user_data; (void)p; }
  { const uint8_t **p = &s->input; (void)p; }
  { uint8_t **p = &s->output; (void)p; }
  { int32_t *p = &s->output_size; (void)p; }
  { int32_t *p = &s->output_typesize; (void)p; }
  { int32_t *p = &s->output_offset; (void)p; }
  { int64_t *p = &s->nchunk; (void)p; }
  { int32_t *p = &s->nblock; (void)p; }
  { int32_t *p = &s->tid; (void)p; }
  { uint8_t **p = &s->ttmp; (void)p; }
  { size_t *p = &s->ttmp_nbytes; (void)p; }
  { blosc2_context **p = &s->ctx; (void)p; }
  { bool *p = &s->output_is_disposable; (void)p; }
}
static void use_blosc2_postfilter_params(blosc2_postfilter_params *s) {
  { void **p = &s->user_data; (void)p; }
  { const uint8_t **p = &s->input; (void)p; }
  { uint8_t **p = &s->output; (void)p; }
  { int32_t *p = &s->size; (void)p; }
  { int32_t *p = &s->typesize; (void)p; }
  { int32_t *p = &s->offset; (void)p; }
  { int64_t *p = &s->nchunk; (void)p; }
  { int32_t *p = &s->nblock; (void)p; }
  { int32_t *p = &s->tid; (void)p; }
  { uint8_t **p = &s->ttmp; (void)p; }
  { size_t *p = &s->ttmp_nbytes; (void)p; }
  { blosc2_context **p = &s->ctx; (void)p; }
}
static void use_blosc2_cparams(blosc2_cparams *s) {
  { uint8_t *p = &s->compcode; (void)p; }
  { uint8_t *p = &s->compcode_meta; (void)p; }
  { uint8_t *p = &s->clevel; (void)p; }
  { int *p = &s->use_dict; (void)p; }
  { int32_t *p = &s->typesize; (void)p; }
  { int16_t *p = &s->nthreads; (void)p; }
  { int32_t *p = &s->blocksize; (void)p; }
  { int32_t *p = &s->splitmode; (void)p; }
  { void* *p = &s->schunk; (void)p; }
  { uint8_t (*p)[BLOSC2_MAX_FILTERS] = &s->filters; (void)p; }
  { uint8_t (*p)[BLOSC2_MAX_FILTERS] = &s->filters_meta; (void)p; }
  { blosc2_prefilter_fn *p = &s->prefilter; (void)p; }
  { blosc2_prefilter_params **p = &s->preparams; (void)p; }
  { void **p = &s->tuner_params; (void)p; }
  { int *p = &s->tuner_id; (void)p; }
  { bool *p = &s->instr_codec; (void)p; }
  { void **p = &s->codec_params; (void)p; }
  { void *(*p)[BLOSC2_MAX_FILTERS] = &s->filter_params; (void)p; }
}
static void use_blosc2_dparams(blosc2_dparams *s) {
  { int16_t *p = &s->nthreads; (void)p; }
  { void* *p = &s->schunk; (void)p; }
  { blosc2_postfilter_fn *p = &s->postfilter; (void)p; }
  { blosc2_postfilter_params **p = &s->postparams; (void)p; }
  { int32_t *p = &s->typesize; (void)p; }
}
static void use_blosc2_storage(blosc2_storage *s) {
  { bool *p = &s->contiguous; (void)p; }
  { char* *p = &s->urlpath; (void)p; }
  { blosc2_cparams* *p = &s->cparams; (void)p; }
  { blosc2_dparams* *p = &s->dparams; (void)p; }
  { blosc2_io **p = &s->io; (void)p; }
}
static void use_blosc2_metalayer(blosc2_metalayer *s) {
  { char* *p = &s->name; (void)p; }
  { uint8_t* *p = &s->content; (void)p; }
  { int32_t *p = &s->content_len; (void)p; }
}
static void use_blosc2_schunk(blosc2_schunk *s) {
  { uint8_t *p = &s->version; (void)p; }
  { uint8_t *p = &s->compcode; (void)p; }
  { uint8_t *p = &s->compcode_meta; (void)p; }
  { uint8_t *p = &s->clevel; (void)p; }
  { uint8_t *p = &s->splitmode; (void)p; }
  { int32_t *p = &s->typesize; (void)p; }
  { int32_t *p = &s->blocksize; (void)p; }
  { int32_t *p = &s->chunksize; (void)p; }
  { uint8_t *p = &s->flags2; (void)p; }
  { uint8_t *p = &s->use_dict; (void)p; }
  { uint8_t (*p)[BLOSC2_MAX_FILTERS] = &s->filters; (void)p; }
  { uint8_t (*p)[BLOSC2_MAX_FILTERS] = &s->filters_meta; (void)p; }
  { int64_t *p = &s->nchunks; (void)p; }
  { int64_t *p = &s->current_nchunk; (void)p; }
  { int64_t *p = &s->nbytes; (void)p; }
  { int64_t *p = &s->cbytes; (void)p; }
  { uint8_t** *p = &s->data; (void)p; }
  { size_t *p = &s->data_len; (void)p; }
  { blosc2_storage* *p = &s->storage; (void)p; }
  { blosc2_frame* *p = &s->frame; (void)p; }
  { blosc2_context* *p = &s->cctx; (void)p; }
  { blosc2_context* *p = &s->dctx; (void)p; }
  { struct blosc2_metalayer *(*p)[BLOSC2_MAX_METALAYERS] = &s->metalayers; (void)p; }
  { uint16_t *p = &s->nmetalayers; (void)p; }
  { struct blosc2_metalayer *(*p)[BLOSC2_MAX_VLMETALAYERS] = &s->vlmetalayers; (void)p; }
  { int16_t *p = &s->nvlmetalayers; (void)p; }
  { void **p = &s->tuner_params; (void)p; }
  { int *p = &s->tuner_id; (void)p; }
  { int8_t *p = &s->ndim; (void)p; }
  { int64_t **p = &s->blockshape; (void)p; }
  { bool *p = &s->view; (void)p; }
  { int64_t *p = &s->change_tick; (void)p; }
}
static void use_blosc2_codec(blosc2_codec *s) {
  { uint8_t *p = &s->compcode; (void)p; }
  { char **p = &s->compname; (void)p; }
  { uint8_t *p = &s->complib; (void)p; }
  { uint8_t *p = &s->version; (void)p; }
  { blosc2_codec_encoder_cb *p = &s->encoder; (void)p; }
  { blosc2_codec_decoder_cb *p = &s->decoder; (void)p; }
}
static void use_blosc2_filter(blosc2_filter *s) {
  { uint8_t *p = &s->id; (void)p; }
  { char * *p = &s->name; (void)p; }
  { uint8_t *p = &s->version; (void)p; }
  { blosc2_filter_forward_cb *p = &s->forward; (void)p; }
  { blosc2_filter_backward_cb *p = &s->backward; (void)p; }
}
static void use_chunk_cache_s(struct chunk_cache_s *s) {
  { uint8_t **p = &s->data; (void)p; }
  { int64_t *p = &s->nchunk; (void)p; }
}
static void use_b2nd_array_t(b2nd_array_t *s) {
  { blosc2_schunk **p = &s->sc; (void)p; }
  { int64_t (*p)[B2ND_MAX_DIM] = &s->shape; (void)p; }
  { int32_t (*p)[B2ND_MAX_DIM] = &s->chunkshape; (void)p; }
  { int64_t (*p)[B2ND_MAX_DIM] = &s->extshape; (void)p; }
  { int32_t (*p)[B2ND_MAX_DIM] = &s->blockshape; (void)p; }
  { int64_t (*p)[B2ND_MAX_DIM] = &s->extchunkshape; (void)p; }
  { int64_t *p = &s->nitems; (void)p; }
  { int32_t *p = &s->chunknitems; (void)p; }
  { int64_t *p = &s->extnitems; (void)p; }
  { int32_t *p = &s->blocknitems; (void)p; }
  { int64_t *p = &s->extchunknitems; (void)p; }
  { int8_t *p = &s->ndim; (void)p; }
  { struct chunk_cache_s *p = &s->chunk_cache; (void)p; }
  { int64_t (*p)[B2ND_MAX_DIM] = &s->item_array_strides; (void)p; }
  { int64_t (*p)[B2ND_MAX_DIM] = &s->item_chunk_strides; (void)p; }
  { int64_t (*p)[B2ND_MAX_DIM] = &s->item_extchunk_strides; (void)p; }
  { int64_t (*p)[B2ND_MAX_DIM] = &s->item_block_strides; (void)p; }
  { int64_t (*p)[B2ND_MAX_DIM] = &s->block_chunk_strides; (void)p; }
  { int64_t (*p)[B2ND_MAX_DIM] = &s->chunk_array_strides; (void)p; }
  { char **p = &s->dtype; (void)p; }
  { int8_t *p = &s->dtype_format; (void)p; }
  { int64_t *p = &s->last_tick; (void)p; }
}

/* ------------------------------------------------------------------ */
/* Functions and static inline helpers, with their exact signatures   */
/* ------------------------------------------------------------------ */
void all_names_functions(void);
void all_names_functions(void) {
  { void * (*fp)(const char *urlpath, const char *mode, void* params) = &blosc2_stdio_open; SINK(fp); }
  { int (*fp)(void *stream) = &blosc2_stdio_close; SINK(fp); }
  { int64_t (*fp)(void *stream) = &blosc2_stdio_size; SINK(fp); }
  { int64_t (*fp)(const void *ptr, int64_t size, int64_t nitems, int64_t position, void *stream) = &blosc2_stdio_write; SINK(fp); }
  { int64_t (*fp)(void **ptr, int64_t size, int64_t nitems, int64_t position, void *stream) = &blosc2_stdio_read; SINK(fp); }
  { int (*fp)(void *stream, int64_t size) = &blosc2_stdio_truncate; SINK(fp); }
  { int (*fp)(void* params) = &blosc2_stdio_destroy; SINK(fp); }
  { void * (*fp)(const char *urlpath, const char *mode, void* params) = &blosc2_stdio_mmap_open; SINK(fp); }
  { int (*fp)(void *stream) = &blosc2_stdio_mmap_close; SINK(fp); }
  { int64_t (*fp)(void *stream) = &blosc2_stdio_mmap_size; SINK(fp); }
  { int64_t (*fp)( const void *ptr, int64_t size, int64_t nitems, int64_t position, void *stream) = &blosc2_stdio_mmap_write; SINK(fp); }
  { int64_t (*fp)(void **ptr, int64_t size, int64_t nitems, int64_t position, void *stream) = &blosc2_stdio_mmap_read; SINK(fp); }
  { int (*fp)(void *stream, int64_t size) = &blosc2_stdio_mmap_truncate; SINK(fp); }
  { int (*fp)(void* params) = &blosc2_stdio_mmap_destroy; SINK(fp); }
  { void (*fp)(void) = &register_codecs; SINK(fp); }
  { void (*fp)(void) = &register_filters; SINK(fp); }
  { void (*fp)(void) = &register_tuners; SINK(fp); }
  { const char * (*fp)(int error_code) = &blosc2_error_string; SINK(fp); }
  { void (*fp)(void) = &blosc2_init; SINK(fp); }
  { void (*fp)(void) = &blosc2_destroy; SINK(fp); }
  { int (*fp)(int clevel, int doshuffle, size_t typesize, size_t nbytes, const void* src, void* dest, size_t destsize) = &blosc1_compress; SINK(fp); }
  { int (*fp)(const void* src, void* dest, size_t destsize) = &blosc1_decompress; SINK(fp); }
  { int (*fp)(const void* src, int start, int nitems, void* dest) = &blosc1_getitem; SINK(fp); }
  { int (*fp)(const void* src, int32_t srcsize, int start, int nitems, void* dest, int32_t destsize) = &blosc2_getitem; SINK(fp); }
  { void (*fp)(blosc_threads_callback callback, void *callback_data) = &blosc2_set_threads_callback; SINK(fp); }
  { int16_t (*fp)(void) = &blosc2_get_nthreads; SINK(fp); }
  { int16_t (*fp)(int16_t nthreads) = &blosc2_set_nthreads; SINK(fp); }
  { const char* (*fp)(void) = &blosc1_get_compressor; SINK(fp); }
  { int (*fp)(const char* compname) = &blosc1_set_compressor; SINK(fp); }
  { void (*fp)(int dodelta) = &blosc2_set_delta; SINK(fp); }
  { int (*fp)(int compcode, const char** compname) = &blosc2_compcode_to_compname; SINK(fp); }
  { int (*fp)(const char* compname) = &blosc2_compname_to_compcode; SINK(fp); }
  { const char* (*fp)(void) = &blosc2_list_compressors; SINK(fp); }
  { const char* (*fp)(void) = &blosc2_get_version_string; SINK(fp); }
  { int (*fp)(const char* compname, char** complib, char** version) = &blosc2_get_complib_info; SINK(fp); }
  { int (*fp)(void) = &blosc2_free_resources; SINK(fp); }
  { void (*fp)(const void* cbuffer, size_t* nbytes, size_t* cbytes, size_t* blocksize) = &blosc1_cbuffer_sizes; SINK(fp); }
  { int (*fp)(const void* cbuffer, int32_t* nbytes, int32_t* cbytes, int32_t* blocksize) = &blosc2_cbuffer_sizes; SINK(fp); }
  { int (*fp)(const void* cbuffer, size_t cbytes, size_t* nbytes) = &blosc1_cbuffer_validate; SINK(fp); }
  { void (*fp)(const void* cbuffer, size_t* typesize, int* flags) = &blosc1_cbuffer_metainfo; SINK(fp); }
  { void (*fp)(const void* cbuffer, int* version, int* versionlz) = &blosc2_cbuffer_versions; SINK(fp); }
  { const char* (*fp)(const void* cbuffer) = &blosc2_cbuffer_complib; SINK(fp); }
  { int (*fp)(const blosc2_io_cb *io) = &blosc2_register_io_cb; SINK(fp); }
  { blosc2_io_cb * (*fp)(uint8_t id) = &blosc2_get_io_cb; SINK(fp); }
  { int (*fp)(blosc2_tuner *tuner) = &blosc2_register_tuner; SINK(fp); }
  { blosc2_context* (*fp)(blosc2_cparams cparams) = &blosc2_create_cctx; SINK(fp); }
  { blosc2_context* (*fp)(blosc2_dparams dparams) = &blosc2_create_dctx; SINK(fp); }
  { void (*fp)(blosc2_context* context) = &blosc2_free_ctx; SINK(fp); }
  { int (*fp)(blosc2_context *ctx, blosc2_cparams *cparams) = &blosc2_ctx_get_cparams; SINK(fp); }
  { int (*fp)(blosc2_context *ctx, blosc2_dparams *dparams) = &blosc2_ctx_get_dparams; SINK(fp); }
  { int (*fp)(blosc2_context *ctx, bool *maskout, int nblocks) = &blosc2_set_maskout; SINK(fp); }
  { int (*fp)(int clevel, int doshuffle, int32_t typesize, const void* src, int32_t srcsize, void* dest, int32_t destsize) = &blosc2_compress; SINK(fp); }
  { int (*fp)(const void* src, int32_t srcsize, void* dest, int32_t destsize) = &blosc2_decompress; SINK(fp); }
  { int (*fp)( blosc2_context* context, const void* src, int32_t srcsize, void* dest, int32_t destsize) = &blosc2_compress_ctx; SINK(fp); }
  { int (*fp)( blosc2_context* context, const void* const* srcs, const int32_t* srcsizes, int32_t nblocks, void* dest, int32_t destsize) = &blosc2_vlcompress_ctx; SINK(fp); }
  { int (*fp)(blosc2_context* context, const void* src, int32_t srcsize, void* dest, int32_t destsize) = &blosc2_decompress_ctx; SINK(fp); }
  { int (*fp)(blosc2_context* context, const void* src, int32_t srcsize, void** dests, int32_t* destsizes, int32_t maxblocks) = &blosc2_vldecompress_ctx; SINK(fp); }
  { int (*fp)(const void* src, int32_t srcsize, int32_t* nblocks) = &blosc2_vlchunk_get_nblocks; SINK(fp); }
  { int (*fp)(blosc2_context* context, const void* src, int32_t srcsize, int32_t nblock, uint8_t** dest, int32_t* destsize) = &blosc2_vldecompress_block_ctx; SINK(fp); }
  { int (*fp)(blosc2_cparams cparams, int32_t nbytes, void* dest, int32_t destsize) = &blosc2_chunk_zeros; SINK(fp); }
  { int (*fp)(blosc2_cparams cparams, int32_t nbytes, void* dest, int32_t destsize) = &blosc2_chunk_nans; SINK(fp); }
  { int (*fp)(blosc2_cparams cparams, int32_t nbytes, void* dest, int32_t destsize, const void* repeatval) = &blosc2_chunk_repeatval; SINK(fp); }
  { int (*fp)(blosc2_cparams cparams, int32_t nbytes, void* dest, int32_t destsize) = &blosc2_chunk_uninit; SINK(fp); }
  { int (*fp)(blosc2_context* context, const void* src, int32_t srcsize, int start, int nitems, void* dest, int32_t destsize) = &blosc2_getitem_ctx; SINK(fp); }
  { int (*fp)(blosc2_context* context, const void* src, int32_t srcsize, int32_t start, int32_t nbytes, void* dest, int32_t destsize) = &blosc2_getitem_bytes_ctx; SINK(fp); }
  { blosc2_cparams (*fp)(void) = &blosc2_get_blosc2_cparams_defaults; SINK(fp); }
  { blosc2_dparams (*fp)(void) = &blosc2_get_blosc2_dparams_defaults; SINK(fp); }
  { blosc2_storage (*fp)(void) = &blosc2_get_blosc2_storage_defaults; SINK(fp); }
  { blosc2_io (*fp)(void) = &blosc2_get_blosc2_io_defaults; SINK(fp); }
  { blosc2_stdio_mmap (*fp)(void) = &blosc2_get_blosc2_stdio_mmap_defaults; SINK(fp); }
  { blosc2_schunk* (*fp)(blosc2_storage *storage) = &blosc2_schunk_new; SINK(fp); }
  { blosc2_schunk* (*fp)(blosc2_schunk *schunk, blosc2_storage *storage) = &blosc2_schunk_copy; SINK(fp); }
  { blosc2_schunk* (*fp)(uint8_t *cframe, int64_t len, bool copy) = &blosc2_schunk_from_buffer; SINK(fp); }
  { void (*fp)(blosc2_schunk *schunk, bool avoid_cframe_free) = &blosc2_schunk_avoid_cframe_free; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk) = &blosc2_schunk_lock; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk) = &blosc2_schunk_unlock; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk) = &blosc2_schunk_refresh; SINK(fp); }
  { blosc2_schunk* (*fp)(const char* urlpath) = &blosc2_schunk_open; SINK(fp); }
  { blosc2_schunk* (*fp)(const char* urlpath, int64_t offset) = &blosc2_schunk_open_offset; SINK(fp); }
  { blosc2_schunk* (*fp)(const char* urlpath, const blosc2_io *udio) = &blosc2_schunk_open_udio; SINK(fp); }
  { blosc2_schunk* (*fp)(const char* urlpath, int64_t offset, const blosc2_io *udio) = &blosc2_schunk_open_offset_udio; SINK(fp); }
  { int64_t (*fp)(blosc2_schunk* schunk, uint8_t** cframe, bool* needs_free) = &blosc2_schunk_to_buffer; SINK(fp); }
  { int64_t (*fp)(blosc2_schunk* schunk, const char* urlpath) = &blosc2_schunk_to_file; SINK(fp); }
  { int64_t (*fp)(blosc2_schunk* schunk, const char* urlpath) = &blosc2_schunk_append_file; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk) = &blosc2_schunk_free; SINK(fp); }
  { int64_t (*fp)(blosc2_schunk *schunk, uint8_t *chunk, bool copy) = &blosc2_schunk_append_chunk; SINK(fp); }
  { int64_t (*fp)(blosc2_schunk *schunk, int64_t nchunk, uint8_t *chunk, bool copy) = &blosc2_schunk_update_chunk; SINK(fp); }
  { int64_t (*fp)(blosc2_schunk *schunk, int64_t nchunk, uint8_t *chunk, bool copy) = &blosc2_schunk_insert_chunk; SINK(fp); }
  { int64_t (*fp)(blosc2_schunk *schunk, int64_t nchunk) = &blosc2_schunk_delete_chunk; SINK(fp); }
  { int64_t (*fp)(blosc2_schunk *schunk, const void *src, int32_t nbytes) = &blosc2_schunk_append_buffer; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, int64_t nchunk, void *dest, int32_t nbytes) = &blosc2_schunk_decompress_chunk; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, int64_t nchunk, uint8_t **chunk, bool *needs_free) = &blosc2_schunk_get_chunk; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, int64_t nchunk, uint8_t **chunk, bool *needs_free) = &blosc2_schunk_get_lazychunk; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, int64_t nchunk, int32_t nblock, uint8_t **dest, int32_t *destsize) = &blosc2_schunk_get_vlblock; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, int64_t start, int64_t stop, void *buffer) = &blosc2_schunk_get_slice_buffer; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, int64_t ncoords, const int64_t* coords, void *buffer) = &blosc2_schunk_get_sparse_buffer; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, int64_t start, int64_t stop, void *buffer) = &blosc2_schunk_set_slice_buffer; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, blosc2_cparams **cparams) = &blosc2_schunk_get_cparams; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, blosc2_dparams **dparams) = &blosc2_schunk_get_dparams; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, int64_t *offsets_order) = &blosc2_schunk_reorder_offsets; SINK(fp); }
  { int64_t (*fp)(blosc2_schunk* schunk) = &blosc2_schunk_frame_len; SINK(fp); }
  { int64_t (*fp)(blosc2_schunk* schunk, int64_t nitems, int special_value, int32_t chunksize) = &blosc2_schunk_fill_special; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, const char *name, uint8_t *content, int32_t content_len) = &blosc2_meta_add; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, const char *name, uint8_t *content, int32_t content_len) = &blosc2_meta_update; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, const char *name) = &blosc2_vlmeta_exists; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, const char *name, uint8_t *content, int32_t content_len, blosc2_cparams *cparams) = &blosc2_vlmeta_add; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, const char *name, uint8_t *content, int32_t content_len, blosc2_cparams *cparams) = &blosc2_vlmeta_update; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, const char *name, uint8_t **content, int32_t *content_len) = &blosc2_vlmeta_get; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, const char *name) = &blosc2_vlmeta_delete; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, char **names) = &blosc2_vlmeta_get_names; SINK(fp); }
  { void (*fp)(blosc_timestamp_t* timestamp) = &blosc_set_timestamp; SINK(fp); }
  { double (*fp)(blosc_timestamp_t start_time, blosc_timestamp_t end_time) = &blosc_elapsed_nsecs; SINK(fp); }
  { double (*fp)(blosc_timestamp_t start_time, blosc_timestamp_t end_time) = &blosc_elapsed_secs; SINK(fp); }
  { int (*fp)(void) = &blosc1_get_blocksize; SINK(fp); }
  { void (*fp)(size_t blocksize) = &blosc1_set_blocksize; SINK(fp); }
  { void (*fp)(int splitmode) = &blosc1_set_splitmode; SINK(fp); }
  { int64_t* (*fp)(blosc2_schunk *schunk) = &blosc2_frame_get_offsets; SINK(fp); }
  { int (*fp)(blosc2_codec *codec) = &blosc2_register_codec; SINK(fp); }
  { int (*fp)(blosc2_filter *filter) = &blosc2_register_filter; SINK(fp); }
  { int (*fp)(const char *path) = &blosc2_remove_dir; SINK(fp); }
  { int (*fp)(const char *path) = &blosc2_remove_urlpath; SINK(fp); }
  { int (*fp)(char* old_urlpath, char* new_path) = &blosc2_rename_urlpath; SINK(fp); }
  { void (*fp)(uint8_t ndim, int64_t *shape, int64_t i, int64_t *index) = &blosc2_unidim_to_multidim; SINK(fp); }
  { void (*fp)(const int64_t *index, int8_t ndim, const int64_t *strides, int64_t *i) = &blosc2_multidim_to_unidim; SINK(fp); }
  { int64_t (*fp)(blosc2_schunk* schunk, int64_t *start, int64_t *stop, int64_t **chunks_idx) = &blosc2_get_slice_nchunks; SINK(fp); }
  { int32_t (*fp)(const int32_t typesize, const int32_t blocksize, const void* src, void* dest) = &blosc2_shuffle; SINK(fp); }
  { int32_t (*fp)(const int32_t typesize, const int32_t blocksize, const void* src, void* dest) = &blosc2_unshuffle; SINK(fp); }
  { int32_t (*fp)(const int32_t typesize, const int32_t blocksize, const void* src, void* dest) = &blosc2_bitshuffle; SINK(fp); }
  { int32_t (*fp)(const int32_t typesize, const int32_t blocksize, const void* src, void* dest) = &blosc2_bitunshuffle; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, const char *name) = &blosc2_meta_exists; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, const char *name, uint8_t **content, int32_t *content_len) = &blosc2_meta_get; SINK(fp); }
  { void (*fp)(void *dest, const void *pa, int size) = &swap_store; SINK(fp); }
  { char * (*fp)(int rc) = &print_error; SINK(fp); }
  { b2nd_context_t * (*fp)(const blosc2_storage *b2_storage, int8_t ndim, const int64_t *shape, const int32_t *chunkshape, const int32_t *blockshape, const char *dtype, int8_t dtype_format, const blosc2_metalayer *metalayers, int32_t nmetalayers) = &b2nd_create_ctx; SINK(fp); }
  { int (*fp)(b2nd_context_t *ctx) = &b2nd_free_ctx; SINK(fp); }
  { int (*fp)(b2nd_context_t *ctx, b2nd_array_t **array) = &b2nd_uninit; SINK(fp); }
  { int (*fp)(b2nd_context_t *ctx, b2nd_array_t **array) = &b2nd_empty; SINK(fp); }
  { int (*fp)(b2nd_context_t *ctx, b2nd_array_t **array) = &b2nd_zeros; SINK(fp); }
  { int (*fp)(b2nd_context_t *ctx, b2nd_array_t **array) = &b2nd_nans; SINK(fp); }
  { int (*fp)(b2nd_context_t *ctx, b2nd_array_t **array, const void *fill_value) = &b2nd_full; SINK(fp); }
  { int (*fp)(b2nd_array_t *array) = &b2nd_free; SINK(fp); }
  { int (*fp)(blosc2_schunk *schunk, b2nd_array_t **array) = &b2nd_from_schunk; SINK(fp); }
  { int (*fp)(const b2nd_array_t *array, uint8_t **cframe, int64_t *cframe_len, bool *needs_free) = &b2nd_to_cframe; SINK(fp); }
  { int (*fp)(uint8_t *cframe, int64_t cframe_len, bool copy, b2nd_array_t **array) = &b2nd_from_cframe; SINK(fp); }
  { int (*fp)(const char *urlpath, b2nd_array_t **array) = &b2nd_open; SINK(fp); }
  { int (*fp)(const char *urlpath, b2nd_array_t **array, int64_t offset) = &b2nd_open_offset; SINK(fp); }
  { int (*fp)(const b2nd_array_t *array, char *urlpath) = &b2nd_save; SINK(fp); }
  { int64_t (*fp)(const b2nd_array_t *array, const char *urlpath) = &b2nd_save_append; SINK(fp); }
  { int (*fp)(b2nd_context_t *ctx, b2nd_array_t **array, const void *buffer, int64_t buffersize) = &b2nd_from_cbuffer; SINK(fp); }
  { int (*fp)(const b2nd_array_t *array, void *buffer, int64_t buffersize) = &b2nd_to_cbuffer; SINK(fp); }
  { int (*fp)(const b2nd_array_t *array, int64_t ncoords, const int64_t *coords, void *buffer, int64_t buffersize) = &b2nd_get_sparse_cbuffer; SINK(fp); }
  { int (*fp)(b2nd_context_t *ctx, b2nd_array_t **array, const b2nd_array_t *src, const int64_t *start, const int64_t *stop) = &b2nd_get_slice; SINK(fp); }
  { int (*fp)(b2nd_array_t *array, b2nd_array_t **view, const bool *index) = &b2nd_squeeze_index; SINK(fp); }
  { int (*fp)(b2nd_array_t *array, b2nd_array_t **view) = &b2nd_squeeze; SINK(fp); }
  { int (*fp)(const b2nd_array_t *array, b2nd_array_t **view, const bool *axis, const uint8_t final_dims) = &b2nd_expand_dims; SINK(fp); }
  { int (*fp)(const b2nd_array_t *array, const int64_t *start, const int64_t *stop, void *buffer, const int64_t *buffershape, int64_t buffersize) = &b2nd_get_slice_cbuffer; SINK(fp); }
  { int (*fp)(const void *buffer, const int64_t *buffershape, int64_t buffersize, const int64_t *start, const int64_t *stop, b2nd_array_t *array) = &b2nd_set_slice_cbuffer; SINK(fp); }
  { int (*fp)(b2nd_context_t *ctx, const b2nd_array_t *src, b2nd_array_t **array) = &b2nd_copy; SINK(fp); }
  { int (*fp)(b2nd_context_t *ctx, const b2nd_array_t *src1, const b2nd_array_t *src2, int8_t axis, bool copy, b2nd_array_t **array) = &b2nd_concatenate; SINK(fp); }
  { int (*fp)(const b2nd_array_t *array) = &b2nd_print_meta; SINK(fp); }
  { int (*fp)(b2nd_array_t *array, const int64_t *new_shape, const int64_t *start) = &b2nd_resize; SINK(fp); }
  { int (*fp)(b2nd_array_t *array) = &b2nd_refresh; SINK(fp); }
  { int (*fp)(b2nd_array_t *array, const void *buffer, int64_t buffersize, int8_t axis, int64_t insert_start) = &b2nd_insert; SINK(fp); }
  { int (*fp)(b2nd_array_t *array, const void *buffer, int64_t buffersize, int8_t axis) = &b2nd_append; SINK(fp); }
  { int (*fp)(b2nd_array_t *array, int8_t axis, int64_t delete_start, int64_t delete_len) = &b2nd_delete; SINK(fp); }
  { int (*fp)(const b2nd_array_t *array, int64_t **selection, int64_t *selection_size, void *buffer, int64_t *buffershape, int64_t buffersize) = &b2nd_get_orthogonal_selection; SINK(fp); }
  { int (*fp)(b2nd_array_t *array, int64_t **selection, int64_t *selection_size, const void *buffer, int64_t *buffershape, int64_t buffersize) = &b2nd_set_orthogonal_selection; SINK(fp); }
  { int (*fp)(int8_t ndim, const int64_t *shape, const int32_t *chunkshape, const int32_t *blockshape, const char *dtype, int8_t dtype_format, uint8_t **smeta) = &b2nd_serialize_meta; SINK(fp); }
  { int (*fp)(const uint8_t *smeta, int32_t smeta_len, int8_t *ndim, int64_t *shape, int32_t *chunkshape, int32_t *blockshape, char **dtype, int8_t *dtype_format) = &b2nd_deserialize_meta; SINK(fp); }
  IGNORE_DEPRECATED_BEGIN
  { int (*fp)(int8_t ndim, uint8_t itemsize, const void *src, const int64_t *src_pad_shape, const int64_t *src_start, const int64_t *src_stop, void *dst, const int64_t *dst_pad_shape, const int64_t *dst_start) = &b2nd_copy_buffer; SINK(fp); }
  IGNORE_DEPRECATED_END
  { int (*fp)(int8_t ndim, int32_t itemsize, const void *src, const int64_t *src_pad_shape, const int64_t *src_start, const int64_t *src_stop, void *dst, const int64_t *dst_pad_shape, const int64_t *dst_start) = &b2nd_copy_buffer2; SINK(fp); }
  { int (*fp)(const uint8_t *smeta, int32_t smeta_len, int8_t *ndim, int64_t *shape, int32_t *chunkshape, int32_t *blockshape, char **dtype, int8_t *dtype_format) = &b2nd_deserialize_meta_inline; SINK(fp); }
  /* BLOSC1_COMPAT aliases */
  { int (*fp)(int clevel, int doshuffle, size_t typesize, size_t nbytes, const void* src, void* dest, size_t destsize) = &blosc_compress; SINK(fp); }
  { int (*fp)(const void* src, void* dest, size_t destsize) = &blosc_decompress; SINK(fp); }
  { int (*fp)(const void* src, int start, int nitems, void* dest) = &blosc_getitem; SINK(fp); }
  { const char* (*fp)(void) = &blosc_get_compressor; SINK(fp); }
  { int (*fp)(const char* compname) = &blosc_set_compressor; SINK(fp); }
  { void (*fp)(const void* cbuffer, size_t* nbytes, size_t* cbytes, size_t* blocksize) = &blosc_cbuffer_sizes; SINK(fp); }
  { int (*fp)(const void* cbuffer, size_t cbytes, size_t* nbytes) = &blosc_cbuffer_validate; SINK(fp); }
  { void (*fp)(const void* cbuffer, size_t* typesize, int* flags) = &blosc_cbuffer_metainfo; SINK(fp); }
  { int (*fp)(void) = &blosc_get_blocksize; SINK(fp); }
  { void (*fp)(size_t blocksize) = &blosc_set_blocksize; SINK(fp); }
  { void (*fp)(int splitmode) = &blosc_set_splitmode; SINK(fp); }
  { void (*fp)(void) = &blosc_init; SINK(fp); }
  { void (*fp)(void) = &blosc_destroy; SINK(fp); }
  { int (*fp)(void) = &blosc_free_resources; SINK(fp); }
  { int16_t (*fp)(void) = &blosc_get_nthreads; SINK(fp); }
  { int16_t (*fp)(int16_t nthreads) = &blosc_set_nthreads; SINK(fp); }
  { int (*fp)(int compcode, const char** compname) = &blosc_compcode_to_compname; SINK(fp); }
  { int (*fp)(const char* compname) = &blosc_compname_to_compcode; SINK(fp); }
  { const char* (*fp)(void) = &blosc_list_compressors; SINK(fp); }
  { const char* (*fp)(void) = &blosc_get_version_string; SINK(fp); }
  { int (*fp)(const char* compname, char** complib, char** version) = &blosc_get_complib_info; SINK(fp); }
  { void (*fp)(const void* cbuffer, int* version, int* versionlz) = &blosc_cbuffer_versions; SINK(fp); }
  { const char* (*fp)(const void* cbuffer) = &blosc_cbuffer_complib; SINK(fp); }
}

/* ------------------------------------------------------------------ */
/* Typedefs, tags and default objects                                 */
/* ------------------------------------------------------------------ */
void all_names_types(void);
void all_names_types(void) {
  { typedef void (*ref_t)(void *callback_data, void (*dojob)(void *), int numjobs, size_t jobdata_elsize, void *jobdata); ref_t a = (ref_t)0; blosc_threads_callback b = a; SINK(b); }
  { typedef void* (*ref_t)(const char *urlpath, const char *mode, void *params); ref_t a = (ref_t)0; blosc2_open_cb b = a; SINK(b); }
  { typedef int (*ref_t)(void *stream); ref_t a = (ref_t)0; blosc2_close_cb b = a; SINK(b); }
  { typedef int64_t (*ref_t)(void *stream); ref_t a = (ref_t)0; blosc2_size_cb b = a; SINK(b); }
  { typedef int64_t (*ref_t)(const void *ptr, int64_t size, int64_t nitems, int64_t position, void *stream); ref_t a = (ref_t)0; blosc2_write_cb b = a; SINK(b); }
  { typedef int64_t (*ref_t)(void **ptr, int64_t size, int64_t nitems, int64_t position, void *stream); ref_t a = (ref_t)0; blosc2_read_cb b = a; SINK(b); }
  { typedef int (*ref_t)(void *stream, int64_t size); ref_t a = (ref_t)0; blosc2_truncate_cb b = a; SINK(b); }
  { typedef int (*ref_t)(void *params); ref_t a = (ref_t)0; blosc2_destroy_cb b = a; SINK(b); }
  { typedef int (*ref_t)(blosc2_prefilter_params* params); ref_t a = (ref_t)0; blosc2_prefilter_fn b = a; SINK(b); }
  { typedef int (*ref_t)(blosc2_postfilter_params* params); ref_t a = (ref_t)0; blosc2_postfilter_fn b = a; SINK(b); }
  { typedef int (*ref_t) (const uint8_t *input, int32_t input_len, uint8_t *output, int32_t output_len, uint8_t meta, blosc2_cparams *cparams, const void* chunk); ref_t a = (ref_t)0; blosc2_codec_encoder_cb b = a; SINK(b); }
  { typedef int (*ref_t) (const uint8_t *input, int32_t input_len, uint8_t *output, int32_t output_len, uint8_t meta, blosc2_dparams *dparams, const void* chunk); ref_t a = (ref_t)0; blosc2_codec_decoder_cb b = a; SINK(b); }
  { typedef int (*ref_t) (const uint8_t *, uint8_t *, int32_t, uint8_t, blosc2_cparams *, uint8_t); ref_t a = (ref_t)0; blosc2_filter_forward_cb b = a; SINK(b); }
  { typedef int (*ref_t) (const uint8_t *, uint8_t *, int32_t, uint8_t, blosc2_dparams *, uint8_t); ref_t a = (ref_t)0; blosc2_filter_backward_cb b = a; SINK(b); }
  {
    blosc2_context *ctx = (struct blosc2_context_s *)NULL;
    blosc2_frame *frame = (struct blosc2_frame_s *)NULL;
    b2nd_context_t *nctx = (struct b2nd_context_s *)NULL;
    blosc2_metalayer *meta = (struct blosc2_metalayer *)NULL;
    blosc2_schunk *schunk = (struct blosc2_schunk *)NULL;
    struct chunk_cache_s *cache = (struct chunk_cache_s *)NULL;
    blosc_timestamp_t ts;
    blosc2_instr instr;
    codec_info ci;
    filter_info fi;
    tuner_info ti;
    blosc2_stdio_file sf;
    memset(&ts, 0, sizeof(ts));
    memset(&instr, 0, sizeof(instr));
    memset(&ci, 0, sizeof(ci));
    memset(&fi, 0, sizeof(fi));
    memset(&ti, 0, sizeof(ti));
    memset(&sf, 0, sizeof(sf));
    SINK(ctx); SINK(frame); SINK(nctx); SINK(meta); SINK(schunk); SINK(cache);
  }
  {
    const blosc2_stdio_params *a = &BLOSC2_STDIO_PARAMS_DEFAULTS;
    const blosc2_stdio_mmap *b = &BLOSC2_STDIO_MMAP_DEFAULTS;
    const blosc2_io *c = &BLOSC2_IO_DEFAULTS;
    const blosc2_cparams *d = &BLOSC2_CPARAMS_DEFAULTS;
    const blosc2_dparams *e = &BLOSC2_DPARAMS_DEFAULTS;
    const blosc2_storage *f = &BLOSC2_STORAGE_DEFAULTS;
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
    blosc2_io io = BLOSC2_IO_DEFAULTS;
    blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
    blosc2_stdio_params sp = BLOSC2_STDIO_PARAMS_DEFAULTS;
    SINK(a); SINK(b); SINK(c); SINK(d); SINK(e); SINK(f);
    SINK(cp); SINK(dp); SINK(st); SINK(io); SINK(mm); SINK(sp);
  }
}

void all_names_structs(void *p);
void all_names_structs(void *p) {
  use_blosc2_stdio_file((blosc2_stdio_file *)p);
  use_blosc2_stdio_params((blosc2_stdio_params *)p);
  use_blosc2_stdio_mmap((blosc2_stdio_mmap *)p);
  use_codec_info((codec_info *)p);
  use_filter_info((filter_info *)p);
  use_tuner_info((tuner_info *)p);
  use_blosc2_instr((blosc2_instr *)p);
  use_blosc2_io_cb((blosc2_io_cb *)p);
  use_blosc2_io((blosc2_io *)p);
  use_blosc2_tuner((blosc2_tuner *)p);
  use_blosc2_prefilter_params((blosc2_prefilter_params *)p);
  use_blosc2_postfilter_params((blosc2_postfilter_params *)p);
  use_blosc2_cparams((blosc2_cparams *)p);
  use_blosc2_dparams((blosc2_dparams *)p);
  use_blosc2_storage((blosc2_storage *)p);
  use_blosc2_metalayer((blosc2_metalayer *)p);
  use_blosc2_schunk((blosc2_schunk *)p);
  use_blosc2_codec((blosc2_codec *)p);
  use_blosc2_filter((blosc2_filter *)p);
  use_chunk_cache_s((struct chunk_cache_s *)p);
  use_b2nd_array_t((b2nd_array_t *)p);
}

/* ------------------------------------------------------------------ */
/* String macros                                                      */
/* ------------------------------------------------------------------ */
CHECK_STRING(BLOSC2_VERSION_STRING, "3.3.5");
CHECK_STRING(BLOSC2_VERSION_DATE, "$Date:: 2026-09-24 #$");
CHECK_STRING(BLOSC_VERSION_STRING, "3.3.5");
CHECK_STRING(BLOSC_VERSION_DATE, "$Date:: 2026-09-24 #$");
CHECK_STRING(BLOSC_BLOSCLZ_COMPNAME, "blosclz");
CHECK_STRING(BLOSC_LZ4_COMPNAME, "lz4");
CHECK_STRING(BLOSC_LZ4HC_COMPNAME, "lz4hc");
CHECK_STRING(BLOSC_ZLIB_COMPNAME, "zlib");
CHECK_STRING(BLOSC_ZSTD_COMPNAME, "zstd");
CHECK_STRING(BLOSC_BLOSCLZ_LIBNAME, "BloscLZ");
CHECK_STRING(BLOSC_LZ4_LIBNAME, "LZ4");
CHECK_STRING(BLOSC_ZLIB_LIBNAME, "Zlib");
CHECK_STRING(BLOSC_ZSTD_LIBNAME, "Zstd");
CHECK_STRING(B2ND_DEFAULT_DTYPE, "|u1");

/* ------------------------------------------------------------------ */
/* Function-like and attribute macros                                 */
/* ------------------------------------------------------------------ */
BLOSC_EXPORT int all_names_exported_decl(void);
BLOSC_NO_EXPORT int all_names_hidden_decl(void);
B2ND_DEPRECATED("not to be used") int all_names_deprecated_decl(void);
static int all_names_unused_helper(void) BLOSC_ATTRIBUTE_UNUSED;
static int all_names_unused_helper(void) { return 0; }

int all_names_macros(void *maybe_null, int rc, int unused_param);
int all_names_macros(void *maybe_null, int rc, int unused_param) {
  BLOSC_UNUSED_VAR int unused_local = 0;
  BLOSC_UNUSED_PARAM(unused_param);
  BLOSC_TRACE(info, "no arguments");
  BLOSC_TRACE(warning, "with arguments %d %s", 1, "two");
  BLOSC_TRACE_ERROR("error");
  BLOSC_TRACE_ERROR("error %d", rc);
  BLOSC_TRACE_WARNING("warning");
  BLOSC_TRACE_WARNING("warning %d", rc);
  BLOSC_TRACE_INFO("info");
  BLOSC_TRACE_INFO("info %d", rc);
  BLOSC_INFO("info");
  BLOSC_INFO("info %d", rc);
  BLOSC_ERROR_NULL(maybe_null, BLOSC2_ERROR_NULL_POINTER);
  BLOSC_ERROR(rc);
  return 0;
}
