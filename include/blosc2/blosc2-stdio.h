/*
 * libblosc2-rs -- C API of the Rust implementation of Blosc2.
 * blosc2/blosc2-stdio.h: the two built-in I/O backends (plain files and
 * memory-mapped files) used by on-disk super-chunks.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef BLOSC_BLOSC2_BLOSC2_STDIO_H
#define BLOSC_BLOSC2_BLOSC2_STDIO_H

#include "blosc2-export.h"

#if defined(_MSC_VER)
#  include <io.h>
#else
#  include <unistd.h>
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(_WIN32)
#  include <windows.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Plain file backend (BLOSC2_IO_FILESYSTEM) ---- */

/* Stream handle returned by blosc2_stdio_open(). */
typedef struct {
  FILE *file;
} blosc2_stdio_file;

/*
 * Optional settings of the plain file backend; pass a pointer as the
 * `params` of a blosc2_io (NULL means defaults).  It must stay alive as long
 * as the super-chunks that use it.
 */
typedef struct {
  bool locking;
  /* When true, accesses to a frame are serialized through an advisory lock
     file placed beside it (shared for reads, exclusive for writes).  Every
     handle must opt in for the lock to be effective; NFS is not supported.
     Setting the BLOSC_LOCKING environment variable to a value other than ""
     or "0" enables it for every frame opened with this backend. */
} blosc2_stdio_params;

/* Defaults for blosc2_stdio_params: no locking. */
static const blosc2_stdio_params BLOSC2_STDIO_PARAMS_DEFAULTS = {false};

BLOSC_EXPORT void *blosc2_stdio_open(const char *urlpath, const char *mode, void *params);
BLOSC_EXPORT int blosc2_stdio_close(void *stream);
BLOSC_EXPORT int64_t blosc2_stdio_size(void *stream);
BLOSC_EXPORT int64_t blosc2_stdio_write(const void *ptr, int64_t size, int64_t nitems,
                                        int64_t position, void *stream);
BLOSC_EXPORT int64_t blosc2_stdio_read(void **ptr, int64_t size, int64_t nitems,
                                       int64_t position, void *stream);
BLOSC_EXPORT int blosc2_stdio_truncate(void *stream, int64_t size);
BLOSC_EXPORT int blosc2_stdio_destroy(void *params);

/* ---- Memory-mapped backend (BLOSC2_IO_FILESYSTEM_MMAP) ---- */

/*
 * State and settings of a memory-mapped contiguous frame (sframes are not
 * supported).  Fill the first three members, hand a pointer to it as the
 * `params` of a blosc2_io, and let the library manage the rest.
 */
typedef struct {
  /* user settings */
  const char *mode;             /* "r", "r+", "w+" or "c" (copy-on-write, like numpy.memmap) */
  size_t initial_mapping_size;  /* initial mapping size for the writable modes */
  bool needs_free;              /* free() this struct in the destroy callback */

  /* managed by the library */
  char *addr;                   /* start of the mapping */
  char *urlpath;                /* path of the mapped file */
  size_t file_size;             /* current logical file size */
  size_t mapping_size;          /* current mapping size (>= file_size) */
  bool is_memory_only;          /* changes stay in memory ("c" mode) */
  FILE *file;                   /* stdio handle of the file */
  int fd;                       /* descriptor of the file */
  int64_t access_flags;         /* page protection flags */
  int64_t map_flags;            /* mapping flags */
#if defined(_WIN32)
  HANDLE mmap_handle;           /* Windows file-mapping object */
#endif
} blosc2_stdio_mmap;

/* Defaults for blosc2_stdio_mmap: read-only, 1 GiB initial mapping. */
static const blosc2_stdio_mmap BLOSC2_STDIO_MMAP_DEFAULTS = {
  "r", ((size_t)1 << 30), false,
  NULL, NULL, 0, 0, false, NULL, -1, -1, -1
#if defined(_WIN32)
  , INVALID_HANDLE_VALUE
#endif
};

BLOSC_EXPORT void *blosc2_stdio_mmap_open(const char *urlpath, const char *mode, void *params);
BLOSC_EXPORT int blosc2_stdio_mmap_close(void *stream);
BLOSC_EXPORT int64_t blosc2_stdio_mmap_size(void *stream);
BLOSC_EXPORT int64_t blosc2_stdio_mmap_write(const void *ptr, int64_t size, int64_t nitems,
                                             int64_t position, void *stream);
BLOSC_EXPORT int64_t blosc2_stdio_mmap_read(void **ptr, int64_t size, int64_t nitems,
                                            int64_t position, void *stream);
BLOSC_EXPORT int blosc2_stdio_mmap_truncate(void *stream, int64_t size);
BLOSC_EXPORT int blosc2_stdio_mmap_destroy(void *params);

#ifdef __cplusplus
}
#endif

#endif /* BLOSC_BLOSC2_BLOSC2_STDIO_H */
