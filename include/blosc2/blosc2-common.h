/*
 * libblosc2-rs -- C API of the Rust implementation of Blosc2.
 * blosc2/blosc2-common.h: small portability helpers shared by the headers.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef BLOSC_BLOSC2_BLOSC2_COMMON_H
#define BLOSC_BLOSC2_BLOSC2_COMMON_H

#include "blosc2-export.h"

#include <stdint.h>
#include <string.h>

/* Attribute to silence "unused variable" diagnostics (GCC-compatible compilers). */
#if defined(__GNUC__)
#  define BLOSC_GCC_VERSION (__GNUC__ * 100 + __GNUC_MINOR__)
#  define BLOSC_UNUSED_VAR __attribute__((unused))
#else
#  define BLOSC_UNUSED_VAR
#endif

/* Explicitly discard a parameter that a function does not use. */
#define BLOSC_UNUSED_PARAM(x) ((void)(x))

/* Old MSVC C compilers only know the __inline spelling. */
#if defined(_MSC_VER) && !defined(__cplusplus)
#  define inline __inline
#endif

/* MSVC never defines __SSE2__; derive it from the target architecture. */
#if defined(_MSC_VER) && !defined(__SSE2__) && \
    (defined(_M_X64) || (defined(_M_IX86) && _M_IX86_FP >= 2))
#  define __SSE2__
#endif

/*
 * BLOSC_STRICT_ALIGN is left defined on targets where unaligned memory
 * accesses are not known to be cheap.  x86 (all flavours and compilers),
 * 64-bit ARM with unaligned support and PowerPC are considered safe.
 */
#if !defined(BLOSC_STRICT_ALIGN)
#  if defined(__i386__) || defined(__386) || defined(__amd64) ||          \
      defined(__i486__) || defined(__i586__) || defined(__i686__) ||      \
      defined(_M_IX86) || defined(_M_X64) || defined(_X86_) ||            \
      defined(__I86__) ||                                                 \
      (defined(__ARM_FEATURE_UNALIGNED) && defined(__ARM64_ARCH_8__)) ||  \
      defined(_ARCH_PPC) || defined(__PPC__)
     /* unaligned access is fine here */
#  else
#    define BLOSC_STRICT_ALIGN
#  endif
#endif

#if defined(__SSE2__)
#  include <emmintrin.h>
#endif
#if defined(__AVX2__) || defined(__AVX512F__) || defined(__AVX512BW__)
#  include <immintrin.h>
#endif

#endif /* BLOSC_BLOSC2_BLOSC2_COMMON_H */
