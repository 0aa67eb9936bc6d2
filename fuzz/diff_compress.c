/* Differential libFuzzer target for "every chunk we write is readable by
   the real c-blosc2, and the other way round", under odd and hostile
   compression parameters.  The input's first PARAM_BYTES bytes choose the
   blosc2_cparams (codec, clevel, typesize 1..255, the 6-slot filter
   pipeline and its meta bytes, blocksize, splitmode, nthreads, use_dict)
   and how the rest becomes the data to compress (as is, or repeated,
   ramped, sparse, in runs, floats: see make_data), at most 256 KiB.

   Forward: ours (linked in) compresses the data with blosc2_compress_ctx
   into nbytes + BLOSC2_MAX_OVERHEAD bytes.  When it succeeds, ours must
   decompress its chunk to the data (to what the reference decodes it to
   when the pipeline holds a lossy filter, TRUNC_PREC or INT_TRUNC), and
   the reference must decompress it to the same bytes with a success code.
   Backward: the reference compresses the same data with the same
   parameters and decodes its own chunk; when it compresses, ours must
   decode that chunk to the bytes the reference decodes it to.

   The reference (fuzz/ref_worker.h: dlopen'ed from $BLOSC2_REF_LIB, run in
   a worker process that may crash) is asked twice per input: once to
   compress the data and decode its own chunk, once to decode ours.
   Differences that are known reference bugs (README, "Where we differ from
   the reference on purpose") are counted; any other difference aborts
   with the direction, the parameters, the sizes and the first differing
   byte.  Counts of every outcome are printed at exit; with
   DIFF_COMPRESS_TRACE set in the environment each input's parameters and
   outcome are printed too, DIFF_COMPRESS_DUMP=FILE writes the data to FILE
   (for a reproducer), and DIFF_COMPRESS_REF_CRASH_DIR=DIR keeps the inputs
   on which the reference crashed or hung while compressing. */
#define REF_WORKER_NAME "diff_compress"
#include "ref_worker.h"
#include <blosc2/filters-registry.h>

/* At most this much data per input, so that an execution stays cheap. */
#define MAX_DATA (256 * 1024)
#define CHUNK_CAP (MAX_DATA + BLOSC2_MAX_OVERHEAD)
/* Destinations start with these bytes, so that what a call leaves
   unwritten compares equal. */
#define DEST_FILL 0xA5
/* The parameter bytes before the data (a missing byte reads as 0). */
#define PARAM_BYTES 22
/* A return code of ours or the reference's for "no context was made". */
#define NO_CONTEXT INT32_MIN

typedef blosc2_context *(*create_cctx_fn)(blosc2_cparams);
typedef blosc2_context *(*create_dctx_fn)(blosc2_dparams);
typedef int (*compress_ctx_fn)(blosc2_context *, const void *, int32_t, void *, int32_t);
typedef int (*decompress_ctx_fn)(blosc2_context *, const void *, int32_t, void *, int32_t);
typedef void (*free_ctx_fn)(blosc2_context *);

static struct {
  create_cctx_fn create_cctx;
  create_dctx_fn create_dctx;
  compress_ctx_fn compress_ctx;
  decompress_ctx_fn decompress_ctx;
  free_ctx_fn free_ctx;
} ref;

/* The compression parameters an input chooses (plain values: the worker
   builds its own blosc2_cparams from them). */
struct params {
  uint8_t compcode, clevel;
  int use_dict;
  int32_t typesize;
  int16_t nthreads;
  int32_t blocksize, splitmode;
  uint8_t filters[BLOSC2_MAX_FILTERS], filters_meta[BLOSC2_MAX_FILTERS];
  uint8_t transform;
};

/* Shared with the worker: a job, its parameters and buffers, then the
   reference's return codes.  JOB_COMPRESS compresses src (nbytes) into
   chunk, crc its return code, and when that is positive decodes chunk into
   dest (drc); JOB_DECOMPRESS decodes chunk (chunk_size bytes) into dest
   (nbytes) (drc). */
enum { JOB_COMPRESS, JOB_DECOMPRESS };
struct ref_exchange {
  int job;
  struct params p;
  int32_t nbytes, chunk_size;
  int crc, drc;
  uint8_t src[MAX_DATA];
  uint8_t chunk[CHUNK_CAP];
  uint8_t dest[MAX_DATA];
};
static struct ref_exchange *shared;

/* Our buffers: the data, our chunk and its decoding, the reference's chunk
   and its decoding by each library. */
static uint8_t *data_buf, *ours_chunk, *ours_dest, *ref_chunk, *ref_dest, *ours_dest_of_ref;

/* Outcome counters, printed at exit. */
enum {
  FORWARD_SAME,
  BACKWARD_SAME,
  CHUNKS_IDENTICAL,
  BOTH_REFUSE,
  OURS_REFUSES,
  OURS_REFUSES_NEGATIVE_BLOCKSIZE,
  REF_REFUSES,
  REF_CRASH_COMPRESS,
  REF_CRASH_DECOMPRESS_ONCE,
  REF_UNREADABLE_OWN,
  KNOWN_REF_OWN_BLOCKSIZE,
  KNOWN_REF_SHORT,
  KNOWN_DELTA_LEFTOVER,
  KNOWN_MISPLACED_FILTER,
  LOSSY_ONE_MEMCPYED,
  NEW_LOSSY_TAIL,
  NEW_REF_WRITES_SOURCE,
  NEW_REF_DICT_MEMCPYED,
  BOTH_DECODE_REF_WRONG,
  NOUTCOMES
};
static const char *outcome_names[NOUTCOMES] = {
    "forward: both read our chunk back",
    "backward: both decode the reference's chunk alike",
    "chunks byte-identical",
    "both refuse the parameters",
    "ours refuses, reference compresses",
    "ours refuses a negative blocksize, the reference does not check it",
    "reference refuses, ours compresses",
    "reference crashed compressing",
    "reference crashed decoding our chunk, not on the second try",
    "reference cannot read its own chunk",
    "known: reference cannot read its own chunk, user blocksize",
    "known: reference decodes its own chunk short",
    "known: delta leftover in the reference's chunk",
    "known: filter undone from the wrong buffer",
    "lossy round trips differ: one chunk stored memcpyed (no filter run)",
    "known (README, test_compress_strict): lossy filter drops the bytes after the last whole item",
    "known (README, test_compress_strict): compressing writes into the source buffer",
    "known (README, test_compress_strict): its memcpyed chunk with the dict flag is unreadable",
    "both decode the reference's chunk to other bytes than the data"};
static unsigned long outcomes[NOUTCOMES];
static int trace;

static void print_outcomes(void) {
  fprintf(stderr, "diff_compress outcomes:");
  for (int i = 0; i < NOUTCOMES; i++) fprintf(stderr, " [%s] %lu", outcome_names[i], outcomes[i]);
  fprintf(stderr, "\n");
}

static void count(int outcome) {
  outcomes[outcome]++;
  if (trace) fprintf(stderr, "diff_compress: %s\n", outcome_names[outcome]);
}

static blosc2_cparams make_cparams(const struct params *p) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = p->compcode;
  cp.compcode_meta = 0;
  cp.clevel = p->clevel;
  cp.use_dict = p->use_dict;
  cp.typesize = p->typesize;
  cp.nthreads = p->nthreads;
  cp.blocksize = p->blocksize;
  cp.splitmode = p->splitmode;
  cp.schunk = NULL;
  memcpy(cp.filters, p->filters, sizeof cp.filters);
  memcpy(cp.filters_meta, p->filters_meta, sizeof cp.filters_meta);
  cp.prefilter = NULL;
  cp.preparams = NULL;
  cp.tuner_params = NULL;
  cp.tuner_id = 0;
  cp.instr_codec = false;
  cp.codec_params = NULL;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) cp.filter_params[i] = NULL;
  return cp;
}

/* The worker's work: the job in shared memory, on the reference. */
static void ref_job(void) {
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  if (shared->job == JOB_COMPRESS) {
    shared->crc = NO_CONTEXT;
    shared->drc = NO_CONTEXT;
    blosc2_context *cctx = ref.create_cctx(make_cparams(&shared->p));
    if (cctx == NULL) return;
    shared->crc = ref.compress_ctx(cctx, shared->src, shared->nbytes, shared->chunk,
                                   shared->nbytes + BLOSC2_MAX_OVERHEAD);
    ref.free_ctx(cctx);
    if (shared->crc <= 0) return;
    shared->chunk_size = shared->crc;
  }
  memset(shared->dest, DEST_FILL, (size_t)shared->nbytes);
  blosc2_context *dctx = ref.create_dctx(dp);
  if (dctx == NULL) {
    shared->drc = NO_CONTEXT;
    return;
  }
  shared->drc = ref.decompress_ctx(dctx, shared->chunk, shared->chunk_size, shared->dest,
                                   shared->nbytes);
  ref.free_ctx(dctx);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  ref_load("blosc2_compress_ctx", (void *)&blosc2_compress_ctx);
  ref.create_cctx = (create_cctx_fn)ref_symbol("blosc2_create_cctx");
  ref.create_dctx = (create_dctx_fn)ref_symbol("blosc2_create_dctx");
  ref.compress_ctx = (compress_ctx_fn)ref_symbol("blosc2_compress_ctx");
  ref.decompress_ctx = (decompress_ctx_fn)ref_symbol("blosc2_decompress_ctx");
  ref.free_ctx = (free_ctx_fn)ref_symbol("blosc2_free_ctx");
  blosc2_init();
  data_buf = malloc(MAX_DATA);
  ours_chunk = malloc(CHUNK_CAP);
  ours_dest = malloc(MAX_DATA);
  ref_chunk = malloc(CHUNK_CAP);
  ref_dest = malloc(MAX_DATA);
  ours_dest_of_ref = malloc(MAX_DATA);
  if (data_buf == NULL || ours_chunk == NULL || ours_dest == NULL || ref_chunk == NULL ||
      ref_dest == NULL || ours_dest_of_ref == NULL)
    abort();
  trace = getenv("DIFF_COMPRESS_TRACE") != NULL;
  atexit(print_outcomes);
  shared = ref_worker_setup(sizeof *shared, ref_job);
  return 0;
}

/* ---- The input: parameters, then data. ---- */

static const uint8_t codecs[5] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
static const int32_t common_typesizes[5] = {1, 2, 4, 8, 16};
/* Half the slots stay empty, so that short pipelines are common. */
static const uint8_t filter_choice[16] = {
    BLOSC_NOFILTER,     BLOSC_NOFILTER, BLOSC_NOFILTER,         BLOSC_NOFILTER,
    BLOSC_NOFILTER,     BLOSC_NOFILTER, BLOSC_NOFILTER,         BLOSC_NOFILTER,
    BLOSC_SHUFFLE,      BLOSC_SHUFFLE,  BLOSC_BITSHUFFLE,       BLOSC_BITSHUFFLE,
    BLOSC_DELTA,        BLOSC_TRUNC_PREC, BLOSC_FILTER_BYTEDELTA, BLOSC_FILTER_INT_TRUNC};

/* Bytes of the input: 0 codec (low 6 bits mod 5), 0x40 two threads, 0x80
   use_dict (zstd, lz4, lz4hc only); 1 clevel (mod 10) and splitmode (1 +
   byte / 10 mod 4); 2-3 typesize (byte 2 below 200: 1, 2, 4, 8 or 16;
   else 1 + byte 3 mod 255); 4-9 filters (filter_choice); 10-15
   filters_meta; 16-18 blocksize (byte 16 mod 8: 0-3 automatic, 4 small 1 +
   byte 17, 5 a multiple of typesize, 6 a multiple of 8 up to 512 KiB, 7
   hostile: negative, near INT32_MAX, larger than the data or under 256);
   19-21 the data transform (byte 19 mod 8) and the length it makes. */
static void read_params(const uint8_t *in, size_t size, struct params *p, size_t *length) {
  uint8_t b[PARAM_BYTES];
  for (size_t i = 0; i < PARAM_BYTES; i++) b[i] = i < size ? in[i] : 0;
  p->compcode = codecs[(b[0] & 0x3f) % 5];
  p->nthreads = (b[0] & 0x40) ? 2 : 1;
  p->use_dict = (b[0] & 0x80) != 0 &&
                (p->compcode == BLOSC_ZSTD || p->compcode == BLOSC_LZ4 ||
                 p->compcode == BLOSC_LZ4HC);
  p->clevel = b[1] % 10;
  p->splitmode = 1 + (b[1] / 10) % 4;
  p->typesize = b[2] < 200 ? common_typesizes[b[2] % 5] : 1 + b[3] % 255;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) {
    p->filters[i] = filter_choice[b[4 + i] % 16];
    p->filters_meta[i] = b[10 + i];
  }
  p->transform = b[19] % 8;
  /* The length of a made-up data: any size up to MAX_DATA. */
  size_t made = ((size_t)b[20] | (size_t)b[21] << 8) * 4 + ((b[19] >> 3) & 3);
  *length = made > MAX_DATA ? MAX_DATA : made;
  switch (b[16] % 8) {
    case 4:
      p->blocksize = 1 + b[17];
      break;
    case 5:
      p->blocksize = p->typesize * (1 + b[17]);
      break;
    case 6:
      p->blocksize = ((int32_t)b[17] | (int32_t)b[18] << 8) * 8;
      break;
    case 7:
      switch (b[17] % 4) {
        case 0:
          p->blocksize = -1 - b[18];
          break;
        case 1:
          p->blocksize = INT32_MAX - b[18];
          break;
        case 2:
          p->blocksize = INT32_MIN; /* made later: the data's length + byte 18 */
          break;
        default:
          p->blocksize = b[18];
          break;
      }
      break;
    default:
      p->blocksize = 0;
      break;
  }
}

/* Makes the data to compress into data_buf from the bytes after the
   parameters (`rest`); returns its length.  Transforms: 0-1 the bytes as
   they are (at most MAX_DATA); 2 the bytes repeated to `length`; 3 a ramp
   of typesize-byte little-endian integers with a step of the first byte,
   the bytes XORed in here and there; 4 zeros with the bytes every 61th
   byte; 5 runs: pairs (count - 1, value); 6 a slow ramp of floats (typesize
   4) or doubles (else) with the bytes as noise in the low mantissa bits;
   7 the bytes then zeros up to `length`. */
static size_t make_data(const struct params *p, const uint8_t *rest, size_t nrest,
                        size_t length) {
  uint8_t *d = data_buf;
  if (p->transform <= 1) {
    size_t n = nrest > MAX_DATA ? MAX_DATA : nrest;
    memcpy(d, rest, n);
    return n;
  }
  memset(d, 0, length);
  switch (p->transform) {
    case 2:
      for (size_t i = 0; i < length; i++) d[i] = nrest > 0 ? rest[i % nrest] : 0;
      break;
    case 3: {
      uint64_t step = nrest > 0 && rest[0] > 0 ? rest[0] : 1;
      size_t ts = (size_t)p->typesize;
      for (size_t i = 0; i * ts < length; i++) {
        uint64_t v = (uint64_t)i * step;
        for (size_t k = 0; k < ts && k < 8 && i * ts + k < length; k++)
          d[i * ts + k] = (uint8_t)(v >> (8 * k));
      }
      for (size_t j = 1; j < nrest && length > 0; j++) d[(j * 131) % length] ^= rest[j];
      break;
    }
    case 4:
      for (size_t j = 0; j < nrest && j * 61 < length; j++) d[j * 61] = rest[j];
      break;
    case 5: {
      size_t pos = 0;
      for (size_t j = 0; nrest >= 2 && pos < length; j = (j + 2) % (nrest & ~(size_t)1)) {
        for (size_t k = 0; k <= rest[j] && pos < length; k++) d[pos++] = rest[j + 1];
      }
      break;
    }
    case 6:
      if (p->typesize == 4) {
        for (size_t i = 0; (i + 1) * 4 <= length; i++) {
          float v = 1.0f + (float)i * 0.001f;
          uint32_t bits;
          memcpy(&bits, &v, 4);
          if (nrest > 0) bits ^= rest[i % nrest] & 0x0f;
          memcpy(d + i * 4, &bits, 4);
        }
      } else {
        for (size_t i = 0; (i + 1) * 8 <= length; i++) {
          double v = 100.0 + (double)i * 0.0001;
          uint64_t bits;
          memcpy(&bits, &v, 8);
          if (nrest > 0) bits ^= rest[i % nrest];
          memcpy(d + i * 8, &bits, 8);
        }
      }
      break;
    default:
      memcpy(d, rest, nrest < length ? nrest : length);
      break;
  }
  return length;
}

/* ---- Checks. ---- */

static const struct params *cur;
static size_t cur_n;
static int ours_crc, ref_crc;
/* Whether the reference's compression may have written into its source
   buffer: it cycles three buffers through the pipeline, the one that held
   the block on entry (src + offset) among them, so the third filter run
   (any slot but NOFILTER) writes its output there.  A delta of a later
   block then reads the overwritten first block, and with use_dict the
   second pass compresses the overwritten data: its chunk is then not the
   data's, and its round trip says nothing about ours.  Seen when the
   source differs after the call, or predicted from the pipeline (two
   passes can write it back as it was: a bitshuffle of bytes is its own
   inverse). */
static int ref_wrote_source;
static int ref_may_write_source(const uint8_t *filters) {
  int active = 0;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) active += filters[i] != BLOSC_NOFILTER;
  return active >= 3;
}

static int lossy(const uint8_t *filters) {
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++)
    if (filters[i] == BLOSC_TRUNC_PREC || filters[i] == BLOSC_FILTER_INT_TRUNC) return 1;
  return 0;
}

static void print_params(const struct params *p, size_t n) {
  fprintf(stderr,
          "  cparams: compcode %d clevel %d typesize %d nthreads %d blocksize %d splitmode %d "
          "use_dict %d\n  filters [%d %d %d %d %d %d] filters_meta [%d %d %d %d %d %d] "
          "(data transform %d)\n  nbytes %zu\n",
          p->compcode, p->clevel, p->typesize, p->nthreads, p->blocksize, p->splitmode,
          p->use_dict, p->filters[0], p->filters[1], p->filters[2], p->filters[3],
          p->filters[4], p->filters[5], p->filters_meta[0], p->filters_meta[1],
          p->filters_meta[2], p->filters_meta[3], p->filters_meta[4], p->filters_meta[5],
          p->transform, n);
}

static size_t first_difference(const uint8_t *a, const uint8_t *b, size_t n) {
  size_t i = 0;
  while (i < n && a[i] == b[i]) i++;
  return i;
}

/* Aborts with the direction, what differs, the parameters, the sizes and
   (for two outputs of n bytes, a and b named `an` and `bn`) the first
   differing byte. */
static void mismatch(const char *direction, const char *what, int rc_a, int rc_b,
                     const uint8_t *a, const char *an, const uint8_t *b, const char *bn,
                     size_t n) {
  fprintf(stderr, "diff_compress: MISMATCH (%s): %s (return codes %d, %d)\n", direction, what,
          rc_a, rc_b);
  print_params(cur, cur_n);
  fprintf(stderr, "  ours compresses to %d bytes, the reference to %d\n", ours_crc, ref_crc);
  if (a != NULL && b != NULL) {
    size_t i = first_difference(a, b, n);
    if (i < n)
      fprintf(stderr, "  first differing byte %zu of %zu: %s 0x%02x, %s 0x%02x\n", i, n, an,
              a[i], bn, b[i]);
  }
  abort();
}

static int has_filter(const uint8_t *filters, uint8_t f) {
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++)
    if (filters[i] == f) return 1;
  return 0;
}

static int decompress_ours(const uint8_t *chunk, int32_t csize, uint8_t *dest, int32_t n) {
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  if (dctx == NULL) abort();
  memset(dest, DEST_FILL, (size_t)n);
  int rc = blosc2_decompress_ctx(dctx, chunk, csize, dest, n);
  blosc2_free_ctx(dctx);
  return rc;
}

/* Whether the reference's chunk holds a delta whose leftover bytes (after
   a block's last whole item) it does not store (README's delta row). */
static int delta_leftover(const uint8_t *filters, int32_t n, int32_t blocksize, int typesize) {
  return has_filter(filters, BLOSC_DELTA) && typesize > 0 &&
         (n % typesize != 0 || blocksize % typesize != 0);
}

/* Whether every byte where ours (a) and the reference (b) differ lies
   after the last whole item of its block (of `blocksize` bytes), and ours
   holds the data's byte there: the bytes that the reference's TRUNC_PREC
   and INT_TRUNC never write when it compresses (they come out of its
   scratch memory). */
static int differs_only_in_item_tails(const uint8_t *a, const uint8_t *b, const uint8_t *src,
                                      int32_t n, int32_t blocksize, int typesize) {
  if (blocksize <= 0 || typesize <= 0) return 0;
  for (int32_t i = 0; i < n; i++) {
    if (a[i] == b[i]) continue;
    int32_t start = i / blocksize * blocksize;
    int32_t bsize = n - start < blocksize ? n - start : blocksize;
    if (i - start < bsize / typesize * typesize || a[i] != src[i]) return 0;
  }
  return 1;
}

/* The reference's chunk (ref_chunk, ref_crc bytes) decoded by the
   reference (ref_drc, ref_dest) and by ours: they must agree, unless the
   chunk is one the reference cannot read back itself. */
static int backward(const uint8_t *src, int32_t n, int ref_drc) {
  /* The chunk's header, as the reference wrote it. */
  const uint8_t *h = ref_chunk;
  int32_t blocksize = ref_crc >= 16 ? read_i32(h + 8) : 0;
  int typesize = ref_crc >= 4 ? h[3] : 0;
  const uint8_t *hfilters = ref_crc >= BLOSC_EXTENDED_HEADER_LENGTH ? h + 16 : cur->filters;
  /* README's blocksize row: a user blocksize larger than the data or not
     a multiple of typesize is written in the header while another is used
     (the chunk fails, decodes short or to other bytes). */
  int odd_blocksize =
      cur->blocksize != 0 && (cur->blocksize > n || cur->blocksize % cur->typesize != 0);
  if (ref_drc < 0) {
    /* With use_dict, a chunk the codec does not shrink is stored memcpyed
       but keeps the dict flag, and the reference's decoder then looks for
       a dictionary (BLOSC2_ERROR_CODEC_DICT).  The chunk holds the data as
       is: ours must give it back. */
    if (ref_crc >= BLOSC_EXTENDED_HEADER_LENGTH && (h[2] & BLOSC_MEMCPYED) != 0 &&
        (h[31] & BLOSC2_USEDICT) != 0) {
      int ours_drc = decompress_ours(ref_chunk, ref_crc, ours_dest_of_ref, n);
      if (!ref_wrote_source && (ours_drc != n || memcmp(ours_dest_of_ref, src, (size_t)n) != 0))
        mismatch("backward: the reference's memcpyed chunk",
                 "ours does not decode it to the data", ours_drc, n, ours_dest_of_ref, "ours",
                 src, "data", (size_t)n);
      return NEW_REF_DICT_MEMCPYED;
    }
    return odd_blocksize ? KNOWN_REF_OWN_BLOCKSIZE : REF_UNREADABLE_OWN;
  }
  if (ref_drc != n) return KNOWN_REF_SHORT;
  int ours_drc = decompress_ours(ref_chunk, ref_crc, ours_dest_of_ref, n);
  if (ours_drc == ref_drc && memcmp(ours_dest_of_ref, ref_dest, (size_t)n) == 0) {
    if (!lossy(cur->filters) && memcmp(ref_dest, src, (size_t)n) != 0)
      return ref_wrote_source ? NEW_REF_WRITES_SOURCE
             : odd_blocksize  ? KNOWN_REF_OWN_BLOCKSIZE
                              : BOTH_DECODE_REF_WRONG;
    return -1;
  }
  /* Delta never stores a block's bytes after its last whole item; ours
     refuses such a chunk (README's delta row). */
  if (ours_drc == BLOSC2_ERROR_DATA && delta_leftover(hfilters, n, blocksize, typesize))
    return KNOWN_DELTA_LEFTOVER;
  /* The reference undoes some pipelines from the wrong scratch buffer and
     decodes its own chunk wrongly; ours gives the data back (unless the
     chunk is not the data's: a lossy filter, or the reference wrote into
     its source while compressing). */
  if (!reference_undoes_in_place(hfilters) && ours_drc == n &&
      (lossy(cur->filters) || ref_wrote_source ||
       memcmp(ours_dest_of_ref, src, (size_t)n) == 0))
    return KNOWN_MISPLACED_FILTER;
  mismatch("backward: the reference's chunk", "ours decodes it differently from the reference",
           ours_drc, ref_drc, ours_dest_of_ref, "ours", ref_dest, "reference", (size_t)n);
  return -1;
}

/* With DIFF_COMPRESS_REF_CRASH_DIR set, an input on which the reference
   crashed or hung while compressing is written there (ref-crash-N). */
static void save_ref_crash(const uint8_t *in, size_t size) {
  static unsigned long saved;
  const char *dir = getenv("DIFF_COMPRESS_REF_CRASH_DIR");
  if (dir == NULL) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/ref-crash-%d-%lu", dir, (int)getpid(), saved++);
  FILE *f = fopen(path, "wb");
  if (f == NULL) return;
  if (fwrite(in, 1, size, f) != size) fprintf(stderr, "diff_compress: cannot write %s\n", path);
  fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size) {
  struct params p;
  size_t length;
  read_params(in, size, &p, &length);
  size_t nrest = size > PARAM_BYTES ? size - PARAM_BYTES : 0;
  size_t n = make_data(&p, in + PARAM_BYTES, nrest, length);
  if (p.blocksize == INT32_MIN) p.blocksize = (int32_t)n + (size > 18 ? in[18] : 0);
  cur = &p;
  cur_n = n;
  if (trace) print_params(&p, n);
  const char *dump = getenv("DIFF_COMPRESS_DUMP");
  if (dump != NULL) {
    FILE *f = fopen(dump, "wb");
    if (f == NULL || fwrite(data_buf, 1, n, f) != n) abort();
    fclose(f);
  }
  int32_t n32 = (int32_t)n;

  /* Ours compresses. */
  blosc2_context *cctx = blosc2_create_cctx(make_cparams(&p));
  ours_crc = NO_CONTEXT;
  if (cctx != NULL) {
    ours_crc = blosc2_compress_ctx(cctx, data_buf, n32, ours_chunk, n32 + BLOSC2_MAX_OVERHEAD);
    blosc2_free_ctx(cctx);
  }

  /* The reference compresses and decodes its own chunk. */
  shared->job = JOB_COMPRESS;
  shared->p = p;
  shared->nbytes = n32;
  memcpy(shared->src, data_buf, n);
  int ref_ok = ref_worker_call() == 0;
  ref_crc = ref_ok ? shared->crc : NO_CONTEXT;
  int ref_drc = ref_ok ? shared->drc : NO_CONTEXT;
  ref_wrote_source =
      ref_ok && (memcmp(shared->src, data_buf, n) != 0 || ref_may_write_source(p.filters));
  if (ref_ok && ref_crc > 0) {
    memcpy(ref_chunk, shared->chunk, (size_t)ref_crc);
    memcpy(ref_dest, shared->dest, n);
  }
  if (!ref_ok) {
    count(REF_CRASH_COMPRESS);
    save_ref_crash(in, size);
  }

  if (ours_crc == 0 && ref_ok && ref_crc != 0)
    mismatch("forward", "ours finds no room in nbytes + BLOSC2_MAX_OVERHEAD", ours_crc, ref_crc,
             NULL, NULL, NULL, NULL, 0);
  if (ours_crc < 0 && ref_ok)
    count(ref_crc <= 0       ? BOTH_REFUSE
          : p.blocksize < 0 ? OURS_REFUSES_NEGATIVE_BLOCKSIZE
                            : OURS_REFUSES);
  if (ours_crc > 0 && ref_ok && ref_crc < 0) count(REF_REFUSES);

  /* Forward: our chunk, read by ours and by the reference. */
  if (ours_crc > 0) {
    int ours_drc = decompress_ours(ours_chunk, ours_crc, ours_dest, n32);
    if (ours_drc != n32)
      mismatch("forward: our chunk", "ours cannot read its own chunk", ours_drc, n32, NULL, NULL,
               NULL, NULL, 0);
    if (!lossy(p.filters) && memcmp(ours_dest, data_buf, n) != 0)
      mismatch("forward: our chunk", "ours decodes its own chunk to other bytes than the data",
               ours_drc, n32, ours_dest, "ours", data_buf, "data", n);
    /* A worker that dies here gets a second try in a fresh one: an
       earlier input may have left the reference's heap damaged. */
    int tries = 0;
    do {
      if (tries == 1) count(REF_CRASH_DECOMPRESS_ONCE);
      if (tries == 2)
        mismatch("forward: our chunk", "the reference crashed or hung decoding it, twice",
                 ours_crc, 0, NULL, NULL, NULL, NULL, 0);
      tries++;
      shared->job = JOB_DECOMPRESS;
      shared->nbytes = n32;
      shared->chunk_size = ours_crc;
      memcpy(shared->chunk, ours_chunk, (size_t)ours_crc);
    } while (ref_worker_call() != 0);
    if (shared->drc != n32 || memcmp(shared->dest, ours_dest, n) != 0)
      mismatch("forward: our chunk", "the reference decodes it differently from ours",
               shared->drc, ours_drc, shared->dest, "reference", ours_dest, "ours", n);
    /* A lossy pipeline must lose the same bits in both, unless the
       reference's own round trip is one of its bugs, or a chunk is stored
       memcpyed (when the codec does not win room): that holds the data
       untouched by any filter, truncation included, and whether a codec
       wins room is the codec's affair. */
    int memcpyed = (ours_chunk[2] & BLOSC_MEMCPYED) != 0 ||
                   (ref_crc > 2 && (ref_chunk[2] & BLOSC_MEMCPYED) != 0);
    if (lossy(p.filters) && ref_wrote_source && ref_crc > 0 && ref_drc == n32 &&
        memcmp(ref_dest, ours_dest, n) != 0)
      count(NEW_REF_WRITES_SOURCE);
    else if (lossy(p.filters) && memcpyed && ref_crc > 0 && ref_drc == n32 &&
             memcmp(ref_dest, ours_dest, n) != 0)
      count(LOSSY_ONE_MEMCPYED);
    else if (lossy(p.filters) && ref_crc >= BLOSC_EXTENDED_HEADER_LENGTH && ref_drc == n32 &&
             reference_undoes_in_place(ref_chunk + 16) &&
             !delta_leftover(ref_chunk + 16, n32, read_i32(ref_chunk + 8), ref_chunk[3]) &&
             memcmp(ref_dest, ours_dest, n) != 0) {
      if (differs_only_in_item_tails(ours_dest, ref_dest, data_buf, n32, read_i32(ref_chunk + 8),
                                     ref_chunk[3]))
        count(NEW_LOSSY_TAIL);
      else
        mismatch("forward: lossy filters",
                 "our round trip differs from the reference's round trip", ours_drc, ref_drc,
                 ours_dest, "ours", ref_dest, "reference", n);
    }
    count(FORWARD_SAME);
  }

  /* Backward: the reference's chunk, read by both. */
  if (ref_crc > 0) {
    if (ours_crc > 0 && ours_crc == ref_crc && memcmp(ours_chunk, ref_chunk, (size_t)ref_crc) == 0)
      count(CHUNKS_IDENTICAL);
    int known = backward(data_buf, n32, ref_drc);
    count(known >= 0 ? known : BACKWARD_SAME);
  }
  return 0;
}
