/* What the differential targets (diff_chunk.c, diff_compress.c) share: the
   reference c-blosc2, dlopen'ed from $BLOSC2_REF_LIB (default
   .ref/blosc2/lib/libblosc2.so.9), and the worker process it runs in.

   The reference crashes on some inputs, so it runs in a separate worker
   process: the request goes to shared memory, one byte down a pipe starts
   the work, and the worker answers with one byte once its results are in
   shared memory.  A worker that dies (a signal) or takes longer than
   REF_TIMEOUT_MS counts as "reference crashed", and the next request starts
   a fresh worker.  One long-lived worker instead of a fork per input keeps
   the executions fast.  Our library runs in the fuzzing process as usual
   (its coverage guides the search).

   The including file defines REF_WORKER_NAME (its name in messages), then
   calls ref_load() and ref_worker_setup() from LLVMFuzzerInitialize, and
   ref_worker_call() for each request; what a request holds and what the
   worker does with it (the `work` function) are its own.

   Also here: the model of the reference's rotation of block buffers when it
   undoes a filter pipeline, which both targets use to classify the chunks
   it decodes wrongly. */
#ifndef BLOSC2_FUZZ_REF_WORKER_H
#define BLOSC2_FUZZ_REF_WORKER_H

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

/* How long the worker may take for one request. */
#ifndef REF_TIMEOUT_MS
#define REF_TIMEOUT_MS 5000
#endif

typedef void (*ref_init_fn)(void);

/* The reference's handle (ref_load). */
static void *ref_handle;

static void *ref_symbol(const char *name) {
  void *p = dlsym(ref_handle, name);
  if (p == NULL) {
    fprintf(stderr, REF_WORKER_NAME ": %s not in the reference: %s\n", name, dlerror());
    abort();
  }
  return p;
}

/* Loads the reference and calls its blosc2_init; `name` is one of its
   functions and `ours` our function of that name: they must live in
   different objects (both paths are printed). */
static void ref_load(const char *name, void *ours) {
  const char *path = getenv("BLOSC2_REF_LIB");
  if (path == NULL) path = ".ref/blosc2/lib/libblosc2.so.9";
  /* DEEPBIND: the reference resolves its own symbols first, not the
     same-named ones of our library linked into this executable. */
  ref_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (ref_handle == NULL) {
    fprintf(stderr, REF_WORKER_NAME ": cannot load the reference %s: %s\n", path, dlerror());
    abort();
  }
  ((ref_init_fn)ref_symbol("blosc2_init"))();
  void *theirs = ref_symbol(name);
  /* Check that the two really are different libraries. */
  Dl_info ref_info, ours_info;
  if (dladdr(theirs, &ref_info) == 0 || dladdr(ours, &ours_info) == 0 || theirs == ours ||
      strcmp(ref_info.dli_fname, ours_info.dli_fname) == 0) {
    fprintf(stderr, REF_WORKER_NAME ": the reference's %s is not its own\n", name);
    abort();
  }
  fprintf(stderr, REF_WORKER_NAME ": reference %s, ours %s\n", ref_info.dli_fname,
          ours_info.dli_fname);
}

/* The running worker (0: none), the pipe that starts it on a request and
   the pipe it answers on, and what it runs for each request. */
static pid_t worker;
static int to_worker = -1, from_worker = -1;
static void (*worker_work)(void);

/* The worker's loop: one byte in, worker_work() on the shared memory, one
   byte out.  It ends when the fuzzer closes the pipe. */
static void worker_loop(int in, int out) {
  /* libFuzzer's handlers would report the reference's crash as ours: a
     crash here must just kill the worker. */
  int deadly[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM, SIGINT, SIGTERM};
  for (size_t i = 0; i < sizeof deadly / sizeof deadly[0]; i++) signal(deadly[i], SIG_DFL);
  uint8_t byte;
  while (read(in, &byte, 1) == 1) {
    worker_work();
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

/* Maps `size` bytes of memory shared with the worker (aborts when it
   cannot) and sets the function the worker runs on each request.  The
   worker is stopped at exit. */
static void *ref_worker_setup(size_t size, void (*work)(void)) {
  void *shared = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) abort();
  worker_work = work;
  /* A dead worker's pipe must fail a write, not kill the fuzzer. */
  signal(SIGPIPE, SIG_IGN);
  atexit(stop_worker);
  return shared;
}

/* Runs one request (already in shared memory) in the worker; returns 0
   once the worker has answered, or -1 when it crashed, hung or could not
   run (the worker is then replaced on the next call). */
static int ref_worker_call(void) {
  if (worker <= 0 && start_worker() != 0) return -1;
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

static int32_t read_i32(const uint8_t *p) {
  return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                   (uint32_t)p[3] << 24);
}

#endif
