/*
 * libblosc2-rs -- C API of the Rust implementation of Blosc2.
 *
 * b2nd.h: n-dimensional compressed arrays built on top of super-chunks.
 * Drop-in compatible with the b2nd.h header of c-blosc2 3.3.x.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef BLOSC_B2ND_H
#define BLOSC_B2ND_H

#include "blosc2/blosc2-export.h"
#include "blosc2.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks functions that are kept only for backwards compatibility. */
#if defined(_MSC_VER)
#  define B2ND_DEPRECATED(msg) __declspec(deprecated(msg))
#elif defined(__GNUC__) || defined(__clang__)
#  define B2ND_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#  define B2ND_DEPRECATED(msg)
#endif

/* Version of the "b2nd" metalayer layout (0..127). */
#define B2ND_METALAYER_VERSION 0

/* Most dimensions an array can have. */
#define B2ND_MAX_DIM 16

/* User metalayers an array can carry (one slot is taken by "b2nd"). */
#define B2ND_MAX_METALAYERS (BLOSC2_MAX_METALAYERS - 1)

/* dtype_format value meaning "dtype is a NumPy type string". */
#define DTYPE_NUMPY_FORMAT 0

/* dtype used when none is given: unsigned bytes. */
#define B2ND_DEFAULT_DTYPE "|u1"
#define B2ND_DEFAULT_DTYPE_FORMAT DTYPE_NUMPY_FORMAT

/* Single-chunk cache of an array: the last decompressed chunk and its
   index (nchunk == -1 when empty). */
struct chunk_cache_s {
  uint8_t *data;
  int64_t nchunk;
};

/* Opaque creation parameters (storage, shapes, dtype, metalayers). */
typedef struct b2nd_context_s b2nd_context_t;

/* An n-dimensional array.  The "ext" members describe the shapes padded up
   to whole chunks/blocks; the stride members are in items.  Treat every
   member as read-only. */
typedef struct {
  blosc2_schunk *sc;                          /* backing super-chunk */
  int64_t shape[B2ND_MAX_DIM];                /* logical shape */
  int32_t chunkshape[B2ND_MAX_DIM];
  int64_t extshape[B2ND_MAX_DIM];             /* shape padded to whole chunks */
  int32_t blockshape[B2ND_MAX_DIM];
  int64_t extchunkshape[B2ND_MAX_DIM];        /* chunk shape padded to whole blocks */
  int64_t nitems;                             /* items in `shape` */
  int32_t chunknitems;
  int64_t extnitems;
  int32_t blocknitems;
  int64_t extchunknitems;
  int8_t ndim;
  struct chunk_cache_s chunk_cache;
  int64_t item_array_strides[B2ND_MAX_DIM];
  int64_t item_chunk_strides[B2ND_MAX_DIM];
  int64_t item_extchunk_strides[B2ND_MAX_DIM];
  int64_t item_block_strides[B2ND_MAX_DIM];
  int64_t block_chunk_strides[B2ND_MAX_DIM];
  int64_t chunk_array_strides[B2ND_MAX_DIM];
  char *dtype;                                /* type description (see dtype_format) */
  int8_t dtype_format;                        /* DTYPE_NUMPY_FORMAT by default */
  int64_t last_tick;                          /* sc->change_tick seen at last sync */
} b2nd_array_t;

/* ----------------------------------------------------------------------
 * Creation parameters
 * ---------------------------------------------------------------------- */

/* Bundle the creation parameters of an array.  `metalayers` (up to
   B2ND_MAX_METALAYERS) are added to every array made from the context;
   dtype NULL means B2ND_DEFAULT_DTYPE.  NULL on error. */
BLOSC_EXPORT b2nd_context_t *
b2nd_create_ctx(const blosc2_storage *b2_storage, int8_t ndim, const int64_t *shape,
                const int32_t *chunkshape, const int32_t *blockshape, const char *dtype,
                int8_t dtype_format, const blosc2_metalayer *metalayers,
                int32_t nmetalayers);

/* Release a context.  Returns 0 or < 0. */
BLOSC_EXPORT int b2nd_free_ctx(b2nd_context_t *ctx);

/* ----------------------------------------------------------------------
 * Constructors / destructor.  All return 0 on success or a negative
 * BLOSC2_ERROR_* code, and store the new array in *array.
 * ---------------------------------------------------------------------- */

/* Array whose contents are undefined (no chunk is written). */
BLOSC_EXPORT int b2nd_uninit(b2nd_context_t *ctx, b2nd_array_t **array);
/* Array whose contents are unspecified (cheap special chunks). */
BLOSC_EXPORT int b2nd_empty(b2nd_context_t *ctx, b2nd_array_t **array);
/* Array of zeros. */
BLOSC_EXPORT int b2nd_zeros(b2nd_context_t *ctx, b2nd_array_t **array);
/* Array of NaNs (float32/float64 items only). */
BLOSC_EXPORT int b2nd_nans(b2nd_context_t *ctx, b2nd_array_t **array);
/* Array filled with the item at `fill_value`. */
BLOSC_EXPORT int b2nd_full(b2nd_context_t *ctx, b2nd_array_t **array, const void *fill_value);

/* Release an array together with its super-chunk. */
BLOSC_EXPORT int b2nd_free(b2nd_array_t *array);

/* Wrap a super-chunk that carries a "b2nd" metalayer (the array takes
   ownership of it). */
BLOSC_EXPORT int b2nd_from_schunk(blosc2_schunk *schunk, b2nd_array_t **array);

/* Serialize to a contiguous frame; *needs_free says whether the caller
   must free *cframe. */
BLOSC_EXPORT int b2nd_to_cframe(const b2nd_array_t *array, uint8_t **cframe,
                                int64_t *cframe_len, bool *needs_free);

/* Load from a contiguous frame, copying it or borrowing it. */
BLOSC_EXPORT int b2nd_from_cframe(uint8_t *cframe, int64_t cframe_len, bool copy,
                                  b2nd_array_t **array);

/* Open an array stored on disk (optionally at a byte offset in the file). */
BLOSC_EXPORT int b2nd_open(const char *urlpath, b2nd_array_t **array);
BLOSC_EXPORT int b2nd_open_offset(const char *urlpath, b2nd_array_t **array, int64_t offset);

/* Write to `urlpath` (frame or directory, following the array storage). */
BLOSC_EXPORT int b2nd_save(const b2nd_array_t *array, char *urlpath);

/* Append as a contiguous frame to a file; returns the offset it was
   written at, or < 0. */
BLOSC_EXPORT int64_t b2nd_save_append(const b2nd_array_t *array, const char *urlpath);

/* ----------------------------------------------------------------------
 * Data access
 * ---------------------------------------------------------------------- */

/* New array holding a C-order copy of `buffer` (`buffersize` bytes). */
BLOSC_EXPORT int b2nd_from_cbuffer(b2nd_context_t *ctx, b2nd_array_t **array,
                                   const void *buffer, int64_t buffersize);

/* Copy the whole array, in C order, into `buffer`. */
BLOSC_EXPORT int b2nd_to_cbuffer(const b2nd_array_t *array, void *buffer, int64_t buffersize);

/* Gather the items at the `ncoords` flat C-order indexes `coords` (any
   order, repeats allowed) into `buffer`.  Returns >= 0 or < 0. */
BLOSC_EXPORT int b2nd_get_sparse_cbuffer(const b2nd_array_t *array, int64_t ncoords,
                                         const int64_t *coords, void *buffer,
                                         int64_t buffersize);

/* New array (parameters from ctx; ndim/shape from the slice) holding the
   region [start, stop) of `src`. */
BLOSC_EXPORT int b2nd_get_slice(b2nd_context_t *ctx, b2nd_array_t **array,
                                const b2nd_array_t *src, const int64_t *start,
                                const int64_t *stop);

/* Views without the length-1 dimensions flagged in `index` / without all
   length-1 dimensions. */
BLOSC_EXPORT int b2nd_squeeze_index(b2nd_array_t *array, b2nd_array_t **view,
                                    const bool *index);
BLOSC_EXPORT int b2nd_squeeze(b2nd_array_t *array, b2nd_array_t **view);

/* View with new length-1 dimensions where `axis` (final_dims entries) is
   true. */
BLOSC_EXPORT int b2nd_expand_dims(const b2nd_array_t *array, b2nd_array_t **view,
                                  const bool *axis, const uint8_t final_dims);

/* Copy the region [start, stop) into a C-order buffer of shape
   `buffershape`, or write such a buffer into that region. */
BLOSC_EXPORT int b2nd_get_slice_cbuffer(const b2nd_array_t *array, const int64_t *start,
                                        const int64_t *stop, void *buffer,
                                        const int64_t *buffershape, int64_t buffersize);
BLOSC_EXPORT int b2nd_set_slice_cbuffer(const void *buffer, const int64_t *buffershape,
                                        int64_t buffersize, const int64_t *start,
                                        const int64_t *stop, b2nd_array_t *array);

/* Copy of `src` laid out following `ctx`. */
BLOSC_EXPORT int b2nd_copy(b2nd_context_t *ctx, const b2nd_array_t *src, b2nd_array_t **array);

/* Join src1 and src2 along `axis`, into a new array (copy == true) or by
   growing src1 in place. */
BLOSC_EXPORT int b2nd_concatenate(b2nd_context_t *ctx, const b2nd_array_t *src1,
                                  const b2nd_array_t *src2, int8_t axis, bool copy,
                                  b2nd_array_t **array);

/* Dump the "b2nd" metalayer to stdout. */
BLOSC_EXPORT int b2nd_print_meta(const b2nd_array_t *array);

/* Change the shape; `start` (NULL = at the end) tells where items are
   added or removed along each dimension. */
BLOSC_EXPORT int b2nd_resize(b2nd_array_t *array, const int64_t *new_shape,
                             const int64_t *start);

/* Pick up shape/metalayer changes made through other handles.  Returns 1
   when something was reloaded, 0 when already current, < 0 on error. */
BLOSC_EXPORT int b2nd_refresh(b2nd_array_t *array);

/* Grow along `axis` by inserting `buffer` at insert_start / at the end. */
BLOSC_EXPORT int b2nd_insert(b2nd_array_t *array, const void *buffer, int64_t buffersize,
                             int8_t axis, int64_t insert_start);
BLOSC_EXPORT int b2nd_append(b2nd_array_t *array, const void *buffer, int64_t buffersize,
                             int8_t axis);

/* Shrink along `axis` by removing delete_len items from delete_start. */
BLOSC_EXPORT int b2nd_delete(b2nd_array_t *array, int8_t axis,
                             int64_t delete_start, int64_t delete_len);

/* Orthogonal (outer) indexing: selection[d] lists selection_size[d]
   indexes along dimension d.  Read into / write from a C-order buffer of
   shape `buffershape`. */
BLOSC_EXPORT int b2nd_get_orthogonal_selection(const b2nd_array_t *array, int64_t **selection,
                                               int64_t *selection_size, void *buffer,
                                               int64_t *buffershape, int64_t buffersize);
BLOSC_EXPORT int b2nd_set_orthogonal_selection(b2nd_array_t *array, int64_t **selection,
                                               int64_t *selection_size, const void *buffer,
                                               int64_t *buffershape, int64_t buffersize);

/* ----------------------------------------------------------------------
 * The "b2nd" metalayer (msgpack encoded)
 * ---------------------------------------------------------------------- */

/* Encode the metalayer into a malloc'ed buffer *smeta.  Returns its length
   or < 0. */
BLOSC_EXPORT int b2nd_serialize_meta(int8_t ndim, const int64_t *shape,
                                     const int32_t *chunkshape, const int32_t *blockshape,
                                     const char *dtype, int8_t dtype_format,
                                     uint8_t **smeta);

/*
 * Decode the metalayer without calling into the library (usable by plugins
 * that do not link against it).  Fills ndim and the three shapes; when both
 * `dtype` and `dtype_format` are non-NULL also returns the dtype (malloc'ed,
 * NUL terminated; NULL/0 when the metalayer has none).  Returns the number
 * of bytes consumed, BLOSC2_ERROR_NULL_POINTER for missing arguments,
 * BLOSC2_ERROR_FAILURE for malformed or truncated input and
 * BLOSC2_ERROR_MEMORY_ALLOC when the dtype cannot be allocated.
 *
 * Layout: fixarray marker, version, ndim, then three msgpack arrays
 * (shape as int64, chunkshape and blockshape as int32, each element
 * prefixed by a type byte, big-endian), then optionally the dtype format
 * byte followed by a str32 (0xdb, big-endian length, bytes).
 */
static inline int b2nd_deserialize_meta_inline(const uint8_t *smeta, int32_t smeta_len,
                                               int8_t *ndim, int64_t *shape,
                                               int32_t *chunkshape, int32_t *blockshape,
                                               char **dtype, int8_t *dtype_format) {
  size_t total;
  size_t pos = 0;
  int nd;
  int d;
  int part;
  int k;

  BLOSC_ERROR_NULL(smeta, BLOSC2_ERROR_NULL_POINTER);
  BLOSC_ERROR_NULL(ndim, BLOSC2_ERROR_NULL_POINTER);
  BLOSC_ERROR_NULL(shape, BLOSC2_ERROR_NULL_POINTER);
  BLOSC_ERROR_NULL(chunkshape, BLOSC2_ERROR_NULL_POINTER);
  BLOSC_ERROR_NULL(blockshape, BLOSC2_ERROR_NULL_POINTER);
  if (dtype != NULL) {
    *dtype = NULL;
  }
  if (dtype_format != NULL) {
    *dtype_format = 0;
  }
  if (smeta_len <= 0) {
    BLOSC_TRACE_ERROR("b2nd metalayer is empty");
    return BLOSC2_ERROR_FAILURE;
  }
  total = (size_t)smeta_len;

  /* fixarray marker, format version and ndim: three single bytes */
  if (total < 3) {
    BLOSC_TRACE_ERROR("b2nd metalayer is truncated");
    return BLOSC2_ERROR_FAILURE;
  }
  *ndim = (int8_t)smeta[2];
  nd = (int)*ndim;
  if (nd < 0 || nd > B2ND_MAX_DIM) {
    BLOSC_TRACE_ERROR("b2nd metalayer: ndim %d is out of range", nd);
    return BLOSC2_ERROR_FAILURE;
  }
  pos = 3;

  /* part 0: shape (int64), part 1: chunkshape, part 2: blockshape (int32) */
  for (part = 0; part < 3; ++part) {
    const size_t width = (part == 0) ? 8 : 4;
    for (d = 0; d < nd; ++d) {
      if (part == 0) {
        shape[d] = 1;
      } else if (part == 1) {
        chunkshape[d] = 1;
      } else {
        blockshape[d] = 1;
      }
    }
    if (total - pos < 1) {  /* array marker */
      BLOSC_TRACE_ERROR("b2nd metalayer is truncated");
      return BLOSC2_ERROR_FAILURE;
    }
    pos += 1;
    for (d = 0; d < nd; ++d) {
      uint64_t value = 0;
      if (total - pos < 1 + width) {  /* type byte + big-endian integer */
        BLOSC_TRACE_ERROR("b2nd metalayer is truncated");
        return BLOSC2_ERROR_FAILURE;
      }
      pos += 1;
      for (k = 0; k < (int)width; ++k) {
        value = (value << 8) | (uint64_t)smeta[pos + (size_t)k];
      }
      pos += width;
      if (part == 0) {
        shape[d] = (int64_t)value;
      } else if (part == 1) {
        chunkshape[d] = (int32_t)(uint32_t)value;
      } else {
        blockshape[d] = (int32_t)(uint32_t)value;
      }
    }
  }

  if (dtype == NULL || dtype_format == NULL) {
    return (int)pos;
  }
  if (pos < total) {
    uint32_t raw_len = 0;
    size_t dlen;
    char *text;
    /* format byte + str32 marker + 4-byte length */
    if (total - pos < 6) {
      BLOSC_TRACE_ERROR("b2nd metalayer is truncated");
      return BLOSC2_ERROR_FAILURE;
    }
    *dtype_format = (int8_t)smeta[pos];
    pos += 1;
    if (smeta[pos] != 0xdb) {
      BLOSC_TRACE_ERROR("b2nd metalayer: dtype is not a msgpack str32");
      return BLOSC2_ERROR_FAILURE;
    }
    pos += 1;
    for (k = 0; k < 4; ++k) {
      raw_len = (raw_len << 8) | (uint32_t)smeta[pos + (size_t)k];
    }
    pos += 4;
    if ((int32_t)raw_len < 0) {
      BLOSC_TRACE_ERROR("b2nd metalayer: negative dtype length");
      return BLOSC2_ERROR_FAILURE;
    }
    dlen = (size_t)raw_len;
    if (total - pos < dlen) {
      BLOSC_TRACE_ERROR("b2nd metalayer is truncated");
      return BLOSC2_ERROR_FAILURE;
    }
    text = (char *)malloc(dlen + 1);
    BLOSC_ERROR_NULL(text, BLOSC2_ERROR_MEMORY_ALLOC);
    if (dlen > 0) {
      memcpy(text, smeta + pos, dlen);
    }
    text[dlen] = '\0';
    *dtype = text;
    pos += dlen;
  } else {
    *dtype = NULL;
    *dtype_format = 0;
  }
  return (int)pos;
}

/* Library (non-inline) version of b2nd_deserialize_meta_inline(). */
BLOSC_EXPORT int b2nd_deserialize_meta(const uint8_t *smeta, int32_t smeta_len, int8_t *ndim,
                                       int64_t *shape, int32_t *chunkshape,
                                       int32_t *blockshape, char **dtype,
                                       int8_t *dtype_format);

/* Copy the region [src_start, src_stop) of a padded C-order buffer into a
   padded C-order buffer at dst_start.  b2nd_copy_buffer2 accepts item
   sizes above 255.  Return 0 or < 0. */
B2ND_DEPRECATED("Use b2nd_copy_buffer2 instead.")
BLOSC_EXPORT int b2nd_copy_buffer(int8_t ndim,
                                  uint8_t itemsize,
                                  const void *src, const int64_t *src_pad_shape,
                                  const int64_t *src_start, const int64_t *src_stop,
                                  void *dst, const int64_t *dst_pad_shape,
                                  const int64_t *dst_start);
BLOSC_EXPORT int b2nd_copy_buffer2(int8_t ndim,
                                   int32_t itemsize,
                                   const void *src, const int64_t *src_pad_shape,
                                   const int64_t *src_start, const int64_t *src_stop,
                                   void *dst, const int64_t *dst_pad_shape,
                                   const int64_t *dst_start);

#ifdef __cplusplus
}
#endif

#endif /* BLOSC_B2ND_H */
