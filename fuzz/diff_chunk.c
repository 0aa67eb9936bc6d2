/* Differential libFuzzer target: the input is one chunk, decompressed by
   our library (linked in) and by the reference c-blosc2 (dlopen'ed from
   $BLOSC2_REF_LIB, default .ref/blosc2/lib/libblosc2.so.9).  When the
   reference decompresses it to bytes B, ours must return B too; otherwise
   the target aborts, unless the input falls in a class of known reference
   bugs (README, "Where we differ from the reference on purpose"), which is
   only counted.

   The reference crashes on some malformed chunks, so it runs in a forked
   child for every input, writing its result into shared memory; a child
   killed by a signal counts as "reference crashed" and the input is not
   compared.  Our library runs in the fuzzing process as usual (its coverage
   guides the search).  Counts of every outcome are printed at exit. */
#define _GNU_SOURCE /* dladdr, RTLD_DEEPBIND */
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <blosc2.h>

#define MAX_NBYTES (16 * 1024 * 1024)
/* Both destinations start with these bytes, so that what a call leaves
   unwritten (an "uninitialized" special chunk) compares equal. */
#define DEST_FILL 0xA5

typedef blosc2_context *(*create_dctx_fn)(blosc2_dparams);
typedef int (*decompress_ctx_fn)(blosc2_context *, const void *, int32_t, void *, int32_t);
typedef void (*free_ctx_fn)(blosc2_context *);
typedef void (*init_fn)(void);

static struct {
  create_dctx_fn create_dctx;
  decompress_ctx_fn decompress_ctx;
  free_ctx_fn free_ctx;
} ref;

/* Shared with the child that runs the reference: its return code, then its
   output bytes. */
struct ref_result {
  int rc;
  uint8_t dest[MAX_NBYTES];
};
static struct ref_result *shared;
static uint8_t *ours_dest;

/* Outcome counters, printed at exit. */
enum {
  SAME,
  BOTH_FAIL,
  REF_FAIL_OURS_OK,
  REF_CRASH,
  KNOWN_DELTA_LEFTOVER,
  KNOWN_BAD_HEADER,
  KNOWN_LAZY_CBYTES,
  NOUTCOMES
};
static const char *outcome_names[NOUTCOMES] = {
    "same result", "both fail", "reference fails, ours decodes", "reference crashed",
    "known: delta leftover", "known: lax header",
    "known: lazy bit skips the cbytes check"};
static unsigned long outcomes[NOUTCOMES];

static void *ref_symbol(void *handle, const char *name) {
  void *p = dlsym(handle, name);
  if (p == NULL) {
    fprintf(stderr, "diff_chunk: %s not in the reference: %s\n", name, dlerror());
    abort();
  }
  return p;
}

static void print_outcomes(void) {
  fprintf(stderr, "diff_chunk outcomes:");
  for (int i = 0; i < NOUTCOMES; i++) fprintf(stderr, " [%s] %lu", outcome_names[i], outcomes[i]);
  fprintf(stderr, "\n");
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *path = getenv("BLOSC2_REF_LIB");
  if (path == NULL) path = ".ref/blosc2/lib/libblosc2.so.9";
  /* DEEPBIND: the reference resolves its own symbols first, not the
     same-named ones of our library linked into this executable. */
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (h == NULL) {
    fprintf(stderr, "diff_chunk: cannot load the reference %s: %s\n", path, dlerror());
    abort();
  }
  ((init_fn)ref_symbol(h, "blosc2_init"))();
  ref.create_dctx = (create_dctx_fn)ref_symbol(h, "blosc2_create_dctx");
  ref.decompress_ctx = (decompress_ctx_fn)ref_symbol(h, "blosc2_decompress_ctx");
  ref.free_ctx = (free_ctx_fn)ref_symbol(h, "blosc2_free_ctx");
  /* Check that the two really are different libraries. */
  Dl_info ref_info, ours_info;
  if (dladdr((void *)ref.decompress_ctx, &ref_info) == 0 ||
      dladdr((void *)&blosc2_decompress_ctx, &ours_info) == 0 ||
      (void *)ref.decompress_ctx == (void *)&blosc2_decompress_ctx ||
      strcmp(ref_info.dli_fname, ours_info.dli_fname) == 0) {
    fprintf(stderr, "diff_chunk: the reference's blosc2_decompress_ctx is not its own\n");
    abort();
  }
  fprintf(stderr, "diff_chunk: reference %s, ours %s\n", ref_info.dli_fname, ours_info.dli_fname);
  blosc2_init();
  shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ours_dest = malloc(MAX_NBYTES);
  if (shared == MAP_FAILED || ours_dest == NULL) abort();
  atexit(print_outcomes);
  return 0;
}

static int32_t read_i32(const uint8_t *p) {
  return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                   (uint32_t)p[3] << 24);
}

/* Runs the reference on the input in a child; returns 0 and fills shared
   when it exited, -1 when it crashed (or could not run). */
static int run_reference(const uint8_t *data, size_t size, int32_t destsize) {
  shared->rc = INT32_MIN;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    alarm(5); /* a hang of the reference counts as a crash */
    memset(shared->dest, DEST_FILL, (size_t)destsize);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_context *dctx = ref.create_dctx(dp);
    shared->rc = ref.decompress_ctx(dctx, data, (int32_t)size, shared->dest, destsize);
    ref.free_ctx(dctx);
    _exit(0);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The class of known reference bugs a difference belongs to, or -1. */
static int known_reference_bug(const uint8_t *data, size_t size, int ours_rc) {
  uint8_t version = data[0], flags = data[2], typesize = data[3];
  int32_t nbytes = read_i32(data + 4), blocksize = read_i32(data + 8), cbytes = read_i32(data + 12);
  /* The reference does not reject version 0 or negative sizes. */
  if (version == 0 || nbytes < 0 || blocksize < 0 || cbytes < 0) return KNOWN_BAD_HEADER;
  /* With the lazy bit set the reference skips its check that cbytes fits in
     the source, and still decodes a special-value or empty chunk (which need
     no block from anywhere); ours refuses a chunk claiming more bytes than
     it has. */
  int extended = (flags & (BLOSC_DOSHUFFLE | BLOSC_DOBITSHUFFLE)) ==
                 (BLOSC_DOSHUFFLE | BLOSC_DOBITSHUFFLE);
  if (extended && size >= BLOSC_EXTENDED_HEADER_LENGTH && (data[31] & 0x08) != 0 &&
      (size_t)cbytes > size)
    return KNOWN_LAZY_CBYTES;
  /* Delta never stores the bytes after a block's last whole item, so the
     reference decodes them from scratch memory; ours refuses such chunks. */
  int delta = 0;
  if (extended) {
    if (size >= BLOSC_EXTENDED_HEADER_LENGTH)
      for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) delta |= data[16 + i] == BLOSC_DELTA;
  } else {
    delta = (flags & BLOSC_DODELTA) != 0;
  }
  if (delta && ours_rc == BLOSC2_ERROR_DATA && typesize > 0 &&
      (nbytes % typesize != 0 || blocksize % typesize != 0))
    return KNOWN_DELTA_LEFTOVER;
  return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < BLOSC_MIN_HEADER_LENGTH || size > INT32_MAX) return 0;
  int32_t nbytes = read_i32(data + 4);
  int32_t destsize = nbytes < 0 ? 0 : nbytes > MAX_NBYTES ? MAX_NBYTES : nbytes;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  if (dctx == NULL) abort();
  memset(ours_dest, DEST_FILL, (size_t)destsize);
  int ours_rc = blosc2_decompress_ctx(dctx, data, (int32_t)size, ours_dest, destsize);
  blosc2_free_ctx(dctx);
  if (run_reference(data, size, destsize) != 0) {
    outcomes[REF_CRASH]++;
    return 0;
  }
  int ref_rc = shared->rc;
  if (ref_rc < 0) {
    outcomes[ours_rc < 0 ? BOTH_FAIL : REF_FAIL_OURS_OK]++;
    return 0;
  }
  if (ours_rc == ref_rc && memcmp(ours_dest, shared->dest, (size_t)ref_rc) == 0) {
    outcomes[SAME]++;
    return 0;
  }
  int known = known_reference_bug(data, size, ours_rc);
  if (known >= 0) {
    outcomes[known]++;
    return 0;
  }
  size_t first = 0;
  if (ours_rc == ref_rc)
    while (first < (size_t)ref_rc && ours_dest[first] == shared->dest[first]) first++;
  fprintf(stderr,
          "diff_chunk: the reference decodes %d bytes, ours returns %d (first differing byte %zu)\n",
          ref_rc, ours_rc, first);
  abort();
}
