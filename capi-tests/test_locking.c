/* Locking between processes (BLOSC_LOCKING): forked writers inserting into
 * the middle of a b2nd array on disk, others opening and reading it whole,
 * others writing a slice of it, all at once; every call succeeds and the
 * final array holds every write. A handle opened before the children ran
 * (and kept across their growth of the frame) sees the new shape, data and
 * vlmetalayers at its next call. Contiguous and sparse frames. */
#include "test_common.h"
#include "b2nd.h"
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

#define N0 100     /* items at the start */
#define BLK 10     /* items per insert, and the chunk shape */
#define NINS 4     /* inserting processes */
#define NITER 5    /* inserts (or slice writes, or reads) per process */
#define NSET 2     /* slice-writing processes */
#define NOPEN 2    /* opening processes */

/* Each write opens the array, holds the lock across the whole write (an
 * insert is a resize then a slice write), and closes it again. */
static int insert_child(const char *path, int k) {
  int32_t buf[BLK];
  for (int j = 0; j < NITER; j++) {
    b2nd_array_t *a = NULL;
    if (b2nd_open(path, &a) < 0) return 3;
    for (int i = 0; i < BLK; i++) buf[i] = 1000 + 100 * k + j;
    if (blosc2_schunk_lock(a->sc) < 0) return 4;
    int rc = b2nd_insert(a, buf, sizeof buf, 0, BLK);
    if (blosc2_schunk_unlock(a->sc) < 0 || rc < 0) return 5;
    if (j == NITER - 1) {
      char name[8];
      snprintf(name, sizeof name, "w%d", k);
      if (blosc2_vlmeta_add(a->sc, name, (uint8_t *)name, 2, NULL) < 0) return 6;
    }
    b2nd_free(a);
  }
  return 0;
}

static int set_child(const char *path, int s) {
  int32_t buf[BLK];
  int64_t shape[1] = {BLK}, start[1] = {0}, stop[1] = {BLK};
  for (int j = 0; j < NITER; j++) {
    b2nd_array_t *a = NULL;
    if (b2nd_open(path, &a) < 0) return 3;
    for (int i = 0; i < BLK; i++) buf[i] = 500000 + 1000 * s + j;
    if (blosc2_schunk_lock(a->sc) < 0) return 4;
    int rc = b2nd_set_slice_cbuffer(buf, shape, sizeof buf, start, stop, a);
    if (blosc2_schunk_unlock(a->sc) < 0 || rc < 0) return 5;
    b2nd_free(a);
  }
  return 0;
}

/* the first block is the initial one or one slice write, whole */
static bool first_block_ok(const int32_t *v) {
  for (int i = 1; i < BLK; i++) {
    if (v[0] >= 500000 ? v[i] != v[0] : v[i] != i) return false;
  }
  return v[0] == 0 || v[0] >= 500000;
}

static int open_child(const char *path) {
  for (int j = 0; j < NITER; j++) {
    b2nd_array_t *a = NULL;
    if (b2nd_open(path, &a) < 0) return 3;
    /* hold the lock across reading the shape and the data */
    if (blosc2_schunk_lock(a->sc) < 0) return 4;
    if (b2nd_refresh(a) < 0) return 5;
    int64_t n = a->shape[0];
    if (n < N0 || n % BLK != 0) return 6;
    int32_t *v = malloc(n * sizeof(int32_t));
    int rc = b2nd_to_cbuffer(a, v, n * sizeof(int32_t));
    blosc2_schunk_unlock(a->sc);
    if (rc < 0) return 7;
    bool ok = first_block_ok(v);
    for (int64_t i = 0; i < N0 - BLK; i++) ok &= v[n - (N0 - BLK) + i] == BLK + i;
    free(v);
    b2nd_free(a);
    if (!ok) return 8;
  }
  return 0;
}

static void run(bool contiguous, const char *path) {
  blosc2_remove_urlpath(path);
  int32_t init[N0];
  for (int i = 0; i < N0; i++) init[i] = i;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
  int64_t shape[1] = {N0};
  int32_t cshape[1] = {BLK}, bshape[1] = {5};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 1, shape, cshape, bshape, NULL, 0, NULL, 0);
  REQUIRE(ctx != NULL);
  b2nd_array_t *keep = NULL;
  CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &keep, init, sizeof init), 0);
  b2nd_free_ctx(ctx);
  REQUIRE(keep != NULL);

  fflush(NULL);
  pid_t kids[NINS + NSET + NOPEN];
  int nk = 0;
  for (int k = 0; k < NINS + NSET + NOPEN; k++) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      b2nd_free(keep); /* the parent's handle (valgrind counts it) */
      int rc = k < NINS ? insert_child(path, k)
             : k < NINS + NSET ? set_child(path, k - NINS)
             : open_child(path);
      blosc2_destroy();
      _exit(rc);
    }
    kids[nk++] = pid;
  }
  for (int k = 0; k < nk; k++) {
    int status = 0;
    waitpid(kids[k], &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d: status %d", k, status);
  }

  /* the handle kept across the children's growth of the frame: its
   super-chunk's next call sees the new chunks and vlmetalayers */
  int64_t n = N0 + NINS * NITER * BLK;
  for (int k = 0; k < NINS; k++) {
    char name[8];
    snprintf(name, sizeof name, "w%d", k);
    CHECK(blosc2_vlmeta_exists(keep->sc, name) >= 0);
  }
  CHECK_EQ_INT(keep->sc->nvlmetalayers, NINS);
  CHECK_EQ_INT(keep->sc->nchunks, n / BLK);
  CHECK_EQ_INT(keep->sc->nbytes, n * 4);
  CHECK_EQ_INT(b2nd_refresh(keep), 1);
  CHECK_EQ_INT(keep->shape[0], n);
  int32_t *v = malloc(n * sizeof(int32_t));
  CHECK_EQ_INT(b2nd_to_cbuffer(keep, v, n * sizeof(int32_t)), 0);
  CHECK(first_block_ok(v));
  CHECK(v[0] == 500000 + NITER - 1 || v[0] == 501000 + NITER - 1);
  int seen[NINS][NITER] = {{0}};
  for (int b = 1; b <= NINS * NITER; b++) {
    int32_t x = v[b * BLK];
    int k = (x - 1000) / 100, j = (x - 1000) % 100;
    CHECK(x >= 1000 && k < NINS && j < NITER);
    if (x >= 1000 && k < NINS && j < NITER) seen[k][j]++;
    for (int i = 1; i < BLK; i++) CHECK_EQ_INT(v[b * BLK + i], x);
  }
  for (int k = 0; k < NINS; k++)
    for (int j = 0; j < NITER; j++) CHECK_EQ_INT(seen[k][j], 1);
  for (int i = 0; i < N0 - BLK; i++) CHECK_EQ_INT(v[n - (N0 - BLK) + i], BLK + i);
  free(v);
  b2nd_free(keep);
  blosc2_remove_urlpath(path);
  char lock[256];
  snprintf(lock, sizeof lock, "%s.b2lock", path);
  remove(lock);
}

int main(void) {
  setenv("BLOSC_LOCKING", "1", 1);
  blosc2_init();
  if (getenv("ONLY_S") == NULL) run(true, "test_locking_c.b2nd");
  if (getenv("ONLY_C") == NULL) run(false, "test_locking_s.b2nd");
  blosc2_destroy();
  TEST_MAIN_END("test_locking");
}
