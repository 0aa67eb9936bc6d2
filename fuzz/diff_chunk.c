/* Differential libFuzzer target: the input is one chunk, decompressed by
   our library (linked in) and by the reference c-blosc2 (dlopen'ed from
   $BLOSC2_REF_LIB, default .ref/blosc2/lib/libblosc2.so.9).  When the
   reference decompresses it to bytes B, ours must return B too; otherwise
   the target aborts, unless the input falls in a class of known reference
   bugs (README, "Where we differ from the reference on purpose"), which is
   only counted.

   The reference crashes on some malformed chunks, so it runs in a separate
   worker process (fuzz/ref_worker.h): the input goes to shared memory, the
   worker answers once its return code and output bytes are there.  A
   worker that dies (a signal) or takes longer than 5 s counts as
   "reference crashed", the input is not compared, and the next input
   starts a fresh worker.  Our library runs in the fuzzing process as usual
   (its coverage guides the search).  Counts of every outcome are printed
   at exit. */
#define REF_WORKER_NAME "diff_chunk"
#include "ref_worker.h"
#include <blosc2/filters-registry.h>

/* Destinations are capped at 1 MiB (a larger claim fails in both for a
   destination too small, which is compared too); inputs over 1 MiB are
   skipped. */
#define MAX_NBYTES (1024 * 1024)
#define MAX_INPUT_SIZE (1024 * 1024)
/* Both destinations start with these bytes, so that what a call leaves
   unwritten (an "uninitialized" special chunk) compares equal. */
#define DEST_FILL 0xA5

typedef blosc2_context *(*create_dctx_fn)(blosc2_dparams);
typedef int (*decompress_ctx_fn)(blosc2_context *, const void *, int32_t, void *, int32_t);
typedef void (*free_ctx_fn)(blosc2_context *);

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

static void print_outcomes(void) {
  fprintf(stderr, "diff_chunk outcomes:");
  for (int i = 0; i < NOUTCOMES; i++) fprintf(stderr, " [%s] %lu", outcome_names[i], outcomes[i]);
  fprintf(stderr, "\n");
}

/* The worker's work: the reference decompresses shared->input. */
static void ref_decompress(void) {
  memset(shared->dest, DEST_FILL, (size_t)shared->destsize);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = ref.create_dctx(dp);
  shared->rc = ref.decompress_ctx(dctx, shared->input, (int32_t)shared->size, shared->dest,
                                  shared->destsize);
  ref.free_ctx(dctx);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  ref_load("blosc2_decompress_ctx", (void *)&blosc2_decompress_ctx);
  ref.create_dctx = (create_dctx_fn)ref_symbol("blosc2_create_dctx");
  ref.decompress_ctx = (decompress_ctx_fn)ref_symbol("blosc2_decompress_ctx");
  ref.free_ctx = (free_ctx_fn)ref_symbol("blosc2_free_ctx");
  blosc2_init();
  ours_dest = malloc(MAX_NBYTES);
  if (ours_dest == NULL) abort();
  atexit(print_outcomes);
  shared = ref_worker_setup(sizeof *shared, ref_decompress);
  return 0;
}

/* Runs the reference on the input in the worker; returns 0 with
   shared->rc and shared->dest filled, or -1 when it crashed, hung or could
   not run (the worker is then replaced on the next call). */
static int run_reference(const uint8_t *data, size_t size, int32_t destsize) {
  memcpy(shared->input, data, size);
  shared->size = size;
  shared->destsize = destsize;
  shared->rc = INT32_MIN;
  return ref_worker_call();
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
