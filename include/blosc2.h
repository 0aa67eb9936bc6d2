/*
 * libblosc2-rs -- C API of the Rust implementation of Blosc2.
 *
 * blosc2.h: the public interface.  This header is meant to be a drop-in
 * replacement for the one shipped with c-blosc2 3.3.x: every type, constant,
 * macro and function declared here has the same name, value, signature and
 * memory layout, so programs built against c-blosc2 keep compiling and
 * linking unchanged.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef BLOSC_BLOSC2_H
#define BLOSC_BLOSC2_H

#include "blosc2/blosc2-export.h"
#include "blosc2/blosc2-common.h"
#include "blosc2/blosc2-stdio.h"

#if defined(_WIN32) && !defined(__MINGW32__)
#  include <windows.h>
#  include <malloc.h>
#  include <process.h>
#  define getpid _getpid
#endif

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Blosc 1.x source compatibility (opt in with -DBLOSC1_COMPAT)
 * ====================================================================== */
#ifdef BLOSC1_COMPAT
/* constants that lost their "2" */
#  define BLOSC_VERSION_MAJOR    BLOSC2_VERSION_MAJOR
#  define BLOSC_VERSION_MINOR    BLOSC2_VERSION_MINOR
#  define BLOSC_VERSION_RELEASE  BLOSC2_VERSION_RELEASE
#  define BLOSC_VERSION_STRING   BLOSC2_VERSION_STRING
#  define BLOSC_VERSION_DATE     BLOSC2_VERSION_DATE
#  define BLOSC_MAX_OVERHEAD     BLOSC2_MAX_OVERHEAD
#  define BLOSC_MAX_BUFFERSIZE   BLOSC2_MAX_BUFFERSIZE
/* old entry points now living under the blosc1_ prefix */
#  define blosc_compress          blosc1_compress
#  define blosc_decompress        blosc1_decompress
#  define blosc_getitem           blosc1_getitem
#  define blosc_get_compressor    blosc1_get_compressor
#  define blosc_set_compressor    blosc1_set_compressor
#  define blosc_cbuffer_sizes     blosc1_cbuffer_sizes
#  define blosc_cbuffer_validate  blosc1_cbuffer_validate
#  define blosc_cbuffer_metainfo  blosc1_cbuffer_metainfo
#  define blosc_get_blocksize     blosc1_get_blocksize
#  define blosc_set_blocksize     blosc1_set_blocksize
#  define blosc_set_splitmode     blosc1_set_splitmode
/* old entry points now living under the blosc2_ prefix */
#  define blosc_init                  blosc2_init
#  define blosc_destroy               blosc2_destroy
#  define blosc_free_resources        blosc2_free_resources
#  define blosc_get_nthreads          blosc2_get_nthreads
#  define blosc_set_nthreads          blosc2_set_nthreads
#  define blosc_compcode_to_compname  blosc2_compcode_to_compname
#  define blosc_compname_to_compcode  blosc2_compname_to_compcode
#  define blosc_list_compressors      blosc2_list_compressors
#  define blosc_get_version_string    blosc2_get_version_string
#  define blosc_get_complib_info      blosc2_get_complib_info
#  define blosc_cbuffer_versions      blosc2_cbuffer_versions
#  define blosc_cbuffer_complib       blosc2_cbuffer_complib
#endif /* BLOSC1_COMPAT */

/* ======================================================================
 * Library version (the c-blosc2 release this library is compatible with)
 * ====================================================================== */
#define BLOSC2_VERSION_MAJOR    3
#define BLOSC2_VERSION_MINOR    3
#define BLOSC2_VERSION_RELEASE  5
#define BLOSC2_VERSION_STRING   "3.3.5"
#define BLOSC2_VERSION_DATE     "$Date:: 2026-09-24 #$"

/* ======================================================================
 * Diagnostics helpers.  Messages go to stderr, and only when the
 * BLOSC_TRACE (resp. BLOSC_INFO) environment variable is set.
 * ====================================================================== */
#define BLOSC_TRACE(cat, msg, ...)                                           \
  do {                                                                       \
    if (getenv("BLOSC_TRACE") != NULL) {                                     \
      fprintf(stderr, "[%s] - " msg " (%s:%d)\n", #cat, ##__VA_ARGS__,        \
              __FILE__, __LINE__);                                           \
    }                                                                        \
  } while (0)
#define BLOSC_TRACE_ERROR(msg, ...)   BLOSC_TRACE(error, msg, ##__VA_ARGS__)
#define BLOSC_TRACE_WARNING(msg, ...) BLOSC_TRACE(warning, msg, ##__VA_ARGS__)
#define BLOSC_TRACE_INFO(msg, ...)    BLOSC_TRACE(info, msg, ##__VA_ARGS__)

/* Return `rc` from the enclosing function when `pointer` is NULL. */
#define BLOSC_ERROR_NULL(pointer, rc)                                        \
  do {                                                                       \
    if ((pointer) == NULL) {                                                 \
      BLOSC_TRACE_ERROR("Pointer is null");                                  \
      return (rc);                                                           \
    }                                                                        \
  } while (0)

/* Return the error code `rc` from the enclosing function when it is < 0. */
#define BLOSC_ERROR(rc)                                                      \
  do {                                                                       \
    int blosc_error_rc_ = (rc);                                              \
    if (blosc_error_rc_ < BLOSC2_ERROR_SUCCESS) {                            \
      BLOSC_TRACE_ERROR("%s", print_error(blosc_error_rc_));                 \
      return blosc_error_rc_;                                                \
    }                                                                        \
  } while (0)

/* Informational message, printed when BLOSC_INFO is set. */
#define BLOSC_INFO(msg, ...)                                                 \
  do {                                                                       \
    if (getenv("BLOSC_INFO") != NULL) {                                      \
      fprintf(stderr, "[INFO] - " msg "\n", ##__VA_ARGS__);                  \
    }                                                                        \
  } while (0)

/* ======================================================================
 * Format versions
 * ====================================================================== */

/* Chunk format version, stored in the first header byte. */
enum {
  BLOSC1_VERSION_FORMAT_PRE1 = 1,       /* before Blosc 1.0 */
  BLOSC1_VERSION_FORMAT = 2,            /* Blosc 1.x */
  BLOSC2_VERSION_FORMAT_ALPHA = 3,      /* Blosc 2 alpha releases */
  BLOSC2_VERSION_FORMAT_BETA1 = 4,      /* Blosc 2 beta.1 */
  BLOSC2_VERSION_FORMAT_STABLE = 5,     /* Blosc 2.x stable */
  BLOSC2_VERSION_FORMAT_VL_BLOCKS = 6,  /* adds variable-length blocks */
  BLOSC2_VERSION_FORMAT = BLOSC2_VERSION_FORMAT_VL_BLOCKS, /* newest understood */
};

/* Contiguous-frame format version (4 bits in the frame header). */
enum {
  BLOSC2_VERSION_FRAME_FORMAT_BETA2 = 1,      /* since 2.0.0-beta2 */
  BLOSC2_VERSION_FRAME_FORMAT_RC1 = 2,        /* since 2.0.0-rc1 */
  BLOSC2_VERSION_FRAME_FORMAT_VL_BLOCKS = 3,  /* adds variable-length blocks */
  BLOSC2_VERSION_FRAME_FORMAT = BLOSC2_VERSION_FRAME_FORMAT_VL_BLOCKS, /* newest */
};

/* Codec instrumentation record (written instead of data when
   blosc2_cparams.instr_codec is set; development aid). */
typedef struct {
  float cratio;
  float cspeed;
  float filter_speed;
  uint8_t flags[4];
} blosc2_instr;

/* Header sizes and buffer limits. */
enum {
#ifndef BLOSC_H
  BLOSC_MIN_HEADER_LENGTH = 16,        /* Blosc1 header */
#endif
  BLOSC_EXTENDED_HEADER_LENGTH = 32,   /* Blosc2 header */
  BLOSC2_MAX_OVERHEAD = BLOSC_EXTENDED_HEADER_LENGTH,
                                       /* worst-case growth of a compressed buffer */
  BLOSC2_MAX_BUFFERSIZE = (INT_MAX - BLOSC2_MAX_OVERHEAD),
                                       /* largest input accepted */
#ifndef BLOSC_H
  BLOSC_MAX_TYPESIZE = UINT8_MAX,      /* larger types are handled as bytes */
#endif
  BLOSC_MIN_BUFFERSIZE = 32,           /* smallest buffer worth compressing */
};

/* ======================================================================
 * Tuners, filters and codecs: id ranges and built-in ids
 * ====================================================================== */

/* Tuner id ranges: 0-31 built in, 32-159 global registry, 160-255 user. */
enum {
  BLOSC2_DEFINED_TUNER_START = 0,
  BLOSC2_DEFINED_TUNER_STOP = 31,
  BLOSC2_GLOBAL_REGISTERED_TUNER_START = 32,
  BLOSC2_GLOBAL_REGISTERED_TUNER_STOP = 159,
  BLOSC2_GLOBAL_REGISTERED_TUNERS = 0,     /* how many global tuners exist */
  BLOSC2_USER_REGISTERED_TUNER_START = 160,
  BLOSC2_USER_REGISTERED_TUNER_STOP = 255,
};

/* Built-in tuners. */
enum {
  BLOSC_STUNE = 0,              /* the default heuristic tuner */
  BLOSC_LAST_TUNER = 1,         /* one past the last built-in tuner */
  BLOSC_LAST_REGISTERED_TUNE =
      BLOSC2_GLOBAL_REGISTERED_TUNER_START + BLOSC2_GLOBAL_REGISTERED_TUNERS - 1,
};

/* Filter id ranges: 0-31 built in, 32-159 global registry, 160-255 user. */
enum {
  BLOSC2_DEFINED_FILTERS_START = 0,
  BLOSC2_DEFINED_FILTERS_STOP = 31,
  BLOSC2_GLOBAL_REGISTERED_FILTERS_START = 32,
  BLOSC2_GLOBAL_REGISTERED_FILTERS_STOP = 159,
  BLOSC2_GLOBAL_REGISTERED_FILTERS = 5,    /* how many global filters exist */
  BLOSC2_USER_REGISTERED_FILTERS_START = 160,
  BLOSC2_USER_REGISTERED_FILTERS_STOP = 255,
  BLOSC2_MAX_FILTERS = 6,                  /* slots in the filter pipeline */
  BLOSC2_MAX_UDFILTERS = 16,               /* user filters that can be registered */
};

/* Built-in filters (values for the `filters` pipeline slots). */
enum {
#ifndef BLOSC_H
  BLOSC_NOSHUFFLE = 0,    /* Blosc1 spelling of "no filter" */
  BLOSC_NOFILTER = 0,     /* empty slot */
  BLOSC_SHUFFLE = 1,      /* byte shuffle; filters_meta = number of streams (0: typesize) */
  BLOSC_BITSHUFFLE = 2,   /* bit shuffle */
#endif
  BLOSC_DELTA = 3,        /* XOR against the first block */
  BLOSC_TRUNC_PREC = 4,   /* float mantissa truncation; filters_meta >0 keeps, <0 drops bits */
  BLOSC_LAST_FILTER = 5,  /* one past the last built-in filter */
  BLOSC_LAST_REGISTERED_FILTER =
      BLOSC2_GLOBAL_REGISTERED_FILTERS_START + BLOSC2_GLOBAL_REGISTERED_FILTERS - 1,
};

/* Bits of the Blosc1 `flags` header byte (see blosc1_cbuffer_metainfo). */
enum {
#ifndef BLOSC_H
  BLOSC_DOSHUFFLE = 0x1,
  BLOSC_MEMCPYED = 0x2,      /* data stored uncompressed */
  BLOSC_DOBITSHUFFLE = 0x4,
#endif
  BLOSC_DODELTA = 0x8,
};

/* Bits of the Blosc2-specific flags byte. */
enum {
  BLOSC2_USEDICT = 0x1,      /* a dictionary was used */
  BLOSC2_BIGENDIAN = 0x2,    /* data is big-endian */
  BLOSC2_INSTR_CODEC = 0x80, /* chunk holds instrumentation records */
};

/* Bits of the secondary Blosc2 flags byte. */
enum {
  BLOSC2_VL_BLOCKS = 0x1,    /* blocks have individual (variable) lengths */
};

/* Capability limits. */
enum {
  BLOSC2_MAXDICTSIZE = 32 * 1024,          /* largest dictionary */
  BLOSC2_MINUSEFULDICT = 256,              /* smaller dictionaries are not used */
  BLOSC2_MAXBLOCKSIZE = 536866816,         /* largest block */
  BLOSC2_MAXTYPESIZE = BLOSC2_MAXBLOCKSIZE,/* largest item size */
};

/* Codec id ranges: 0-31 built in, 32-159 global registry, 160-255 user. */
enum {
  BLOSC2_DEFINED_CODECS_START = 0,
  BLOSC2_DEFINED_CODECS_STOP = 31,
  BLOSC2_GLOBAL_REGISTERED_CODECS_START = 32,
  BLOSC2_GLOBAL_REGISTERED_CODECS_STOP = 159,
  BLOSC2_GLOBAL_REGISTERED_CODECS = 5,     /* how many global codecs exist */
  BLOSC2_USER_REGISTERED_CODECS_START = 160,
  BLOSC2_USER_REGISTERED_CODECS_STOP = 255,
};

/* Built-in codecs (values for `compcode`). */
enum {
#ifndef BLOSC_H
  BLOSC_BLOSCLZ = 0,
  BLOSC_LZ4 = 1,
  BLOSC_LZ4HC = 2,
  BLOSC_ZLIB = 4,
  BLOSC_ZSTD = 5,
#endif
  BLOSC_LAST_CODEC = 6,   /* one past the last built-in codec */
  BLOSC_LAST_REGISTERED_CODEC =
      BLOSC2_GLOBAL_REGISTERED_CODECS_START + BLOSC2_GLOBAL_REGISTERED_CODECS - 1,
};

/* Codec names as accepted by blosc2_compname_to_compcode(). */
#ifndef BLOSC_H
#  define BLOSC_BLOSCLZ_COMPNAME  "blosclz"
#  define BLOSC_LZ4_COMPNAME      "lz4"
#  define BLOSC_LZ4HC_COMPNAME    "lz4hc"
#  define BLOSC_ZLIB_COMPNAME     "zlib"
#  define BLOSC_ZSTD_COMPNAME     "zstd"
#endif

/* Compression library codes stored in the header (3 bits). */
enum {
#ifndef BLOSC_H
  BLOSC_BLOSCLZ_LIB = 0,
  BLOSC_LZ4_LIB = 1,
  BLOSC_ZLIB_LIB = 3,
  BLOSC_ZSTD_LIB = 4,
#endif
  BLOSC_UDCODEC_LIB = 6,  /* user-defined / registered codec */
  BLOSC_SCHUNK_LIB = 7,   /* codec recorded in the super-chunk header */
};

/* Compression library names (see blosc2_get_complib_info). */
#ifndef BLOSC_H
#  define BLOSC_BLOSCLZ_LIBNAME  "BloscLZ"
#  define BLOSC_LZ4_LIBNAME      "LZ4"
#  define BLOSC_ZLIB_LIBNAME     "Zlib"
#  define BLOSC_ZSTD_LIBNAME     "Zstd"
#endif

/* Stream format of each codec (LZ4 and LZ4HC produce the same format). */
enum {
#ifndef BLOSC_H
  BLOSC_BLOSCLZ_FORMAT = BLOSC_BLOSCLZ_LIB,
  BLOSC_LZ4_FORMAT = BLOSC_LZ4_LIB,
  BLOSC_LZ4HC_FORMAT = BLOSC_LZ4_LIB,
  BLOSC_ZLIB_FORMAT = BLOSC_ZLIB_LIB,
  BLOSC_ZSTD_FORMAT = BLOSC_ZSTD_LIB,
#endif
  BLOSC_UDCODEC_FORMAT = BLOSC_UDCODEC_LIB,
};

/* Per-codec stream format versions (all currently 1). */
enum {
#ifndef BLOSC_H
  BLOSC_BLOSCLZ_VERSION_FORMAT = 1,
  BLOSC_LZ4_VERSION_FORMAT = 1,
  BLOSC_LZ4HC_VERSION_FORMAT = 1,
  BLOSC_ZLIB_VERSION_FORMAT = 1,
  BLOSC_ZSTD_VERSION_FORMAT = 1,
#endif
  BLOSC_UDCODEC_VERSION_FORMAT = 1,
};

/* Whether blocks are split into one stream per byte of the item.
   FORWARD_COMPAT (the default) gives the most portable output, AUTO picks
   heuristically, ALWAYS/NEVER force the choice. */
#ifndef BLOSC_H
enum {
  BLOSC_ALWAYS_SPLIT = 1,
  BLOSC_NEVER_SPLIT = 2,
  BLOSC_AUTO_SPLIT = 3,
  BLOSC_FORWARD_COMPAT_SPLIT = 4,
};
#endif

/* Byte offsets of the fields of a Blosc2 chunk header. */
enum {
  BLOSC2_CHUNK_VERSION = 0x0,         /* chunk format version */
  BLOSC2_CHUNK_VERSIONLZ = 0x1,       /* codec format version */
  BLOSC2_CHUNK_FLAGS = 0x2,           /* flags + codec */
  BLOSC2_CHUNK_TYPESIZE = 0x3,        /* uint8 item size */
  BLOSC2_CHUNK_NBYTES = 0x4,          /* int32 uncompressed size */
  BLOSC2_CHUNK_BLOCKSIZE = 0x8,       /* int32 block size */
  BLOSC2_CHUNK_CBYTES = 0xc,          /* int32 compressed size incl. header */
  BLOSC2_CHUNK_FILTER_CODES = 0x10,   /* filter ids, one byte each */
  BLOSC2_CHUNK_FILTER_META = 0x18,    /* filter meta, one byte each */
  BLOSC2_CHUNK_BLOSC2_FLAGS2 = 0x1e,  /* secondary Blosc2 flags */
  BLOSC2_CHUNK_BLOSC2_FLAGS = 0x1F,   /* Blosc2 flags */
};

/* Kinds of special (run-length) chunks. */
enum {
  BLOSC2_NO_SPECIAL = 0x0,
  BLOSC2_SPECIAL_ZERO = 0x1,     /* all zeros */
  BLOSC2_SPECIAL_NAN = 0x2,      /* all NaNs */
  BLOSC2_SPECIAL_VALUE = 0x3,    /* one repeated value */
  BLOSC2_SPECIAL_UNINIT = 0x4,   /* uninitialized contents */
  BLOSC2_SPECIAL_LASTID = 0x4,   /* highest id in use */
  BLOSC2_SPECIAL_MASK = 0x7      /* mask selecting the special id bits */
};

/* Error codes returned by the library (always negative, 0 = success).
   blosc2_error_string() gives a human readable text for each. */
enum {
  BLOSC2_ERROR_SUCCESS = 0,
  BLOSC2_ERROR_FAILURE = -1,
  BLOSC2_ERROR_STREAM = -2,
  BLOSC2_ERROR_DATA = -3,
  BLOSC2_ERROR_MEMORY_ALLOC = -4,
  BLOSC2_ERROR_READ_BUFFER = -5,
  BLOSC2_ERROR_WRITE_BUFFER = -6,
  BLOSC2_ERROR_CODEC_SUPPORT = -7,
  BLOSC2_ERROR_CODEC_PARAM = -8,
  BLOSC2_ERROR_CODEC_DICT = -9,
  BLOSC2_ERROR_VERSION_SUPPORT = -10,
  BLOSC2_ERROR_INVALID_HEADER = -11,
  BLOSC2_ERROR_INVALID_PARAM = -12,
  BLOSC2_ERROR_FILE_READ = -13,
  BLOSC2_ERROR_FILE_WRITE = -14,
  BLOSC2_ERROR_FILE_OPEN = -15,
  BLOSC2_ERROR_NOT_FOUND = -16,
  BLOSC2_ERROR_RUN_LENGTH = -17,
  BLOSC2_ERROR_FILTER_PIPELINE = -18,
  BLOSC2_ERROR_CHUNK_INSERT = -19,
  BLOSC2_ERROR_CHUNK_APPEND = -20,
  BLOSC2_ERROR_CHUNK_UPDATE = -21,
  BLOSC2_ERROR_2GB_LIMIT = -22,
  BLOSC2_ERROR_SCHUNK_COPY = -23,
  BLOSC2_ERROR_FRAME_TYPE = -24,
  BLOSC2_ERROR_FILE_TRUNCATE = -25,
  BLOSC2_ERROR_THREAD_CREATE = -26,
  BLOSC2_ERROR_POSTFILTER = -27,
  BLOSC2_ERROR_FRAME_SPECIAL = -28,
  BLOSC2_ERROR_SCHUNK_SPECIAL = -29,
  BLOSC2_ERROR_PLUGIN_IO = -30,
  BLOSC2_ERROR_FILE_REMOVE = -31,
  BLOSC2_ERROR_NULL_POINTER = -32,
  BLOSC2_ERROR_INVALID_INDEX = -33,
  BLOSC2_ERROR_METALAYER_NOT_FOUND = -34,
  BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED = -35,
  BLOSC2_ERROR_TUNER = -36,
  BLOSC2_ERROR_LOCK = -37,
};

#if defined(__GNUC__)
#  define BLOSC_ATTRIBUTE_UNUSED __attribute__((unused))
#else
#  define BLOSC_ATTRIBUTE_UNUSED
#endif

/* Static, never-NULL description of an error code ("Unknown error" for
   codes the library does not know). */
BLOSC_EXPORT const char *blosc2_error_string(int error_code);

/* Legacy alias of blosc2_error_string(); the text must not be modified. */
static char *print_error(int rc) BLOSC_ATTRIBUTE_UNUSED;
static char *print_error(int rc) {
  const char *text = blosc2_error_string(rc);
  return (char *)text;
}

/* ======================================================================
 * Global state and the Blosc1-style API
 * ====================================================================== */

/* Set up / tear down the global library state.  Needed by the functions
   that use global settings; the *_ctx functions work without it. */
BLOSC_EXPORT void blosc2_init(void);
BLOSC_EXPORT void blosc2_destroy(void);

/*
 * Compress `nbytes` of `src` into `dest` (at most `destsize` bytes) using
 * the global settings.  Returns the compressed size, 0 if it does not fit,
 * or a negative error code.  A `destsize` of nbytes + BLOSC2_MAX_OVERHEAD is
 * always sufficient.  The BLOSC_CLEVEL, BLOSC_SHUFFLE, BLOSC_DELTA,
 * BLOSC_TYPESIZE, BLOSC_COMPRESSOR, BLOSC_NTHREADS, BLOSC_SPLITMODE,
 * BLOSC_BLOCKSIZE and BLOSC_NOLOCK environment variables override the
 * corresponding settings.
 */
BLOSC_EXPORT int blosc1_compress(int clevel, int doshuffle, size_t typesize,
                                 size_t nbytes, const void *src, void *dest,
                                 size_t destsize);

/* Decompress `src` into `dest` (capacity `destsize`).  Returns the number
   of bytes produced or a negative error code.  Honors BLOSC_NTHREADS and
   BLOSC_NOLOCK. */
BLOSC_EXPORT int blosc1_decompress(const void *src, void *dest, size_t destsize);

/* Extract `nitems` items starting at item `start` from a compressed buffer.
   Returns the number of bytes written or a negative error code.  Prefer
   blosc2_getitem(), which also checks the buffer sizes. */
BLOSC_EXPORT int blosc1_getitem(const void *src, int start, int nitems, void *dest);

/* Bounds-checked version of blosc1_getitem(). */
BLOSC_EXPORT int blosc2_getitem(const void *src, int32_t srcsize, int start, int nitems,
                                void *dest, int32_t destsize);

/* Custom thread pool hook: `callback` must run dojob(jobdata + i*jobdata_elsize)
   for i in [0, numjobs) and return when all are done. */
typedef void (*blosc_threads_callback)(void *callback_data, void (*dojob)(void *),
                                       int numjobs, size_t jobdata_elsize,
                                       void *jobdata);

/* Install (or remove, with NULL) a thread pool hook for all contexts. */
BLOSC_EXPORT void blosc2_set_threads_callback(blosc_threads_callback callback,
                                              void *callback_data);

/* Global number of threads: get it, or set it and get the previous value. */
BLOSC_EXPORT int16_t blosc2_get_nthreads(void);
BLOSC_EXPORT int16_t blosc2_set_nthreads(int16_t nthreads);

/* Global codec, by name: get it, or set it (returns its code or -1). */
BLOSC_EXPORT const char *blosc1_get_compressor(void);
BLOSC_EXPORT int blosc1_set_compressor(const char *compname);

/* Enable (1) or disable (0) the delta filter in the global settings. */
BLOSC_EXPORT void blosc2_set_delta(int dodelta);

/* Translate between codec codes and names.  compcode_to_compname returns
   the code (or -1 if unknown) and stores the name; compname_to_compcode
   returns the code or -1. */
BLOSC_EXPORT int blosc2_compcode_to_compname(int compcode, const char **compname);
BLOSC_EXPORT int blosc2_compname_to_compcode(const char *compname);

/* Comma-separated list of the available codecs. */
BLOSC_EXPORT const char *blosc2_list_compressors(void);

/* The library version, e.g. "3.3.5". */
BLOSC_EXPORT const char *blosc2_get_version_string(void);

/* Library name and version behind a codec; both strings are malloc'ed and
   owned by the caller.  Returns the library code or -1. */
BLOSC_EXPORT int blosc2_get_complib_info(const char *compname, char **complib,
                                         char **version);

/* Release global resources (thread pool, ...).  Returns 0 or < 0 on error. */
BLOSC_EXPORT int blosc2_free_resources(void);

/* Sizes recorded in a compressed buffer header (Blosc1 flavour: no checks). */
BLOSC_EXPORT void blosc1_cbuffer_sizes(const void *cbuffer, size_t *nbytes,
                                       size_t *cbytes, size_t *blocksize);

/* Sizes recorded in a compressed buffer header; any output may be NULL.
   Returns 0 or a negative error code. */
BLOSC_EXPORT int blosc2_cbuffer_sizes(const void *cbuffer, int32_t *nbytes,
                                      int32_t *cbytes, int32_t *blocksize);

/* Check that a buffer of `cbytes` holds a plausible Blosc header and report
   its uncompressed size.  Returns 0 when valid, negative otherwise. */
BLOSC_EXPORT int blosc1_cbuffer_validate(const void *cbuffer, size_t cbytes,
                                         size_t *nbytes);

/* Item size and flag byte of a compressed buffer. */
BLOSC_EXPORT void blosc1_cbuffer_metainfo(const void *cbuffer, size_t *typesize,
                                          int *flags);

/* Chunk format version and codec format version of a compressed buffer. */
BLOSC_EXPORT void blosc2_cbuffer_versions(const void *cbuffer, int *version,
                                          int *versionlz);

/* Name of the compression library used for a compressed buffer. */
BLOSC_EXPORT const char *blosc2_cbuffer_complib(const void *cbuffer);

/* ======================================================================
 * Pluggable I/O backends
 * ====================================================================== */

/* Ids of the built-in backends and bounds of the registry. */
enum {
  BLOSC2_IO_FILESYSTEM = 0,          /* plain files (stdio) */
  BLOSC2_IO_FILESYSTEM_MMAP = 1,     /* memory-mapped files */
  BLOSC_IO_LAST_BLOSC_DEFINED = 2,   /* one past the last built-in backend */
  BLOSC_IO_LAST_REGISTERED = 32,     /* one past the last globally registered backend */
};

/* Id ranges: < 32 built in, 32-159 registered, 160-255 user defined. */
enum {
  BLOSC2_IO_BLOSC_DEFINED = 32,
  BLOSC2_IO_REGISTERED = 160,
  BLOSC2_IO_USER_DEFINED = 256
};

/* Backend callbacks.  Sizes/positions are in bytes except for the
   size/nitems pairs, which count `nitems` elements of `size` bytes.
   `read` may replace *ptr with a pointer into backend-owned memory when the
   backend does not need an allocated buffer (see is_allocation_necessary). */
typedef void *(*blosc2_open_cb)(const char *urlpath, const char *mode, void *params);
typedef int (*blosc2_close_cb)(void *stream);
typedef int64_t (*blosc2_size_cb)(void *stream);
typedef int64_t (*blosc2_write_cb)(const void *ptr, int64_t size, int64_t nitems,
                                   int64_t position, void *stream);
typedef int64_t (*blosc2_read_cb)(void **ptr, int64_t size, int64_t nitems,
                                  int64_t position, void *stream);
typedef int (*blosc2_truncate_cb)(void *stream, int64_t size);
typedef int (*blosc2_destroy_cb)(void *params);

/* A registered I/O backend. */
typedef struct {
  uint8_t id;
  char *name;
  bool is_allocation_necessary;   /* read() needs a caller-allocated buffer */
  blosc2_open_cb open;
  blosc2_close_cb close;
  blosc2_size_cb size;
  blosc2_write_cb write;
  blosc2_read_cb read;
  blosc2_truncate_cb truncate;
  blosc2_destroy_cb destroy;      /* frees `params` when the storage goes away */
} blosc2_io_cb;

/* Selects the I/O backend of a super-chunk: `id` of a registered backend,
   its `name`, and backend-specific `params` (may be NULL). */
typedef struct {
  uint8_t id;
  const char *name;
  void *params;
} blosc2_io;

/* Default I/O: the plain file backend without parameters. */
static const blosc2_io BLOSC2_IO_DEFAULTS = {
  BLOSC2_IO_FILESYSTEM, "filesystem", NULL,
};

/* Register a user I/O backend (the struct is copied).  Returns 0 or < 0. */
BLOSC_EXPORT int blosc2_register_io_cb(const blosc2_io_cb *io);

/* Look up a registered backend by id; NULL when there is none. */
BLOSC_EXPORT blosc2_io_cb *blosc2_get_io_cb(uint8_t id);

/* ======================================================================
 * Contexts, tuners, prefilters/postfilters and compression parameters
 * ====================================================================== */

/* Opaque compression or decompression context. */
typedef struct blosc2_context_s blosc2_context;

/* A tuner: hooks that let an external component choose the block size and
   compression parameters while a super-chunk is being filled. */
typedef struct {
  int (*init)(void *config, blosc2_context *cctx, blosc2_context *dctx);
  int (*next_blocksize)(blosc2_context *context);
  int (*next_cparams)(blosc2_context *context);
  int (*update)(blosc2_context *context, double ctime);
  int (*free)(blosc2_context *context);
  int id;          /* 160..255 for user tuners */
  char *name;
} blosc2_tuner;

/* Register a user tuner.  Returns 0 or < 0. */
BLOSC_EXPORT int blosc2_register_tuner(blosc2_tuner *tuner);

/* Argument of a prefilter call: produce `output_size` bytes of the block
   `nblock` of chunk `nchunk` into `output`, typically from `input`. */
typedef struct {
  void *user_data;           /* copy of the user pointer given in cparams */
  const uint8_t *input;      /* source data of the block */
  uint8_t *output;           /* where the filtered block goes */
  int32_t output_size;       /* bytes to produce */
  int32_t output_typesize;   /* item size of the output */
  int32_t output_offset;     /* offset of the block within the chunk */
  int64_t nchunk;            /* chunk index within the super-chunk (or -1) */
  int32_t nblock;            /* block index within the chunk */
  int32_t tid;               /* worker thread id */
  uint8_t *ttmp;             /* per-thread scratch buffer */
  size_t ttmp_nbytes;        /* size of ttmp */
  blosc2_context *ctx;       /* the compression context */
  bool output_is_disposable; /* output only feeds heuristics and is discarded */
} blosc2_prefilter_params;

/* Argument of a postfilter call: transform the `size` decompressed bytes
   of block `nblock` from `input` into `output`. */
typedef struct {
  void *user_data;
  const uint8_t *input;
  uint8_t *output;
  int32_t size;
  int32_t typesize;
  int32_t offset;
  int64_t nchunk;
  int32_t nblock;
  int32_t tid;
  uint8_t *ttmp;
  size_t ttmp_nbytes;
  blosc2_context *ctx;
} blosc2_postfilter_params;

/* Prefilter/postfilter callbacks; return 0 on success. */
typedef int (*blosc2_prefilter_fn)(blosc2_prefilter_params *params);
typedef int (*blosc2_postfilter_fn)(blosc2_postfilter_params *params);

/* Compression parameters (start from BLOSC2_CPARAMS_DEFAULTS). */
typedef struct {
  uint8_t compcode;          /* codec id */
  uint8_t compcode_meta;     /* codec-specific parameter */
  uint8_t clevel;            /* 0 (store) .. 9 (max) */
  int use_dict;              /* train and use a dictionary (zstd) */
  int32_t typesize;          /* item size in bytes */
  int16_t nthreads;          /* compression threads */
  int32_t blocksize;         /* 0 selects it automatically */
  int32_t splitmode;         /* one of the BLOSC_*_SPLIT values */
  void *schunk;              /* owning super-chunk, if any */
  uint8_t filters[BLOSC2_MAX_FILTERS];      /* filter pipeline, applied in order */
  uint8_t filters_meta[BLOSC2_MAX_FILTERS]; /* parameter of each filter */
  blosc2_prefilter_fn prefilter;            /* optional prefilter */
  blosc2_prefilter_params *preparams;       /* its parameters */
  void *tuner_params;        /* tuner configuration */
  int tuner_id;              /* tuner to use (BLOSC_STUNE by default) */
  bool instr_codec;          /* emit instrumentation instead of data */
  void *codec_params;        /* codec plugin parameters */
  void *filter_params[BLOSC2_MAX_FILTERS];  /* filter plugin parameters */
} blosc2_cparams;

/* Defaults: blosclz, clevel 5, typesize 8, one thread, automatic block
   size, byte shuffle in the last pipeline slot, forward-compatible split. */
static const blosc2_cparams BLOSC2_CPARAMS_DEFAULTS = {
  BLOSC_BLOSCLZ,                      /* compcode */
  0,                                  /* compcode_meta */
  5,                                  /* clevel */
  0,                                  /* use_dict */
  8,                                  /* typesize */
  1,                                  /* nthreads */
  0,                                  /* blocksize */
  BLOSC_FORWARD_COMPAT_SPLIT,         /* splitmode */
  NULL,                               /* schunk */
  {0, 0, 0, 0, 0, BLOSC_SHUFFLE},     /* filters */
  {0, 0, 0, 0, 0, 0},                 /* filters_meta */
  NULL,                               /* prefilter */
  NULL,                               /* preparams */
  NULL,                               /* tuner_params */
  0,                                  /* tuner_id */
  0,                                  /* instr_codec */
  NULL,                               /* codec_params */
  {NULL, NULL, NULL, NULL, NULL, NULL} /* filter_params */
};

/* Decompression parameters (start from BLOSC2_DPARAMS_DEFAULTS). */
typedef struct {
  int16_t nthreads;                     /* decompression threads */
  void *schunk;                         /* owning super-chunk, if any */
  blosc2_postfilter_fn postfilter;      /* optional postfilter */
  blosc2_postfilter_params *postparams; /* its parameters */
  int32_t typesize;                     /* item size for the postfilter */
} blosc2_dparams;

/* Defaults: one thread, no postfilter, typesize 8. */
static const blosc2_dparams BLOSC2_DPARAMS_DEFAULTS = {1, NULL, NULL, NULL, 8};

/* Create a context from parameters (the struct is copied); NULL on error.
   Free it with blosc2_free_ctx(). */
BLOSC_EXPORT blosc2_context *blosc2_create_cctx(blosc2_cparams cparams);
BLOSC_EXPORT blosc2_context *blosc2_create_dctx(blosc2_dparams dparams);
BLOSC_EXPORT void blosc2_free_ctx(blosc2_context *context);

/* Copy the parameters of a context out.  Return 0 or < 0. */
BLOSC_EXPORT int blosc2_ctx_get_cparams(blosc2_context *ctx, blosc2_cparams *cparams);
BLOSC_EXPORT int blosc2_ctx_get_dparams(blosc2_context *ctx, blosc2_dparams *dparams);

/* For the next decompression with `ctx` only: skip every block whose entry
   of `maskout` (length `nblocks`) is true.  Returns 0 or < 0. */
BLOSC_EXPORT int blosc2_set_maskout(blosc2_context *ctx, bool *maskout, int nblocks);

/* Compress/decompress with the global settings (Blosc2 flavour, int32
   sizes).  Return the produced size (0 = did not fit when compressing) or a
   negative error code. */
BLOSC_EXPORT int blosc2_compress(int clevel, int doshuffle, int32_t typesize,
                                 const void *src, int32_t srcsize, void *dest,
                                 int32_t destsize);
BLOSC_EXPORT int blosc2_decompress(const void *src, int32_t srcsize,
                                   void *dest, int32_t destsize);

/* Compress `src` with a compression context.  Same results as above. */
BLOSC_EXPORT int blosc2_compress_ctx(blosc2_context *context, const void *src,
                                     int32_t srcsize, void *dest,
                                     int32_t destsize);

/* Build a variable-length-block chunk: block i holds srcs[i] (srcsizes[i]
   bytes).  Returns the chunk size or < 0. */
BLOSC_EXPORT int blosc2_vlcompress_ctx(blosc2_context *context,
                                       const void *const *srcs,
                                       const int32_t *srcsizes, int32_t nblocks,
                                       void *dest, int32_t destsize);

/* Decompress `src` with a decompression context.  Returns the bytes
   produced or < 0. */
BLOSC_EXPORT int blosc2_decompress_ctx(blosc2_context *context, const void *src,
                                       int32_t srcsize, void *dest,
                                       int32_t destsize);

/* Decompress every block of a variable-length-block chunk into freshly
   malloc'ed buffers dests[i] (sizes in destsizes[i]); at most `maxblocks`.
   Returns the number of blocks or < 0. */
BLOSC_EXPORT int blosc2_vldecompress_ctx(blosc2_context *context, const void *src,
                                         int32_t srcsize, void **dests,
                                         int32_t *destsizes, int32_t maxblocks);

/* Number of blocks of a variable-length-block chunk.  Returns 0 or < 0. */
BLOSC_EXPORT int blosc2_vlchunk_get_nblocks(const void *src, int32_t srcsize,
                                            int32_t *nblocks);

/* Decompress one block of a variable-length-block chunk into a malloc'ed
   buffer (*dest, *destsize).  Returns its size or < 0. */
BLOSC_EXPORT int blosc2_vldecompress_block_ctx(blosc2_context *context,
                                               const void *src, int32_t srcsize,
                                               int32_t nblock, uint8_t **dest,
                                               int32_t *destsize);

/* Write a special chunk representing `nbytes` of zeros, NaNs, copies of
   `repeatval` (typesize bytes) or uninitialized data.  `destsize` must be
   at least BLOSC_EXTENDED_HEADER_LENGTH (+ typesize for repeatval).
   Return the chunk size or < 0. */
BLOSC_EXPORT int blosc2_chunk_zeros(blosc2_cparams cparams, int32_t nbytes,
                                    void *dest, int32_t destsize);
BLOSC_EXPORT int blosc2_chunk_nans(blosc2_cparams cparams, int32_t nbytes,
                                   void *dest, int32_t destsize);
BLOSC_EXPORT int blosc2_chunk_repeatval(blosc2_cparams cparams, int32_t nbytes,
                                        void *dest, int32_t destsize,
                                        const void *repeatval);
BLOSC_EXPORT int blosc2_chunk_uninit(blosc2_cparams cparams, int32_t nbytes,
                                     void *dest, int32_t destsize);

/* Extract items (getitem_ctx) or a byte range (getitem_bytes_ctx) from a
   compressed chunk.  Return the bytes written or < 0. */
BLOSC_EXPORT int blosc2_getitem_ctx(blosc2_context *context, const void *src,
                                    int32_t srcsize, int start, int nitems,
                                    void *dest, int32_t destsize);
BLOSC_EXPORT int blosc2_getitem_bytes_ctx(blosc2_context *context, const void *src,
                                          int32_t srcsize, int32_t start,
                                          int32_t nbytes, void *dest,
                                          int32_t destsize);

/* ======================================================================
 * Super-chunks
 * ====================================================================== */

/* Metalayer limits. */
#define BLOSC2_MAX_METALAYERS 16
#define BLOSC2_METALAYER_NAME_MAXLEN 31
#define BLOSC2_MAX_VLMETALAYERS (8 * 1024)
#define BLOSC2_VLMETALAYERS_NAME_MAXLEN BLOSC2_METALAYER_NAME_MAXLEN

/* Where and how a super-chunk is stored.  A NULL urlpath keeps it in
   memory; `contiguous` picks a single-file frame over a directory of
   chunk files.  NULL cparams/dparams/io use the defaults. */
typedef struct {
  bool contiguous;
  char *urlpath;
  blosc2_cparams *cparams;
  blosc2_dparams *dparams;
  blosc2_io *io;
} blosc2_storage;

/* Default storage: in memory, sparse, default parameters. */
static const blosc2_storage BLOSC2_STORAGE_DEFAULTS = {false, NULL, NULL, NULL, NULL};

/* The default structs as functions, for languages without access to the
   static initializers. */
BLOSC_EXPORT blosc2_cparams blosc2_get_blosc2_cparams_defaults(void);
BLOSC_EXPORT blosc2_dparams blosc2_get_blosc2_dparams_defaults(void);
BLOSC_EXPORT blosc2_storage blosc2_get_blosc2_storage_defaults(void);
BLOSC_EXPORT blosc2_io blosc2_get_blosc2_io_defaults(void);
BLOSC_EXPORT blosc2_stdio_mmap blosc2_get_blosc2_stdio_mmap_defaults(void);

/* Opaque frame (serialized super-chunk) state. */
typedef struct blosc2_frame_s blosc2_frame;

/* A fixed-size metalayer: named content stored in the frame header. */
typedef struct blosc2_metalayer {
  char *name;
  uint8_t *content;
  int32_t content_len;
} blosc2_metalayer;

/* A super-chunk: a sequence of compressed chunks sharing parameters and
   metadata.  Most members are read-only for users. */
typedef struct blosc2_schunk {
  uint8_t version;
  uint8_t compcode;
  uint8_t compcode_meta;
  uint8_t clevel;
  uint8_t splitmode;
  int32_t typesize;
  int32_t blocksize;
  int32_t chunksize;         /* common chunk size (-1 when chunks differ) */
  uint8_t flags2;
  uint8_t use_dict;
  uint8_t filters[BLOSC2_MAX_FILTERS];
  uint8_t filters_meta[BLOSC2_MAX_FILTERS];
  int64_t nchunks;
  int64_t current_nchunk;    /* chunk being processed (for prefilters) */
  int64_t nbytes;            /* total uncompressed bytes */
  int64_t cbytes;            /* total compressed bytes */
  uint8_t **data;            /* chunk pointers (in-memory sparse storage) */
  size_t data_len;
  blosc2_storage *storage;
  blosc2_frame *frame;       /* non-NULL for frame-backed super-chunks */
  blosc2_context *cctx;
  blosc2_context *dctx;
  struct blosc2_metalayer *metalayers[BLOSC2_MAX_METALAYERS];
  uint16_t nmetalayers;
  struct blosc2_metalayer *vlmetalayers[BLOSC2_MAX_VLMETALAYERS];
  int16_t nvlmetalayers;
  void *tuner_params;
  int tuner_id;
  int8_t ndim;               /* dimensions known to the tuner */
  int64_t *blockshape;       /* block shape known to the tuner */
  bool view;                 /* borrowed data: freeing leaves it alone */
  int64_t change_tick;       /* bumped on every modification */
} blosc2_schunk;

/* Create an empty super-chunk.  NULL on error. */
BLOSC_EXPORT blosc2_schunk *blosc2_schunk_new(blosc2_storage *storage);

/* Deep copy into a (possibly different) storage.  NULL on error. */
BLOSC_EXPORT blosc2_schunk *blosc2_schunk_copy(blosc2_schunk *schunk, blosc2_storage *storage);

/* Open an in-memory contiguous frame of `len` bytes; with copy == false
   the buffer is borrowed and must outlive the super-chunk. */
BLOSC_EXPORT blosc2_schunk *blosc2_schunk_from_buffer(uint8_t *cframe, int64_t len, bool copy);

/* Control whether freeing the super-chunk also frees its frame buffer. */
BLOSC_EXPORT void blosc2_schunk_avoid_cframe_free(blosc2_schunk *schunk,
                                                  bool avoid_cframe_free);

/* Hold the exclusive frame lock across several operations so that they
   act atomically (re-entrant; a no-op returning 0 unless the handle has
   file locking enabled).  Return 0 or < 0 (e.g. BLOSC2_ERROR_LOCK). */
BLOSC_EXPORT int blosc2_schunk_lock(blosc2_schunk *schunk);
BLOSC_EXPORT int blosc2_schunk_unlock(blosc2_schunk *schunk);

/* Pick up changes made to an on-disk frame through other handles or
   processes (counters and metalayers).  Returns 1 when something was
   reloaded, 0 when already up to date, < 0 on error. */
BLOSC_EXPORT int blosc2_schunk_refresh(blosc2_schunk *schunk);

/* Open a super-chunk stored on disk (optionally at a byte `offset` inside
   the file, optionally through a user I/O backend).  NULL on error. */
BLOSC_EXPORT blosc2_schunk *blosc2_schunk_open(const char *urlpath);
BLOSC_EXPORT blosc2_schunk *blosc2_schunk_open_offset(const char *urlpath, int64_t offset);
BLOSC_EXPORT blosc2_schunk *blosc2_schunk_open_udio(const char *urlpath,
                                                    const blosc2_io *udio);
BLOSC_EXPORT blosc2_schunk *blosc2_schunk_open_offset_udio(const char *urlpath,
                                                           int64_t offset,
                                                           const blosc2_io *udio);

/* Serialize to a contiguous frame in memory; *needs_free tells whether the
   caller owns *cframe.  Returns the frame length or < 0. */
BLOSC_EXPORT int64_t blosc2_schunk_to_buffer(blosc2_schunk *schunk, uint8_t **cframe,
                                             bool *needs_free);

/* Write as a contiguous frame to a new file, or append one to an existing
   file.  Return the frame size (to_file) / its offset (append) or < 0. */
BLOSC_EXPORT int64_t blosc2_schunk_to_file(blosc2_schunk *schunk, const char *urlpath);
BLOSC_EXPORT int64_t blosc2_schunk_append_file(blosc2_schunk *schunk, const char *urlpath);

/* Release a super-chunk and everything it owns. */
BLOSC_EXPORT int blosc2_schunk_free(blosc2_schunk *schunk);

/* Append/update/insert an already compressed chunk.  With copy == false
   the super-chunk takes ownership of `chunk`.  Return the new number of
   chunks or < 0. */
BLOSC_EXPORT int64_t blosc2_schunk_append_chunk(blosc2_schunk *schunk, uint8_t *chunk,
                                                bool copy);
BLOSC_EXPORT int64_t blosc2_schunk_update_chunk(blosc2_schunk *schunk, int64_t nchunk,
                                                uint8_t *chunk, bool copy);
BLOSC_EXPORT int64_t blosc2_schunk_insert_chunk(blosc2_schunk *schunk, int64_t nchunk,
                                                uint8_t *chunk, bool copy);

/* Remove chunk `nchunk`.  Returns the new number of chunks or < 0. */
BLOSC_EXPORT int64_t blosc2_schunk_delete_chunk(blosc2_schunk *schunk, int64_t nchunk);

/* Compress `nbytes` of `src` as a new chunk.  Returns the new number of
   chunks or < 0. */
BLOSC_EXPORT int64_t blosc2_schunk_append_buffer(blosc2_schunk *schunk, const void *src,
                                                 int32_t nbytes);

/* Decompress chunk `nchunk` into `dest` (capacity `nbytes`).  Returns the
   decompressed size or < 0. */
BLOSC_EXPORT int blosc2_schunk_decompress_chunk(blosc2_schunk *schunk, int64_t nchunk,
                                                void *dest, int32_t nbytes);

/* Compressed chunk `nchunk` (get_lazychunk may only load its header and
   index for on-disk frames); *needs_free tells whether the caller must
   free(*chunk).  Return the chunk size or < 0. */
BLOSC_EXPORT int blosc2_schunk_get_chunk(blosc2_schunk *schunk, int64_t nchunk,
                                         uint8_t **chunk, bool *needs_free);
BLOSC_EXPORT int blosc2_schunk_get_lazychunk(blosc2_schunk *schunk, int64_t nchunk,
                                             uint8_t **chunk, bool *needs_free);

/* One block of a variable-length-block chunk, decompressed into a
   malloc'ed buffer.  Returns its size or < 0. */
BLOSC_EXPORT int blosc2_schunk_get_vlblock(blosc2_schunk *schunk, int64_t nchunk,
                                           int32_t nblock, uint8_t **dest,
                                           int32_t *destsize);

/* Read items [start, stop) into `buffer`, or the `ncoords` items listed in
   `coords`, or overwrite items [start, stop) from `buffer`.  0 or < 0. */
BLOSC_EXPORT int blosc2_schunk_get_slice_buffer(blosc2_schunk *schunk, int64_t start,
                                                int64_t stop, void *buffer);
BLOSC_EXPORT int blosc2_schunk_get_sparse_buffer(blosc2_schunk *schunk, int64_t ncoords,
                                                 const int64_t *coords, void *buffer);
BLOSC_EXPORT int blosc2_schunk_set_slice_buffer(blosc2_schunk *schunk, int64_t start,
                                                int64_t stop, void *buffer);

/* Malloc'ed copies of the super-chunk parameters (caller frees).  0 or < 0. */
BLOSC_EXPORT int blosc2_schunk_get_cparams(blosc2_schunk *schunk, blosc2_cparams **cparams);
BLOSC_EXPORT int blosc2_schunk_get_dparams(blosc2_schunk *schunk, blosc2_dparams **dparams);

/* Permute the chunk order of a frame: chunk i becomes offsets_order[i]. */
BLOSC_EXPORT int blosc2_schunk_reorder_offsets(blosc2_schunk *schunk, int64_t *offsets_order);

/* Current length in bytes of the frame backing the super-chunk. */
BLOSC_EXPORT int64_t blosc2_schunk_frame_len(blosc2_schunk *schunk);

/* Fill an empty super-chunk with `nitems` special values (one of the
   BLOSC2_SPECIAL_* kinds) using chunks of `chunksize` bytes.  Returns the
   number of chunks or < 0. */
BLOSC_EXPORT int64_t blosc2_schunk_fill_special(blosc2_schunk *schunk, int64_t nitems,
                                                int special_value, int32_t chunksize);

/* ======================================================================
 * Metalayers (fixed size, stored in the frame header)
 * ====================================================================== */

/* Index of the metalayer called `name`, or BLOSC2_ERROR_NOT_FOUND;
   BLOSC2_ERROR_INVALID_PARAM for an over-long name or a NULL schunk. */
static inline int blosc2_meta_exists(blosc2_schunk *schunk, const char *name) {
  int idx;
  if (strlen(name) > BLOSC2_METALAYER_NAME_MAXLEN) {
    BLOSC_TRACE_ERROR("Metalayer names are limited to %d characters.",
                      BLOSC2_METALAYER_NAME_MAXLEN);
    return BLOSC2_ERROR_INVALID_PARAM;
  }
  if (schunk == NULL) {
    BLOSC_TRACE_ERROR("The super-chunk is NULL.");
    return BLOSC2_ERROR_INVALID_PARAM;
  }
  for (idx = 0; idx < (int)schunk->nmetalayers; ++idx) {
    if (strcmp(schunk->metalayers[idx]->name, name) == 0) {
      return idx;
    }
  }
  return BLOSC2_ERROR_NOT_FOUND;
}

/* Add a new metalayer / replace the content of an existing one (the new
   content may not be longer than the old one).  Return its index or < 0. */
BLOSC_EXPORT int blosc2_meta_add(blosc2_schunk *schunk, const char *name, uint8_t *content,
                                 int32_t content_len);
BLOSC_EXPORT int blosc2_meta_update(blosc2_schunk *schunk, const char *name, uint8_t *content,
                                    int32_t content_len);

/* Malloc'ed copy of the content of metalayer `name` (NULL when empty).
   Returns the metalayer index or a negative error code. */
static inline int blosc2_meta_get(blosc2_schunk *schunk, const char *name, uint8_t **content,
                                  int32_t *content_len) {
  int idx;
  int32_t nbytes;
  const blosc2_metalayer *meta;
  uint8_t *copy;

  if (schunk == NULL || name == NULL || content == NULL || content_len == NULL) {
    BLOSC_TRACE_ERROR("blosc2_meta_get: NULL argument.");
    return BLOSC2_ERROR_INVALID_PARAM;
  }
  idx = blosc2_meta_exists(schunk, name);
  if (idx < 0) {
    BLOSC_TRACE_WARNING("No metalayer called \"%s\".", name);
    return idx;
  }
  meta = schunk->metalayers[idx];
  nbytes = meta->content_len;
  if (nbytes < 0) {
    BLOSC_TRACE_ERROR("Metalayer \"%s\": invalid content length %d.", name, nbytes);
    return BLOSC2_ERROR_DATA;
  }
  *content_len = nbytes;
  if (nbytes == 0) {
    *content = NULL;
    return idx;
  }
  copy = (uint8_t *)malloc((size_t)nbytes);
  if (copy == NULL) {
    BLOSC_TRACE_ERROR("Out of memory copying metalayer \"%s\".", name);
    *content = NULL;
    *content_len = 0;
    return BLOSC2_ERROR_MEMORY_ALLOC;
  }
  if (meta->content == NULL) {
    free(copy);
    *content = NULL;
    *content_len = 0;
    BLOSC_TRACE_ERROR("Metalayer \"%s\": content is missing.", name);
    return BLOSC2_ERROR_DATA;
  }
  memcpy(copy, meta->content, (size_t)nbytes);
  *content = copy;
  return idx;
}

/* ======================================================================
 * Variable-length metalayers (stored in the frame trailer, compressed)
 * ====================================================================== */

/* Index of vlmetalayer `name` or BLOSC2_ERROR_NOT_FOUND. */
BLOSC_EXPORT int blosc2_vlmeta_exists(blosc2_schunk *schunk, const char *name);

/* Add or replace a vlmetalayer, compressing it with `cparams` (NULL:
   defaults).  Return its index or < 0. */
BLOSC_EXPORT int blosc2_vlmeta_add(blosc2_schunk *schunk, const char *name,
                                   uint8_t *content, int32_t content_len,
                                   blosc2_cparams *cparams);
BLOSC_EXPORT int blosc2_vlmeta_update(blosc2_schunk *schunk, const char *name,
                                      uint8_t *content, int32_t content_len,
                                      blosc2_cparams *cparams);

/* Malloc'ed, decompressed content of vlmetalayer `name`.  Returns its
   index or < 0. */
BLOSC_EXPORT int blosc2_vlmeta_get(blosc2_schunk *schunk, const char *name,
                                   uint8_t **content, int32_t *content_len);

/* Remove a vlmetalayer.  Returns the number remaining or < 0. */
BLOSC_EXPORT int blosc2_vlmeta_delete(blosc2_schunk *schunk, const char *name);

/* Store pointers to the vlmetalayer names (owned by the super-chunk) in
   `names`, which needs room for schunk->nvlmetalayers entries.  Returns
   the count or < 0. */
BLOSC_EXPORT int blosc2_vlmeta_get_names(blosc2_schunk *schunk, char **names);

/* ======================================================================
 * Timing utilities
 * ====================================================================== */

#if defined(_WIN32)
#  include <windows.h>
#elif defined(__MACH__) && defined(__APPLE__)
#  include <mach/clock.h>
#  include <mach/mach.h>
#  include <time.h>
#elif defined(__unix__)
#  if defined(__linux__)
#    include <time.h>
#  else
#    include <sys/time.h>
#  endif
#else
#  error Unable to detect platform.
#endif

/* A point in time as used by the functions below. */
#if defined(_WIN32)
typedef LARGE_INTEGER blosc_timestamp_t;
#else
typedef struct timespec blosc_timestamp_t;
#endif

/* Store the current (monotonic) time. */
BLOSC_EXPORT void blosc_set_timestamp(blosc_timestamp_t *timestamp);

/* Time between two timestamps in nanoseconds / seconds. */
BLOSC_EXPORT double blosc_elapsed_nsecs(blosc_timestamp_t start_time,
                                        blosc_timestamp_t end_time);
BLOSC_EXPORT double blosc_elapsed_secs(blosc_timestamp_t start_time,
                                       blosc_timestamp_t end_time);

/* ======================================================================
 * More global settings (Blosc1 heritage)
 * ====================================================================== */

/* Forced block size of the global settings (0 = automatic). */
BLOSC_EXPORT int blosc1_get_blocksize(void);
BLOSC_EXPORT void blosc1_set_blocksize(size_t blocksize);

/* Split mode of the global settings (a BLOSC_*_SPLIT value). */
BLOSC_EXPORT void blosc1_set_splitmode(int splitmode);

/* Decoded chunk offsets of a frame-backed super-chunk (malloc'ed, one per
   chunk); NULL on error. */
BLOSC_EXPORT int64_t *blosc2_frame_get_offsets(blosc2_schunk *schunk);

/* ======================================================================
 * User-defined codecs and filters
 * ====================================================================== */

/* Codec callbacks: return the number of bytes written to `output`,
   0 when the data does not compress, or < 0 on error.  `chunk` is the
   chunk being (de)compressed. */
typedef int (*blosc2_codec_encoder_cb)(const uint8_t *input, int32_t input_len,
                                       uint8_t *output, int32_t output_len,
                                       uint8_t meta, blosc2_cparams *cparams,
                                       const void *chunk);
typedef int (*blosc2_codec_decoder_cb)(const uint8_t *input, int32_t input_len,
                                       uint8_t *output, int32_t output_len,
                                       uint8_t meta, blosc2_dparams *dparams,
                                       const void *chunk);

/* A codec that can be registered with blosc2_register_codec(). */
typedef struct {
  uint8_t compcode;          /* 160..255 for user codecs */
  char *compname;
  uint8_t complib;
  uint8_t version;
  blosc2_codec_encoder_cb encoder;
  blosc2_codec_decoder_cb decoder;
} blosc2_codec;

/* Register a user codec.  Returns 0 or < 0.  Ids below 160 are refused,
   except those of the codecs registered at start without an implementation
   (36..40 of codecs-registry.h, and the ZFP ones 33..35 in a build without
   zfp): registering one of these replaces the placeholder, name included,
   and the id then behaves as a user one (an extension: the reference
   refuses every id below 160). */
BLOSC_EXPORT int blosc2_register_codec(blosc2_codec *codec);

/* Filter callbacks: (src, dest, size, meta, params, filter id).  Return 0
   on success. */
typedef int (*blosc2_filter_forward_cb)(const uint8_t *, uint8_t *, int32_t, uint8_t,
                                        blosc2_cparams *, uint8_t);
typedef int (*blosc2_filter_backward_cb)(const uint8_t *, uint8_t *, int32_t, uint8_t,
                                         blosc2_dparams *, uint8_t);

/* A filter that can be registered with blosc2_register_filter(). */
typedef struct {
  uint8_t id;                /* 160..255 for user filters */
  char *name;
  uint8_t version;
  blosc2_filter_forward_cb forward;
  blosc2_filter_backward_cb backward;
} blosc2_filter;

/* Register a user filter.  Returns 0 or < 0. */
BLOSC_EXPORT int blosc2_register_filter(blosc2_filter *filter);

/* ======================================================================
 * Miscellaneous utilities
 * ====================================================================== */

/* Remove a directory with its (flat) contents / remove a file or directory
   / rename.  Return 0 or < 0. */
BLOSC_EXPORT int blosc2_remove_dir(const char *path);
BLOSC_EXPORT int blosc2_remove_urlpath(const char *path);
BLOSC_EXPORT int blosc2_rename_urlpath(char *old_urlpath, char *new_path);

/* Convert between a C-order flat index and an n-dimensional index. */
BLOSC_EXPORT void blosc2_unidim_to_multidim(uint8_t ndim, int64_t *shape, int64_t i,
                                            int64_t *index);
BLOSC_EXPORT void blosc2_multidim_to_unidim(const int64_t *index, int8_t ndim,
                                            const int64_t *strides, int64_t *i);

/* Indexes of the chunks touched by the n-dimensional slice [start, stop),
   in a malloc'ed array.  Returns the count or < 0. */
BLOSC_EXPORT int64_t blosc2_get_slice_nchunks(blosc2_schunk *schunk, int64_t *start,
                                              int64_t *stop, int64_t **chunks_idx);

/* The shuffle kernels on their own (one block of `blocksize` bytes).
   Return `blocksize` or < 0. */
BLOSC_EXPORT int32_t blosc2_shuffle(const int32_t typesize, const int32_t blocksize,
                                    const void *src, void *dest);
BLOSC_EXPORT int32_t blosc2_unshuffle(const int32_t typesize, const int32_t blocksize,
                                      const void *src, void *dest);
BLOSC_EXPORT int32_t blosc2_bitshuffle(const int32_t typesize, const int32_t blocksize,
                                       const void *src, void *dest);
BLOSC_EXPORT int32_t blosc2_bitunshuffle(const int32_t typesize, const int32_t blocksize,
                                         const void *src, void *dest);

/* Store the `size`-byte (1, 2, 4 or 8) big-endian value at `pa` into `dest`
   in native byte order (a plain copy on big-endian hosts).  Other sizes
   are reported on stderr and copied unchanged.  `dest` and `pa` may
   overlap. */
static inline void swap_store(void *dest, const void *pa, int size) {
  const uint8_t *in = (const uint8_t *)pa;
  uint8_t tmp[8];
  const uint16_t probe = 1;
  int k;

  if (size != 1 && size != 2 && size != 4 && size != 8) {
    if (*(const uint8_t *)&probe == 1) {
      fprintf(stderr, "Unhandled nitems: %d\n", size);
    }
    if (size > 0) {
      memmove(dest, pa, (size_t)size);
    }
    return;
  }
  if (*(const uint8_t *)&probe == 1) {
    for (k = 0; k < size; ++k) {
      tmp[k] = in[size - 1 - k];
    }
  } else {
    memcpy(tmp, in, (size_t)size);
  }
  memcpy(dest, tmp, (size_t)size);
}

#ifdef __cplusplus
}
#endif

#endif /* BLOSC_BLOSC2_H */
