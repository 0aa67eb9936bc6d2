/* Differential libFuzzer target: the input is one chunk, decompressed by
   our library (linked in) and by the reference c-blosc2 (dlopen'ed from
   $BLOSC2_REF_LIB, default .ref/blosc2/lib/libblosc2.so.9).  When the
   reference decompresses it to bytes B, ours must return B too; otherwise
   the target aborts, unless the input falls in a class of known reference
   bugs (README, "Where we differ from the reference on purpose"), which is
   only counted.

   The reference crashes on some malformed chunks, so it runs in a separate
   worker process: the input goes to shared memory, one byte down a pipe
   starts the work, and the worker answers with one byte once its return
   code and output bytes are in shared memory.  A worker that dies (a
   signal) or takes longer than 5 s counts as "reference crashed", the
   input is not compared, and the next input starts a fresh worker.  One
   long-lived worker instead of a fork per input keeps the executions fast.
   Our library runs in the fuzzing process as usual (its coverage guides
   the search).  Counts of every outcome are printed at exit. */
#define _GNU_SOURCE /* dladdr, RTLD_DEEPBIND */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <blosc2.h>
#include <blosc2/filters-registry.h>

/* Destinations are capped at 1 MiB (a larger claim fails in both for a
   destination too small, which is compared too); inputs over 1 MiB are
   skipped. */
#define MAX_NBYTES (1024 * 1024)
#define MAX_INPUT_SIZE (1024 * 1024)
/* How long the worker may take for one input. */
#define REF_TIMEOUT_MS 5000
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

/* Shared with the worker that runs the reference: the input, the
   destination size, then the reference's return code and output bytes. */
struct ref_exchange {
  size_t size;
  int32_t destsize;
  int rc;
  uint8_t input[MAX_INPUT_SIZE];
  uint8_t dest[MAX_NBYTES];
};
static struct ref_exchange *shared;
/* The running worker (0: none), the pipe that starts it on an input and the
   pipe it answers on. */
static pid_t worker;
static int to_worker = -1, from_worker = -1;
static void stop_worker(void);
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
  KNOWN_PAST_CBYTES,
  KNOWN_SHORT_DECODE,
  KNOWN_BYTEDELTA_BUGGY_TAIL,
  KNOWN_MISPLACED_FILTER,
  KNOWN_V2_BITSHUFFLE_TAIL,
  NOUTCOMES
};
static const char *outcome_names[NOUTCOMES] = {
    "same result", "both fail", "reference fails, ours decodes", "reference crashed",
    "known: delta leftover", "known: lax header",
    "known: lazy bit skips the cbytes check", "known: blocks read past cbytes",
    "known: reference decodes short", "known: bytedelta_buggy tail unwritten",
    "known: filter undone from the wrong buffer",
    "known: version 2 bitshuffle tail unwritten"};
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
  /* A dead worker's pipe must fail a write, not kill the fuzzer. */
  signal(SIGPIPE, SIG_IGN);
  atexit(print_outcomes);
  atexit(stop_worker);
  return 0;
}

static int32_t read_i32(const uint8_t *p) {
  return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                   (uint32_t)p[3] << 24);
}

/* The worker's loop: one byte in, the reference runs on shared->input,
   one byte out.  It ends when the fuzzer closes the pipe. */
static void worker_loop(int in, int out) {
  /* libFuzzer's handlers would report the reference's crash as ours: a
     crash here must just kill the worker. */
  int deadly[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM, SIGINT, SIGTERM};
  for (size_t i = 0; i < sizeof deadly / sizeof deadly[0]; i++) signal(deadly[i], SIG_DFL);
  uint8_t byte;
  while (read(in, &byte, 1) == 1) {
    memset(shared->dest, DEST_FILL, (size_t)shared->destsize);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_context *dctx = ref.create_dctx(dp);
    shared->rc = ref.decompress_ctx(dctx, shared->input, (int32_t)shared->size, shared->dest,
                                    shared->destsize);
    ref.free_ctx(dctx);
    if (write(out, &byte, 1) != 1) break;
  }
  _exit(0);
}

static void stop_worker(void) {
  if (worker <= 0) return;
  close(to_worker);
  close(from_worker);
  kill(worker, SIGKILL);
  while (waitpid(worker, NULL, 0) < 0 && errno == EINTR) {
  }
  worker = 0;
}

static int start_worker(void) {
  int down[2], up[2];
  if (pipe(down) != 0) return -1;
  if (pipe(up) != 0) {
    close(down[0]);
    close(down[1]);
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(down[0]);
    close(down[1]);
    close(up[0]);
    close(up[1]);
    return -1;
  }
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    worker_loop(down[0], up[1]);
  }
  close(down[0]);
  close(up[1]);
  worker = pid;
  to_worker = down[1];
  from_worker = up[0];
  return 0;
}

/* Runs the reference on the input in the worker; returns 0 with
   shared->rc and shared->dest filled, or -1 when it crashed, hung or could
   not run (the worker is then replaced on the next call). */
static int run_reference(const uint8_t *data, size_t size, int32_t destsize) {
  if (worker <= 0 && start_worker() != 0) return -1;
  memcpy(shared->input, data, size);
  shared->size = size;
  shared->destsize = destsize;
  shared->rc = INT32_MIN;
  uint8_t byte = 1;
  if (write(to_worker, &byte, 1) != 1) {
    stop_worker();
    return -1;
  }
  struct pollfd pfd = {.fd = from_worker, .events = POLLIN};
  int ready;
  while ((ready = poll(&pfd, 1, REF_TIMEOUT_MS)) < 0 && errno == EINTR) {
  }
  if (ready != 1 || read(from_worker, &byte, 1) != 1) {
    stop_worker();
    return -1;
  }
  return 0;
}

/* A replay of the reference's rotation of its block buffers while it undoes
   `filters` (no postfilter): 1 when every step finds the block where it
   reads it and the block ends in the output, 0 otherwise.  The same model
   as chunk::delta_placement::reference_decodes. */
enum { IN_OUTPUT, IN_SCRATCH1, IN_SCRATCH2, IN_SCRATCH3 };
static int filter_undone(uint8_t f) { return f != BLOSC_NOFILTER && f != BLOSC_TRUNC_PREC; }
static int next_undone(const uint8_t *filters, int i) {
  for (int j = i - 1; j >= 0; j--)
    if (filter_undone(filters[j])) return filters[j];
  return BLOSC_NOFILTER;
}
static int reference_undoes_in_place(const uint8_t *filters) {
  int last = -1;
  for (int i = BLOSC2_MAX_FILTERS - 1; i >= 0; i--)
    if (filter_undone(filters[i])) last = i;
  if (last < 0) return 1;
  int block = next_undone(filters, BLOSC2_MAX_FILTERS) == BLOSC_DELTA ? IN_OUTPUT : IN_SCRATCH1;
  int src = IN_SCRATCH1, dest = IN_SCRATCH2, spare = IN_SCRATCH3;
  for (int i = BLOSC2_MAX_FILTERS - 1; i >= 0; i--) {
    uint8_t f = filters[i];
    int lands = i == last || f == BLOSC_DELTA || next_undone(filters, i) == BLOSC_DELTA;
    if (lands && (f == BLOSC_DELTA || src != IN_OUTPUT)) dest = IN_OUTPUT;
    if (filter_undone(f)) {
      int right = f == BLOSC_DELTA ? block == dest : block == src && src != dest;
      if (!right) return 0;
      block = dest;
      int old_src = src;
      src = dest;
      dest = spare;
      spare = old_src;
    }
    if (i == last) break;
  }
  return block == src;
}

/* Whether every byte where the outputs differ lies after the last whole
   item of a block with a multiple of 8 whole items: the bytes that the
   reference's bit-unshuffle of a version 2 chunk never writes. */
static int differs_only_in_v2_bitshuffle_tails(const uint8_t *a, const uint8_t *b, int32_t n,
                                               int32_t blocksize, int typesize) {
  if (blocksize <= 0 || typesize <= 0) return 0;
  for (int32_t i = 0; i < n; i++) {
    if (a[i] == b[i]) continue;
    int32_t start = i / blocksize * blocksize;
    int32_t bsize = n - start < blocksize ? n - start : blocksize;
    int32_t items = bsize / typesize;
    if (items % 8 != 0 || i - start < items * typesize) return 0;
  }
  return 1;
}

/* The class of known reference bugs a difference belongs to, or -1. */
static int known_reference_bug(const uint8_t *data, size_t size, int32_t destsize, int ours_rc,
                               int ref_rc) {
  uint8_t version = data[0], flags = data[2], typesize = data[3];
  int32_t nbytes = read_i32(data + 4), blocksize = read_i32(data + 8), cbytes = read_i32(data + 12);
  /* The reference does not reject version 0 or negative sizes. */
  if (version == 0 || nbytes < 0 || blocksize < 0 || cbytes < 0) return KNOWN_BAD_HEADER;
  /* A success that returns fewer bytes than the header's nbytes leaves the
     rest of the destination unwritten: e.g. a block split in typesize
     streams whose size is not a multiple of typesize loses its tail bytes
     (README's blocksize row); ours refuses the chunk. */
  if (ours_rc < 0 && ref_rc < nbytes && nbytes <= MAX_NBYTES) return KNOWN_SHORT_DECODE;
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
  /* The reference bounds a block's reads by the caller's source size, not
     by the chunk's cbytes, so it decodes blocks that reach past the chunk's
     end into the bytes after it; ours refuses them.  The class holds when
     the reference fails on the chunk cut at its cbytes. */
  if (ours_rc < 0 && cbytes >= BLOSC_MIN_HEADER_LENGTH &&
      (size_t)cbytes < size) {
    if (run_reference(data, (size_t)cbytes, destsize) == 0 && shared->rc < 0)
      return KNOWN_PAST_CBYTES;
  }
  /* The legacy bytedelta (filter 34) never writes a block's bytes after its
     last whole item when decoding, so the reference returns scratch memory
     there; ours passes them through as filter 35 does. */
  if (extended && ours_rc == ref_rc && size >= BLOSC_EXTENDED_HEADER_LENGTH && nbytes > 0 &&
      blocksize > 0) {
    int32_t bsize = blocksize < nbytes ? blocksize : nbytes;
    int32_t leftover = nbytes % bsize;
    for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) {
      int ts = data[24 + i];
      if (data[16 + i] == BLOSC_FILTER_BYTEDELTA_BUGGY && ts > 0 &&
          (bsize % ts != 0 || leftover % ts != 0))
        return KNOWN_BYTEDELTA_BUGGY_TAIL;
    }
  }
  /* Version 2 chunks (c-blosc2 before 2.0) bit-unshuffle a block with a
     multiple of 8 whole items and never write its bytes after the last
     whole item (later versions copy them); ours passes them through as
     stored.  The outputs must agree everywhere else. */
  int bitshuffled = (flags & BLOSC_DOBITSHUFFLE) != 0 && !extended;
  if (extended && size >= BLOSC_EXTENDED_HEADER_LENGTH)
    for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) bitshuffled |= data[16 + i] == BLOSC_BITSHUFFLE;
  if (version == 2 && bitshuffled && ours_rc == ref_rc && ref_rc == nbytes &&
      differs_only_in_v2_bitshuffle_tails(ours_dest, shared->dest, ref_rc,
                                          blocksize < nbytes ? blocksize : nbytes, typesize))
    return KNOWN_V2_BITSHUFFLE_TAIL;
  /* The reference undoes some pipelines from the wrong scratch buffer
     (src/chunk/delta_placement.rs says how; e.g. [DELTA, SHUFFLE, DELTA])
     and returns wrong bytes with a success code. */
  if (extended && ours_rc == ref_rc && size >= BLOSC_EXTENDED_HEADER_LENGTH &&
      !reference_undoes_in_place(data + 16))
    return KNOWN_MISPLACED_FILTER;
  return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < BLOSC_MIN_HEADER_LENGTH || size > MAX_INPUT_SIZE) return 0;
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
  /* Where the outputs part, before a classification reruns the reference. */
  size_t first = 0;
  if (ours_rc == ref_rc)
    while (first < (size_t)ref_rc && ours_dest[first] == shared->dest[first]) first++;
  int known = known_reference_bug(data, size, destsize, ours_rc, ref_rc);
  if (known >= 0) {
    outcomes[known]++;
    return 0;
  }
  fprintf(stderr,
          "diff_chunk: the reference decodes %d bytes, ours returns %d (first differing byte %zu)\n",
          ref_rc, ours_rc, first);
  abort();
}
