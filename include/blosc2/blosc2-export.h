/*
 * libblosc2-rs -- C API of the Rust implementation of Blosc2.
 * blosc2/blosc2-export.h: symbol visibility helpers.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef BLOSC_BLOSC2_BLOSC2_EXPORT_H
#define BLOSC_BLOSC2_BLOSC2_EXPORT_H

/*
 * BLOSC_EXPORT marks every function that the shared library provides.
 * BLOSC_NO_EXPORT marks library-internal symbols.
 *
 * The library itself is written in Rust, so for C callers these macros only
 * decorate declarations.  With GCC and Clang (non-Windows) BLOSC_EXPORT always
 * requests default visibility, which keeps the declarations usable from code
 * built with -fvisibility=hidden.
 */
#if defined(_WIN32) || defined(__CYGWIN__)
#  if defined(BLOSC_SHARED_LIBRARY)
#    if defined(_MSC_VER)
#      define BLOSC_EXPORT __declspec(dllexport)
#    else
#      define BLOSC_EXPORT __attribute__((dllexport))
#    endif
#  else
#    define BLOSC_EXPORT
#  endif
#elif defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 4)
#  define BLOSC_EXPORT __attribute__((visibility("default")))
#else
#  define BLOSC_EXPORT
#endif

#if (defined(__clang__) || defined(__GNUC__)) && !defined(__MINGW32__)
#  define BLOSC_NO_EXPORT __attribute__((visibility("hidden")))
#else
#  define BLOSC_NO_EXPORT
#endif

/* Test builds make the internal symbols visible as well. */
#if defined(BLOSC_TESTING)
#  undef BLOSC_NO_EXPORT
#  define BLOSC_NO_EXPORT BLOSC_EXPORT
#endif

#endif /* BLOSC_BLOSC2_BLOSC2_EXPORT_H */
