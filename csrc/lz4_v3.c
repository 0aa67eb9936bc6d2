/* The LZ4 block codec built a second time, for x86-64 CPUs with AVX2, BMI1,
   BMI2 and LZCNT (build.rs compiles this file with those instructions
   enabled and lz4-sys's copy of lz4.c on the include path).  Every LZ4
   function of this unit is made static or renamed (those lz4.c defines
   without a declaration), so none of them clashes with the generic build
   that lz4-sys links; the entry points below are the ones
   src/codec/lz4.rs uses (the compressor only in a test: the generic one
   measured faster), and it calls them only after
   checking the CPU at run time.  Same source, same output bytes: only the
   machine code differs (the decoder's copies and bit scans get wider and
   cheaper instructions). */
#define LZ4LIB_VISIBILITY static
#define LZ4_PUBLISH_STATIC_FUNCTIONS
#define LZ4_compress_destSize_extState b2rs_lz4v3_compress_destSize_extState
#define LZ4_compress_fast_extState_fastReset b2rs_lz4v3_compress_fast_extState_fastReset
#define LZ4_compress_forceExtDict b2rs_lz4v3_compress_forceExtDict
#define LZ4_decompress_safe_forceExtDict b2rs_lz4v3_decompress_safe_forceExtDict
#define LZ4_decompress_safe_partial_forceExtDict b2rs_lz4v3_decompress_safe_partial_forceExtDict
#define LZ4_loadDict_internal b2rs_lz4v3_loadDict_internal
#include "lz4.c"

int b2rs_lz4v3_decompress_safe(const char *src, char *dst, int n, int cap) {
  return LZ4_decompress_safe(src, dst, n, cap);
}

int b2rs_lz4v3_decompress_safe_usingDict(const char *src, char *dst, int n,
                                          int cap, const char *dict,
                                          int dict_len) {
  return LZ4_decompress_safe_usingDict(src, dst, n, cap, dict, dict_len);
}

int b2rs_lz4v3_compress_fast(const char *src, char *dst, int n, int cap,
                             int accel) {
  return LZ4_compress_fast(src, dst, n, cap, accel);
}
