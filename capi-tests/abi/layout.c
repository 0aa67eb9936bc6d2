/*
 * capi-tests/abi/layout.c -- ABI fingerprint of the public Blosc2 headers.
 *
 * Prints, one fact per line, the size/alignment of every public struct,
 * the offset and size of each of their members, the size of public
 * typedefs, the value of every public enumerator and constant macro, the
 * contents of the static default initializers, and the results of the
 * static inline helpers on a fixed set of inputs.  check_abi.sh builds this
 * file once against the reference c-blosc2 headers and once against ours
 * and requires identical output.
 *
 * Only libc is needed at link time: the one library function the headers
 * could reference from an inline helper (blosc2_error_string) is stubbed.
 *
 * Lists of members/constants were extracted from the c-blosc2 3.3.5 headers.
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

#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Stub so that print_error() (static in blosc2.h) links without the library. */
const char *blosc2_error_string(int error_code) {
  (void)error_code;
  return "stub";
}

#define STRUCT(T) \
  printf("struct %s size=%zu align=%zu\n", #T, sizeof(T), (size_t)alignof(T))
#define FIELD(T, f)                                                 \
  printf("  field %s.%s offset=%zu size=%zu\n", #T, #f,             \
         (size_t)offsetof(T, f), sizeof(((T *)0)->f))
#define TYPE(T) \
  printf("type %s size=%zu align=%zu\n", #T, sizeof(T), (size_t)alignof(T))
#define ENUMV(e) printf("enum %s = %lld\n", #e, (long long)(e))
#define NUMMACRO(m) printf("macro %s = %lld\n", #m, (long long)(m))
#define STRMACRO(m) printf("macro %s = \"%s\"\n", #m, m)

#define XSTR_(...) #__VA_ARGS__
#define XSTR(...) XSTR_(__VA_ARGS__)

/* Print a macro expansion with all white space removed. */
static void print_tokens(const char *name, const char *expansion) {
  printf("expansion %s = ", name);
  for (; *expansion; ++expansion) {
    if (*expansion != ' ' && *expansion != '\t') {
      putchar(*expansion);
    }
  }
  putchar('\n');
}

static void hexdump(const char *obj, const char *field, const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  size_t i;
  printf("default %s.%s =", obj, field);
  for (i = 0; i < n; ++i) {
    printf(" %02x", b[i]);
  }
  putchar('\n');
}
#define BYTES(obj, f) hexdump(#obj, #f, &(obj).f, sizeof((obj).f))
#define STRVAL(obj, f) \
  printf("default %s.%s = %s\n", #obj, #f, (obj).f ? (obj).f : "(null)")
#define PTRVAL(obj, f) \
  printf("default %s.%s = %s\n", #obj, #f, (obj).f ? "non-null" : "null")
#define PTRARR(obj, f)                                                 \
  do {                                                                 \
    size_t i_;                                                         \
    printf("default %s.%s =", #obj, #f);                               \
    for (i_ = 0; i_ < sizeof((obj).f) / sizeof((obj).f[0]); ++i_) {    \
      printf(" %s", (obj).f[i_] ? "non-null" : "null");                \
    }                                                                  \
    putchar('\n');                                                     \
  } while (0)

static void layouts(void) {
  STRUCT(blosc2_stdio_file);
  FIELD(blosc2_stdio_file, file);
  STRUCT(blosc2_stdio_params);
  FIELD(blosc2_stdio_params, locking);
  STRUCT(blosc2_stdio_mmap);
  FIELD(blosc2_stdio_mmap, mode);
  FIELD(blosc2_stdio_mmap, initial_mapping_size);
  FIELD(blosc2_stdio_mmap, needs_free);
  FIELD(blosc2_stdio_mmap, addr);
  FIELD(blosc2_stdio_mmap, urlpath);
  FIELD(blosc2_stdio_mmap, file_size);
  FIELD(blosc2_stdio_mmap, mapping_size);
  FIELD(blosc2_stdio_mmap, is_memory_only);
  FIELD(blosc2_stdio_mmap, file);
  FIELD(blosc2_stdio_mmap, fd);
  FIELD(blosc2_stdio_mmap, access_flags);
  FIELD(blosc2_stdio_mmap, map_flags);
  STRUCT(codec_info);
  FIELD(codec_info, encoder);
  FIELD(codec_info, decoder);
  STRUCT(filter_info);
  FIELD(filter_info, forward);
  FIELD(filter_info, backward);
  STRUCT(tuner_info);
  FIELD(tuner_info, init);
  FIELD(tuner_info, next_blocksize);
  FIELD(tuner_info, next_cparams);
  FIELD(tuner_info, update);
  FIELD(tuner_info, free);
  STRUCT(blosc2_instr);
  FIELD(blosc2_instr, cratio);
  FIELD(blosc2_instr, cspeed);
  FIELD(blosc2_instr, filter_speed);
  FIELD(blosc2_instr, flags);
  STRUCT(blosc2_io_cb);
  FIELD(blosc2_io_cb, id);
  FIELD(blosc2_io_cb, name);
  FIELD(blosc2_io_cb, is_allocation_necessary);
  FIELD(blosc2_io_cb, open);
  FIELD(blosc2_io_cb, close);
  FIELD(blosc2_io_cb, size);
  FIELD(blosc2_io_cb, write);
  FIELD(blosc2_io_cb, read);
  FIELD(blosc2_io_cb, truncate);
  FIELD(blosc2_io_cb, destroy);
  STRUCT(blosc2_io);
  FIELD(blosc2_io, id);
  FIELD(blosc2_io, name);
  FIELD(blosc2_io, params);
  STRUCT(blosc2_tuner);
  FIELD(blosc2_tuner, init);
  FIELD(blosc2_tuner, next_blocksize);
  FIELD(blosc2_tuner, next_cparams);
  FIELD(blosc2_tuner, update);
  FIELD(blosc2_tuner, free);
  FIELD(blosc2_tuner, id);
  FIELD(blosc2_tuner, name);
  STRUCT(blosc2_prefilter_params);
  FIELD(blosc2_prefilter_params, user_data);
  FIELD(blosc2_prefilter_params, input);
  FIELD(blosc2_prefilter_params, output);
  FIELD(blosc2_prefilter_params, output_size);
  FIELD(blosc2_prefilter_params, output_typesize);
  FIELD(blosc2_prefilter_params, output_offset);
  FIELD(blosc2_prefilter_params, nchunk);
  FIELD(blosc2_prefilter_params, nblock);
  FIELD(blosc2_prefilter_params, tid);
  FIELD(blosc2_prefilter_params, ttmp);
  FIELD(blosc2_prefilter_params, ttmp_nbytes);
  FIELD(blosc2_prefilter_params, ctx);
  FIELD(blosc2_prefilter_params, output_is_disposable);
  STRUCT(blosc2_postfilter_params);
  FIELD(blosc2_postfilter_params, user_data);
  FIELD(blosc2_postfilter_params, input);
  FIELD(blosc2_postfilter_params, output);
  FIELD(blosc2_postfilter_params, size);
  FIELD(blosc2_postfilter_params, typesize);
  FIELD(blosc2_postfilter_params, offset);
  FIELD(blosc2_postfilter_params, nchunk);
  FIELD(blosc2_postfilter_params, nblock);
  FIELD(blosc2_postfilter_params, tid);
  FIELD(blosc2_postfilter_params, ttmp);
  FIELD(blosc2_postfilter_params, ttmp_nbytes);
  FIELD(blosc2_postfilter_params, ctx);
  STRUCT(blosc2_cparams);
  FIELD(blosc2_cparams, compcode);
  FIELD(blosc2_cparams, compcode_meta);
  FIELD(blosc2_cparams, clevel);
  FIELD(blosc2_cparams, use_dict);
  FIELD(blosc2_cparams, typesize);
  FIELD(blosc2_cparams, nthreads);
  FIELD(blosc2_cparams, blocksize);
  FIELD(blosc2_cparams, splitmode);
  FIELD(blosc2_cparams, schunk);
  FIELD(blosc2_cparams, filters);
  FIELD(blosc2_cparams, filters_meta);
  FIELD(blosc2_cparams, prefilter);
  FIELD(blosc2_cparams, preparams);
  FIELD(blosc2_cparams, tuner_params);
  FIELD(blosc2_cparams, tuner_id);
  FIELD(blosc2_cparams, instr_codec);
  FIELD(blosc2_cparams, codec_params);
  FIELD(blosc2_cparams, filter_params);
  STRUCT(blosc2_dparams);
  FIELD(blosc2_dparams, nthreads);
  FIELD(blosc2_dparams, schunk);
  FIELD(blosc2_dparams, postfilter);
  FIELD(blosc2_dparams, postparams);
  FIELD(blosc2_dparams, typesize);
  STRUCT(blosc2_storage);
  FIELD(blosc2_storage, contiguous);
  FIELD(blosc2_storage, urlpath);
  FIELD(blosc2_storage, cparams);
  FIELD(blosc2_storage, dparams);
  FIELD(blosc2_storage, io);
  STRUCT(blosc2_metalayer);
  FIELD(blosc2_metalayer, name);
  FIELD(blosc2_metalayer, content);
  FIELD(blosc2_metalayer, content_len);
  STRUCT(blosc2_schunk);
  FIELD(blosc2_schunk, version);
  FIELD(blosc2_schunk, compcode);
  FIELD(blosc2_schunk, compcode_meta);
  FIELD(blosc2_schunk, clevel);
  FIELD(blosc2_schunk, splitmode);
  FIELD(blosc2_schunk, typesize);
  FIELD(blosc2_schunk, blocksize);
  FIELD(blosc2_schunk, chunksize);
  FIELD(blosc2_schunk, flags2);
  FIELD(blosc2_schunk, use_dict);
  FIELD(blosc2_schunk, filters);
  FIELD(blosc2_schunk, filters_meta);
  FIELD(blosc2_schunk, nchunks);
  FIELD(blosc2_schunk, current_nchunk);
  FIELD(blosc2_schunk, nbytes);
  FIELD(blosc2_schunk, cbytes);
  FIELD(blosc2_schunk, data);
  FIELD(blosc2_schunk, data_len);
  FIELD(blosc2_schunk, storage);
  FIELD(blosc2_schunk, frame);
  FIELD(blosc2_schunk, cctx);
  FIELD(blosc2_schunk, dctx);
  FIELD(blosc2_schunk, metalayers);
  FIELD(blosc2_schunk, nmetalayers);
  FIELD(blosc2_schunk, vlmetalayers);
  FIELD(blosc2_schunk, nvlmetalayers);
  FIELD(blosc2_schunk, tuner_params);
  FIELD(blosc2_schunk, tuner_id);
  FIELD(blosc2_schunk, ndim);
  FIELD(blosc2_schunk, blockshape);
  FIELD(blosc2_schunk, view);
  FIELD(blosc2_schunk, change_tick);
  STRUCT(blosc2_codec);
  FIELD(blosc2_codec, compcode);
  FIELD(blosc2_codec, compname);
  FIELD(blosc2_codec, complib);
  FIELD(blosc2_codec, version);
  FIELD(blosc2_codec, encoder);
  FIELD(blosc2_codec, decoder);
  STRUCT(blosc2_filter);
  FIELD(blosc2_filter, id);
  FIELD(blosc2_filter, name);
  FIELD(blosc2_filter, version);
  FIELD(blosc2_filter, forward);
  FIELD(blosc2_filter, backward);
  STRUCT(struct chunk_cache_s);
  FIELD(struct chunk_cache_s, data);
  FIELD(struct chunk_cache_s, nchunk);
  STRUCT(b2nd_array_t);
  FIELD(b2nd_array_t, sc);
  FIELD(b2nd_array_t, shape);
  FIELD(b2nd_array_t, chunkshape);
  FIELD(b2nd_array_t, extshape);
  FIELD(b2nd_array_t, blockshape);
  FIELD(b2nd_array_t, extchunkshape);
  FIELD(b2nd_array_t, nitems);
  FIELD(b2nd_array_t, chunknitems);
  FIELD(b2nd_array_t, extnitems);
  FIELD(b2nd_array_t, blocknitems);
  FIELD(b2nd_array_t, extchunknitems);
  FIELD(b2nd_array_t, ndim);
  FIELD(b2nd_array_t, chunk_cache);
  FIELD(b2nd_array_t, item_array_strides);
  FIELD(b2nd_array_t, item_chunk_strides);
  FIELD(b2nd_array_t, item_extchunk_strides);
  FIELD(b2nd_array_t, item_block_strides);
  FIELD(b2nd_array_t, block_chunk_strides);
  FIELD(b2nd_array_t, chunk_array_strides);
  FIELD(b2nd_array_t, dtype);
  FIELD(b2nd_array_t, dtype_format);
  FIELD(b2nd_array_t, last_tick);

  /* opaque and scalar typedefs */
  TYPE(blosc_timestamp_t);
  TYPE(blosc_threads_callback);
  TYPE(blosc2_open_cb);
  TYPE(blosc2_close_cb);
  TYPE(blosc2_size_cb);
  TYPE(blosc2_write_cb);
  TYPE(blosc2_read_cb);
  TYPE(blosc2_truncate_cb);
  TYPE(blosc2_destroy_cb);
  TYPE(blosc2_prefilter_fn);
  TYPE(blosc2_postfilter_fn);
  TYPE(blosc2_codec_encoder_cb);
  TYPE(blosc2_codec_decoder_cb);
  TYPE(blosc2_filter_forward_cb);
  TYPE(blosc2_filter_backward_cb);
}

static void enumerators(void) {
  ENUMV(BLOSC_CODEC_NDLZ);
  ENUMV(BLOSC_CODEC_ZFP_FIXED_ACCURACY);
  ENUMV(BLOSC_CODEC_ZFP_FIXED_PRECISION);
  ENUMV(BLOSC_CODEC_ZFP_FIXED_RATE);
  ENUMV(BLOSC_CODEC_OPENHTJ2K);
  ENUMV(BLOSC_CODEC_GROK);
  ENUMV(BLOSC_CODEC_OPENZL);
  ENUMV(BLOSC_CODEC_J2K);
  ENUMV(BLOSC_CODEC_HTJ2K);
  ENUMV(BLOSC_FILTER_NDCELL);
  ENUMV(BLOSC_FILTER_NDMEAN);
  ENUMV(BLOSC_FILTER_BYTEDELTA_BUGGY);
  ENUMV(BLOSC_FILTER_BYTEDELTA);
  ENUMV(BLOSC_FILTER_INT_TRUNC);
  ENUMV(BLOSC_BTUNE);
  ENUMV(BLOSC1_VERSION_FORMAT_PRE1);
  ENUMV(BLOSC1_VERSION_FORMAT);
  ENUMV(BLOSC2_VERSION_FORMAT_ALPHA);
  ENUMV(BLOSC2_VERSION_FORMAT_BETA1);
  ENUMV(BLOSC2_VERSION_FORMAT_STABLE);
  ENUMV(BLOSC2_VERSION_FORMAT_VL_BLOCKS);
  ENUMV(BLOSC2_VERSION_FORMAT);
  ENUMV(BLOSC2_VERSION_FRAME_FORMAT_BETA2);
  ENUMV(BLOSC2_VERSION_FRAME_FORMAT_RC1);
  ENUMV(BLOSC2_VERSION_FRAME_FORMAT_VL_BLOCKS);
  ENUMV(BLOSC2_VERSION_FRAME_FORMAT);
  ENUMV(BLOSC_MIN_HEADER_LENGTH);
  ENUMV(BLOSC_EXTENDED_HEADER_LENGTH);
  ENUMV(BLOSC2_MAX_OVERHEAD);
  ENUMV(BLOSC2_MAX_BUFFERSIZE);
  ENUMV(BLOSC_MAX_TYPESIZE);
  ENUMV(BLOSC_MIN_BUFFERSIZE);
  ENUMV(BLOSC2_DEFINED_TUNER_START);
  ENUMV(BLOSC2_DEFINED_TUNER_STOP);
  ENUMV(BLOSC2_GLOBAL_REGISTERED_TUNER_START);
  ENUMV(BLOSC2_GLOBAL_REGISTERED_TUNER_STOP);
  ENUMV(BLOSC2_GLOBAL_REGISTERED_TUNERS);
  ENUMV(BLOSC2_USER_REGISTERED_TUNER_START);
  ENUMV(BLOSC2_USER_REGISTERED_TUNER_STOP);
  ENUMV(BLOSC_STUNE);
  ENUMV(BLOSC_LAST_TUNER);
  ENUMV(BLOSC_LAST_REGISTERED_TUNE);
  ENUMV(BLOSC2_DEFINED_FILTERS_START);
  ENUMV(BLOSC2_DEFINED_FILTERS_STOP);
  ENUMV(BLOSC2_GLOBAL_REGISTERED_FILTERS_START);
  ENUMV(BLOSC2_GLOBAL_REGISTERED_FILTERS_STOP);
  ENUMV(BLOSC2_GLOBAL_REGISTERED_FILTERS);
  ENUMV(BLOSC2_USER_REGISTERED_FILTERS_START);
  ENUMV(BLOSC2_USER_REGISTERED_FILTERS_STOP);
  ENUMV(BLOSC2_MAX_FILTERS);
  ENUMV(BLOSC2_MAX_UDFILTERS);
  ENUMV(BLOSC_NOSHUFFLE);
  ENUMV(BLOSC_NOFILTER);
  ENUMV(BLOSC_SHUFFLE);
  ENUMV(BLOSC_BITSHUFFLE);
  ENUMV(BLOSC_DELTA);
  ENUMV(BLOSC_TRUNC_PREC);
  ENUMV(BLOSC_LAST_FILTER);
  ENUMV(BLOSC_LAST_REGISTERED_FILTER);
  ENUMV(BLOSC_DOSHUFFLE);
  ENUMV(BLOSC_MEMCPYED);
  ENUMV(BLOSC_DOBITSHUFFLE);
  ENUMV(BLOSC_DODELTA);
  ENUMV(BLOSC2_USEDICT);
  ENUMV(BLOSC2_BIGENDIAN);
  ENUMV(BLOSC2_INSTR_CODEC);
  ENUMV(BLOSC2_VL_BLOCKS);
  ENUMV(BLOSC2_MAXDICTSIZE);
  ENUMV(BLOSC2_MINUSEFULDICT);
  ENUMV(BLOSC2_MAXBLOCKSIZE);
  ENUMV(BLOSC2_MAXTYPESIZE);
  ENUMV(BLOSC2_DEFINED_CODECS_START);
  ENUMV(BLOSC2_DEFINED_CODECS_STOP);
  ENUMV(BLOSC2_GLOBAL_REGISTERED_CODECS_START);
  ENUMV(BLOSC2_GLOBAL_REGISTERED_CODECS_STOP);
  ENUMV(BLOSC2_GLOBAL_REGISTERED_CODECS);
  ENUMV(BLOSC2_USER_REGISTERED_CODECS_START);
  ENUMV(BLOSC2_USER_REGISTERED_CODECS_STOP);
  ENUMV(BLOSC_BLOSCLZ);
  ENUMV(BLOSC_LZ4);
  ENUMV(BLOSC_LZ4HC);
  ENUMV(BLOSC_ZLIB);
  ENUMV(BLOSC_ZSTD);
  ENUMV(BLOSC_LAST_CODEC);
  ENUMV(BLOSC_LAST_REGISTERED_CODEC);
  ENUMV(BLOSC_BLOSCLZ_LIB);
  ENUMV(BLOSC_LZ4_LIB);
  ENUMV(BLOSC_ZLIB_LIB);
  ENUMV(BLOSC_ZSTD_LIB);
  ENUMV(BLOSC_UDCODEC_LIB);
  ENUMV(BLOSC_SCHUNK_LIB);
  ENUMV(BLOSC_BLOSCLZ_FORMAT);
  ENUMV(BLOSC_LZ4_FORMAT);
  ENUMV(BLOSC_LZ4HC_FORMAT);
  ENUMV(BLOSC_ZLIB_FORMAT);
  ENUMV(BLOSC_ZSTD_FORMAT);
  ENUMV(BLOSC_UDCODEC_FORMAT);
  ENUMV(BLOSC_BLOSCLZ_VERSION_FORMAT);
  ENUMV(BLOSC_LZ4_VERSION_FORMAT);
  ENUMV(BLOSC_LZ4HC_VERSION_FORMAT);
  ENUMV(BLOSC_ZLIB_VERSION_FORMAT);
  ENUMV(BLOSC_ZSTD_VERSION_FORMAT);
  ENUMV(BLOSC_UDCODEC_VERSION_FORMAT);
  ENUMV(BLOSC_ALWAYS_SPLIT);
  ENUMV(BLOSC_NEVER_SPLIT);
  ENUMV(BLOSC_AUTO_SPLIT);
  ENUMV(BLOSC_FORWARD_COMPAT_SPLIT);
  ENUMV(BLOSC2_CHUNK_VERSION);
  ENUMV(BLOSC2_CHUNK_VERSIONLZ);
  ENUMV(BLOSC2_CHUNK_FLAGS);
  ENUMV(BLOSC2_CHUNK_TYPESIZE);
  ENUMV(BLOSC2_CHUNK_NBYTES);
  ENUMV(BLOSC2_CHUNK_BLOCKSIZE);
  ENUMV(BLOSC2_CHUNK_CBYTES);
  ENUMV(BLOSC2_CHUNK_FILTER_CODES);
  ENUMV(BLOSC2_CHUNK_FILTER_META);
  ENUMV(BLOSC2_CHUNK_BLOSC2_FLAGS2);
  ENUMV(BLOSC2_CHUNK_BLOSC2_FLAGS);
  ENUMV(BLOSC2_NO_SPECIAL);
  ENUMV(BLOSC2_SPECIAL_ZERO);
  ENUMV(BLOSC2_SPECIAL_NAN);
  ENUMV(BLOSC2_SPECIAL_VALUE);
  ENUMV(BLOSC2_SPECIAL_UNINIT);
  ENUMV(BLOSC2_SPECIAL_LASTID);
  ENUMV(BLOSC2_SPECIAL_MASK);
  ENUMV(BLOSC2_ERROR_SUCCESS);
  ENUMV(BLOSC2_ERROR_FAILURE);
  ENUMV(BLOSC2_ERROR_STREAM);
  ENUMV(BLOSC2_ERROR_DATA);
  ENUMV(BLOSC2_ERROR_MEMORY_ALLOC);
  ENUMV(BLOSC2_ERROR_READ_BUFFER);
  ENUMV(BLOSC2_ERROR_WRITE_BUFFER);
  ENUMV(BLOSC2_ERROR_CODEC_SUPPORT);
  ENUMV(BLOSC2_ERROR_CODEC_PARAM);
  ENUMV(BLOSC2_ERROR_CODEC_DICT);
  ENUMV(BLOSC2_ERROR_VERSION_SUPPORT);
  ENUMV(BLOSC2_ERROR_INVALID_HEADER);
  ENUMV(BLOSC2_ERROR_INVALID_PARAM);
  ENUMV(BLOSC2_ERROR_FILE_READ);
  ENUMV(BLOSC2_ERROR_FILE_WRITE);
  ENUMV(BLOSC2_ERROR_FILE_OPEN);
  ENUMV(BLOSC2_ERROR_NOT_FOUND);
  ENUMV(BLOSC2_ERROR_RUN_LENGTH);
  ENUMV(BLOSC2_ERROR_FILTER_PIPELINE);
  ENUMV(BLOSC2_ERROR_CHUNK_INSERT);
  ENUMV(BLOSC2_ERROR_CHUNK_APPEND);
  ENUMV(BLOSC2_ERROR_CHUNK_UPDATE);
  ENUMV(BLOSC2_ERROR_2GB_LIMIT);
  ENUMV(BLOSC2_ERROR_SCHUNK_COPY);
  ENUMV(BLOSC2_ERROR_FRAME_TYPE);
  ENUMV(BLOSC2_ERROR_FILE_TRUNCATE);
  ENUMV(BLOSC2_ERROR_THREAD_CREATE);
  ENUMV(BLOSC2_ERROR_POSTFILTER);
  ENUMV(BLOSC2_ERROR_FRAME_SPECIAL);
  ENUMV(BLOSC2_ERROR_SCHUNK_SPECIAL);
  ENUMV(BLOSC2_ERROR_PLUGIN_IO);
  ENUMV(BLOSC2_ERROR_FILE_REMOVE);
  ENUMV(BLOSC2_ERROR_NULL_POINTER);
  ENUMV(BLOSC2_ERROR_INVALID_INDEX);
  ENUMV(BLOSC2_ERROR_METALAYER_NOT_FOUND);
  ENUMV(BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  ENUMV(BLOSC2_ERROR_TUNER);
  ENUMV(BLOSC2_ERROR_LOCK);
  ENUMV(BLOSC2_IO_FILESYSTEM);
  ENUMV(BLOSC2_IO_FILESYSTEM_MMAP);
  ENUMV(BLOSC_IO_LAST_BLOSC_DEFINED);
  ENUMV(BLOSC_IO_LAST_REGISTERED);
  ENUMV(BLOSC2_IO_BLOSC_DEFINED);
  ENUMV(BLOSC2_IO_REGISTERED);
  ENUMV(BLOSC2_IO_USER_DEFINED);
}

static void macros(void) {
  NUMMACRO(BLOSC2_VERSION_MAJOR);
  NUMMACRO(BLOSC2_VERSION_MINOR);
  NUMMACRO(BLOSC2_VERSION_RELEASE);
  NUMMACRO(BLOSC2_MAX_METALAYERS);
  NUMMACRO(BLOSC2_METALAYER_NAME_MAXLEN);
  NUMMACRO(BLOSC2_MAX_VLMETALAYERS);
  NUMMACRO(BLOSC2_VLMETALAYERS_NAME_MAXLEN);
  NUMMACRO(B2ND_METALAYER_VERSION);
  NUMMACRO(B2ND_MAX_DIM);
  NUMMACRO(B2ND_MAX_METALAYERS);
  NUMMACRO(DTYPE_NUMPY_FORMAT);
  NUMMACRO(B2ND_DEFAULT_DTYPE_FORMAT);
  NUMMACRO(BLOSC_GCC_VERSION);
  NUMMACRO(BLOSC_VERSION_MAJOR);
  NUMMACRO(BLOSC_VERSION_MINOR);
  NUMMACRO(BLOSC_VERSION_RELEASE);
  NUMMACRO(BLOSC_MAX_OVERHEAD);
  NUMMACRO(BLOSC_MAX_BUFFERSIZE);
  STRMACRO(BLOSC2_VERSION_STRING);
  STRMACRO(BLOSC2_VERSION_DATE);
  STRMACRO(BLOSC_VERSION_STRING);
  STRMACRO(BLOSC_VERSION_DATE);
  STRMACRO(BLOSC_BLOSCLZ_COMPNAME);
  STRMACRO(BLOSC_LZ4_COMPNAME);
  STRMACRO(BLOSC_LZ4HC_COMPNAME);
  STRMACRO(BLOSC_ZLIB_COMPNAME);
  STRMACRO(BLOSC_ZSTD_COMPNAME);
  STRMACRO(BLOSC_BLOSCLZ_LIBNAME);
  STRMACRO(BLOSC_LZ4_LIBNAME);
  STRMACRO(BLOSC_ZLIB_LIBNAME);
  STRMACRO(BLOSC_ZSTD_LIBNAME);
  STRMACRO(B2ND_DEFAULT_DTYPE);
#ifdef BLOSC_STRICT_ALIGN
  puts("defined BLOSC_STRICT_ALIGN");
#else
  puts("undefined BLOSC_STRICT_ALIGN");
#endif
#ifdef B2ND_REQUIRE_META_NBYTES
  puts("defined B2ND_REQUIRE_META_NBYTES");
#endif
  print_tokens("BLOSC_UNUSED_VAR", XSTR(BLOSC_UNUSED_VAR));
  print_tokens("BLOSC_ATTRIBUTE_UNUSED", XSTR(BLOSC_ATTRIBUTE_UNUSED));
  print_tokens("BLOSC_NO_EXPORT", XSTR(BLOSC_NO_EXPORT));
  print_tokens("B2ND_DEPRECATED(msg)", XSTR(B2ND_DEPRECATED("msg")));
  print_tokens("BLOSC_UNUSED_PARAM(x)", XSTR(BLOSC_UNUSED_PARAM(x)));
#ifdef BLOSC_SHARED_LIBRARY
  /* Without BLOSC_SHARED_LIBRARY the reference leaves BLOSC_EXPORT empty,
     while ours always asks for default visibility; compare only here. */
  print_tokens("BLOSC_EXPORT", XSTR(BLOSC_EXPORT));
#endif
  print_tokens("blosc_compress", XSTR(blosc_compress));
  print_tokens("blosc_decompress", XSTR(blosc_decompress));
  print_tokens("blosc_getitem", XSTR(blosc_getitem));
  print_tokens("blosc_get_compressor", XSTR(blosc_get_compressor));
  print_tokens("blosc_set_compressor", XSTR(blosc_set_compressor));
  print_tokens("blosc_cbuffer_sizes", XSTR(blosc_cbuffer_sizes));
  print_tokens("blosc_cbuffer_validate", XSTR(blosc_cbuffer_validate));
  print_tokens("blosc_cbuffer_metainfo", XSTR(blosc_cbuffer_metainfo));
  print_tokens("blosc_get_blocksize", XSTR(blosc_get_blocksize));
  print_tokens("blosc_set_blocksize", XSTR(blosc_set_blocksize));
  print_tokens("blosc_set_splitmode", XSTR(blosc_set_splitmode));
  print_tokens("blosc_init", XSTR(blosc_init));
  print_tokens("blosc_destroy", XSTR(blosc_destroy));
  print_tokens("blosc_free_resources", XSTR(blosc_free_resources));
  print_tokens("blosc_get_nthreads", XSTR(blosc_get_nthreads));
  print_tokens("blosc_set_nthreads", XSTR(blosc_set_nthreads));
  print_tokens("blosc_compcode_to_compname", XSTR(blosc_compcode_to_compname));
  print_tokens("blosc_compname_to_compcode", XSTR(blosc_compname_to_compcode));
  print_tokens("blosc_list_compressors", XSTR(blosc_list_compressors));
  print_tokens("blosc_get_version_string", XSTR(blosc_get_version_string));
  print_tokens("blosc_get_complib_info", XSTR(blosc_get_complib_info));
  print_tokens("blosc_cbuffer_versions", XSTR(blosc_cbuffer_versions));
  print_tokens("blosc_cbuffer_complib", XSTR(blosc_cbuffer_complib));
}

static void defaults(void) {
  BYTES(BLOSC2_STDIO_PARAMS_DEFAULTS, locking);
  STRVAL(BLOSC2_STDIO_MMAP_DEFAULTS, mode);
  BYTES(BLOSC2_STDIO_MMAP_DEFAULTS, initial_mapping_size);
  BYTES(BLOSC2_STDIO_MMAP_DEFAULTS, needs_free);
  STRVAL(BLOSC2_STDIO_MMAP_DEFAULTS, addr);
  STRVAL(BLOSC2_STDIO_MMAP_DEFAULTS, urlpath);
  BYTES(BLOSC2_STDIO_MMAP_DEFAULTS, file_size);
  BYTES(BLOSC2_STDIO_MMAP_DEFAULTS, mapping_size);
  BYTES(BLOSC2_STDIO_MMAP_DEFAULTS, is_memory_only);
  PTRVAL(BLOSC2_STDIO_MMAP_DEFAULTS, file);
  BYTES(BLOSC2_STDIO_MMAP_DEFAULTS, fd);
  BYTES(BLOSC2_STDIO_MMAP_DEFAULTS, access_flags);
  BYTES(BLOSC2_STDIO_MMAP_DEFAULTS, map_flags);
  BYTES(BLOSC2_IO_DEFAULTS, id);
  STRVAL(BLOSC2_IO_DEFAULTS, name);
  PTRVAL(BLOSC2_IO_DEFAULTS, params);
  BYTES(BLOSC2_CPARAMS_DEFAULTS, compcode);
  BYTES(BLOSC2_CPARAMS_DEFAULTS, compcode_meta);
  BYTES(BLOSC2_CPARAMS_DEFAULTS, clevel);
  BYTES(BLOSC2_CPARAMS_DEFAULTS, use_dict);
  BYTES(BLOSC2_CPARAMS_DEFAULTS, typesize);
  BYTES(BLOSC2_CPARAMS_DEFAULTS, nthreads);
  BYTES(BLOSC2_CPARAMS_DEFAULTS, blocksize);
  BYTES(BLOSC2_CPARAMS_DEFAULTS, splitmode);
  PTRVAL(BLOSC2_CPARAMS_DEFAULTS, schunk);
  BYTES(BLOSC2_CPARAMS_DEFAULTS, filters);
  BYTES(BLOSC2_CPARAMS_DEFAULTS, filters_meta);
  BYTES(BLOSC2_CPARAMS_DEFAULTS, prefilter);
  PTRVAL(BLOSC2_CPARAMS_DEFAULTS, preparams);
  PTRVAL(BLOSC2_CPARAMS_DEFAULTS, tuner_params);
  BYTES(BLOSC2_CPARAMS_DEFAULTS, tuner_id);
  BYTES(BLOSC2_CPARAMS_DEFAULTS, instr_codec);
  PTRVAL(BLOSC2_CPARAMS_DEFAULTS, codec_params);
  PTRARR(BLOSC2_CPARAMS_DEFAULTS, filter_params);
  BYTES(BLOSC2_DPARAMS_DEFAULTS, nthreads);
  PTRVAL(BLOSC2_DPARAMS_DEFAULTS, schunk);
  BYTES(BLOSC2_DPARAMS_DEFAULTS, postfilter);
  PTRVAL(BLOSC2_DPARAMS_DEFAULTS, postparams);
  BYTES(BLOSC2_DPARAMS_DEFAULTS, typesize);
  BYTES(BLOSC2_STORAGE_DEFAULTS, contiguous);
  STRVAL(BLOSC2_STORAGE_DEFAULTS, urlpath);
  PTRVAL(BLOSC2_STORAGE_DEFAULTS, cparams);
  PTRVAL(BLOSC2_STORAGE_DEFAULTS, dparams);
  PTRVAL(BLOSC2_STORAGE_DEFAULTS, io);
}

/* ---------------------------------------------------------------------
 * Behaviour of the static inline helpers
 * --------------------------------------------------------------------- */

static void show_swap_store(void) {
  const uint8_t in[8] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
  int sizes[4] = {1, 2, 4, 8};
  int i, k;
  for (i = 0; i < 4; ++i) {
    uint8_t out[8];
    memset(out, 0xee, sizeof(out));
    swap_store(out, in, sizes[i]);
    printf("swap_store size=%d ->", sizes[i]);
    for (k = 0; k < 8; ++k) printf(" %02x", out[k]);
    putchar('\n');
  }
}

static void show_meta(void) {
  blosc2_schunk *sc = (blosc2_schunk *)calloc(1, sizeof(blosc2_schunk));
  blosc2_metalayer m0, m1, m2, m3;
  uint8_t c0[3] = {1, 2, 3};
  uint8_t c1[1] = {42};
  const char *names[] = {"b2nd", "other", "empty", "broken", "nullcontent",
                         "missing", "0123456789012345678901234567890",
                         "01234567890123456789012345678901", NULL};
  int i, rc;

  m0.name = (char *)"b2nd";   m0.content = c0;   m0.content_len = 3;
  m1.name = (char *)"other";  m1.content = c1;   m1.content_len = 1;
  m2.name = (char *)"empty";  m2.content = NULL; m2.content_len = 0;
  m3.name = (char *)"broken"; m3.content = c0;   m3.content_len = -5;
  sc->metalayers[0] = &m0;
  sc->metalayers[1] = &m1;
  sc->metalayers[2] = &m2;
  sc->metalayers[3] = &m3;
  sc->nmetalayers = 4;

  printf("meta_exists(NULL schunk) = %d\n", blosc2_meta_exists(NULL, "b2nd"));
  for (i = 0; names[i] != NULL; ++i) {
    uint8_t *content = (uint8_t *)0x1;
    int32_t len = -99;
    int k;
    printf("meta_exists(%s) = %d\n", names[i], blosc2_meta_exists(sc, names[i]));
    rc = blosc2_meta_get(sc, names[i], &content, &len);
    printf("meta_get(%s) = %d len=%d content=", names[i], rc, (int)len);
    if (content == (uint8_t *)0x1) {
      printf("untouched");
    } else if (content == NULL) {
      printf("NULL");
    } else {
      for (k = 0; k < len; ++k) printf("%02x", content[k]);
      free(content);
    }
    putchar('\n');
  }
  {
    uint8_t *content = NULL;
    int32_t len = 0;
    printf("meta_get(NULL schunk) = %d\n", blosc2_meta_get(NULL, "b2nd", &content, &len));
    printf("meta_get(NULL name) = %d\n", blosc2_meta_get(sc, NULL, &content, &len));
    printf("meta_get(NULL content) = %d\n", blosc2_meta_get(sc, "b2nd", NULL, &len));
    printf("meta_get(NULL len) = %d\n", blosc2_meta_get(sc, "b2nd", &content, NULL));
  }
  free(sc);
}

/* A well-formed 2-d "b2nd" metalayer with dtype "<f8". */
static const uint8_t good_meta[] = {
  0x96, 0x00, 0x02,
  0x92, 0xd3, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 0xd3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
  0x92, 0xd2, 0, 0, 0, 0x10, 0xd2, 0x80, 0, 0, 0x01,
  0x92, 0xd2, 0, 0, 0, 0x04, 0xd2, 0, 0, 0, 0x02,
  0x00, 0xdb, 0, 0, 0, 3, '<', 'f', '8'
};

static void show_one_meta(const char *label, const uint8_t *buf, int32_t len, int want_dtype) {
  int8_t ndim = -7;
  int64_t shape[B2ND_MAX_DIM];
  int32_t chunkshape[B2ND_MAX_DIM], blockshape[B2ND_MAX_DIM];
  char *dtype = (char *)0x1;
  int8_t dtype_format = 99;
  int rc, i;

  for (i = 0; i < B2ND_MAX_DIM; ++i) {
    shape[i] = -3;
    chunkshape[i] = -3;
    blockshape[i] = -3;
  }
  rc = b2nd_deserialize_meta_inline(buf, len, &ndim, shape, chunkshape, blockshape,
                                    want_dtype ? &dtype : NULL,
                                    want_dtype ? &dtype_format : NULL);
  printf("deserialize(%s) = %d ndim=%d shape=", label, rc, (int)ndim);
  for (i = 0; i < 3; ++i) printf("%lld,", (long long)shape[i]);
  printf(" chunkshape=");
  for (i = 0; i < 3; ++i) printf("%d,", (int)chunkshape[i]);
  printf(" blockshape=");
  for (i = 0; i < 3; ++i) printf("%d,", (int)blockshape[i]);
  if (want_dtype) {
    printf(" dtype_format=%d dtype=%s", (int)dtype_format,
           dtype == (char *)0x1 ? "untouched" : dtype == NULL ? "NULL" : dtype);
    if (dtype != NULL && dtype != (char *)0x1) free(dtype);
  }
  putchar('\n');
}

static void show_deserialize(void) {
  uint8_t buf[sizeof(good_meta) + 4];
  int32_t n;
  int8_t ndim;
  int64_t shape[B2ND_MAX_DIM];
  int32_t cs[B2ND_MAX_DIM], bs[B2ND_MAX_DIM];

  show_one_meta("good", good_meta, (int32_t)sizeof(good_meta), 1);
  show_one_meta("good,no-dtype", good_meta, (int32_t)sizeof(good_meta), 0);
  /* every possible truncation */
  for (n = 0; n < (int32_t)sizeof(good_meta); ++n) {
    char label[32];
    snprintf(label, sizeof(label), "trunc%d", (int)n);
    show_one_meta(label, good_meta, n, 1);
  }
  /* without a dtype section */
  show_one_meta("nodtype", good_meta, 44, 1);
  /* bad str32 marker */
  memcpy(buf, good_meta, sizeof(good_meta));
  buf[44] = 1;
  buf[45] = 0xd9;
  show_one_meta("badmarker", buf, (int32_t)sizeof(good_meta), 1);
  /* negative dtype length */
  memcpy(buf, good_meta, sizeof(good_meta));
  buf[46] = 0x80;
  show_one_meta("neglen", buf, (int32_t)sizeof(good_meta), 1);
  /* dtype length larger than the buffer */
  memcpy(buf, good_meta, sizeof(good_meta));
  buf[49] = 9;
  show_one_meta("longlen", buf, (int32_t)sizeof(good_meta), 1);
  /* empty dtype */
  memcpy(buf, good_meta, sizeof(good_meta));
  buf[49] = 0;
  show_one_meta("emptydtype", buf, (int32_t)sizeof(good_meta) - 3, 1);
  /* trailing garbage is ignored */
  memcpy(buf, good_meta, sizeof(good_meta));
  memset(buf + sizeof(good_meta), 0x55, 4);
  show_one_meta("trailing", buf, (int32_t)sizeof(buf), 1);
  /* ndim out of range */
  memcpy(buf, good_meta, sizeof(good_meta));
  buf[2] = 17;
  show_one_meta("ndim17", buf, (int32_t)sizeof(good_meta), 1);
  buf[2] = 0xff;
  show_one_meta("ndim-1", buf, (int32_t)sizeof(good_meta), 1);
  /* ndim = 0 */
  {
    const uint8_t zero[] = {0x96, 0x00, 0x00, 0x90, 0x90, 0x90, 0x00, 0xdb, 0, 0, 0, 2, '|', 'b'};
    show_one_meta("ndim0", zero, (int32_t)sizeof(zero), 1);
    show_one_meta("ndim0-short", zero, 6, 1);
  }
  /* NULL arguments */
  printf("deserialize(NULL smeta) = %d\n",
         b2nd_deserialize_meta_inline(NULL, 10, &ndim, shape, cs, bs, NULL, NULL));
  printf("deserialize(NULL ndim) = %d\n",
         b2nd_deserialize_meta_inline(good_meta, 10, NULL, shape, cs, bs, NULL, NULL));
  printf("deserialize(NULL shape) = %d\n",
         b2nd_deserialize_meta_inline(good_meta, 10, &ndim, NULL, cs, bs, NULL, NULL));
  printf("deserialize(NULL chunkshape) = %d\n",
         b2nd_deserialize_meta_inline(good_meta, 10, &ndim, shape, NULL, bs, NULL, NULL));
  printf("deserialize(NULL blockshape) = %d\n",
         b2nd_deserialize_meta_inline(good_meta, 10, &ndim, shape, cs, NULL, NULL, NULL));
  printf("deserialize(negative len) = %d\n",
         b2nd_deserialize_meta_inline(good_meta, -1, &ndim, shape, cs, bs, NULL, NULL));
}

int main(void) {
  layouts();
  enumerators();
  macros();
  defaults();
  show_swap_store();
  show_meta();
  show_deserialize();
  return 0;
}
