//! Persistent worker pools, one per thread count, created on first use and shared
//! by every context that asks for that many threads.

use once_cell::sync::Lazy;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

type PoolMap = (u32, HashMap<usize, Arc<rayon::ThreadPool>>);

/// The pools and the process id that created them: a forked child sees another
/// pid, forgets the parent's pools (their threads do not exist in the child) and
/// builds fresh ones instead of waiting forever on dead workers.
static POOLS: Lazy<Mutex<PoolMap>> = Lazy::new(|| Mutex::new((std::process::id(), HashMap::new())));

fn current(pools: &mut PoolMap) -> &mut HashMap<usize, Arc<rayon::ThreadPool>> {
    let pid = std::process::id();
    if pools.0 != pid {
        let old = std::mem::take(&mut pools.1);
        std::mem::forget(old);
        pools.0 = pid;
    }
    &mut pools.1
}

/// The shared pool serving calls with `nthreads` threads (`nthreads >= 2`):
/// it holds `nthreads - 1` workers, the calling thread being the last one.
/// None when a pool cannot be built.
pub fn get(nthreads: usize) -> Option<Arc<rayon::ThreadPool>> {
    let mut guard = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    let pools = current(&mut guard);
    if let Some(p) = pools.get(&nthreads) {
        return Some(p.clone());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(nthreads.saturating_sub(1).max(1))
        .thread_name(|i| format!("blosc2-worker-{i}"))
        .build()
        .ok()?;
    let pool = Arc::new(pool);
    pools.insert(nthreads, pool.clone());
    Some(pool)
}

/// Drop every pool (workers exit once idle); used by `blosc2_destroy` and after fork.
pub fn clear() {
    let mut guard = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    current(&mut guard).clear();
}

/// Number of pools alive (for tests).
pub fn count() -> usize {
    POOLS.lock().map(|p| p.1.len()).unwrap_or(0)
}

/// A caller-provided way to run jobs (C `blosc2_set_threads_callback`): it gets
/// the number of jobs and a function to call once per job index, and returns
/// when all have run.
pub type Executor = dyn Fn(usize, &(dyn Fn(usize) + Sync)) + Send + Sync;

static EXECUTOR: Lazy<Mutex<Option<Arc<Executor>>>> = Lazy::new(|| Mutex::new(None));

/// Install (or remove with `None`) the caller's executor.
pub fn set_executor(e: Option<Arc<Executor>>) {
    *EXECUTOR.lock().unwrap_or_else(|e| e.into_inner()) = e;
}

/// Run `job(i, tid)` for every `i` in `0..njobs` on `nthreads` threads and
/// wait for all of them. Uses the caller's executor when one is installed,
/// else the calling thread (tid 0) together with the `nthreads - 1` workers
/// of the shared pool (tids 1..), all claiming job indices in order from one
/// counter, so that work starts at once on the calling thread instead of
/// waiting for a worker to wake up. Without a pool, the calling thread runs
/// everything. When every thread has a core, the caller waits for its
/// helpers by spinning for up to `SPIN` and the helpers then linger as
/// long (see `linger`): a sleeping wait costs a wake-up, which is long
/// next to a chunk that decodes in microseconds, and spinning made
/// two-thread decompression markedly faster (see docs/performance.md).
pub fn run(nthreads: usize, njobs: usize, job: &(dyn Fn(usize, usize) + Sync)) {
    let exec = EXECUTOR.lock().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(e) = exec {
        e(njobs, &|i| job(i, i % nthreads.max(1)));
        return;
    }
    let pool = if nthreads > 1 && njobs > 1 {
        get(nthreads)
    } else {
        None
    };
    let Some(pool) = pool else {
        (0..njobs).for_each(|i| job(i, 0));
        return;
    };
    let next = AtomicUsize::new(0);
    let work = |tid: usize| loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= njobs {
            break;
        }
        job(i, tid);
    };
    let helpers = (nthreads - 1).min(njobs - 1);
    RUNS.fetch_add(1, Ordering::Relaxed);
    // Spinning only pays when every thread has a core of its own.
    let spin = nthreads <= cores();
    let finished = AtomicUsize::new(0);
    pool.in_place_scope(|s| {
        for _ in 0..helpers {
            s.spawn(|_| {
                work(1 + rayon::current_thread_index().unwrap_or(0));
                finished.fetch_add(1, Ordering::Release);
            });
        }
        work(0);
        // Wait for the helpers here, spinning for a short while: rayon makes
        // a thread outside the pool sleep on a condition variable until the
        // scope's jobs are done, and being woken from there costs more than
        // decoding a small chunk takes.
        let start = Instant::now();
        while spin && finished.load(Ordering::Acquire) < helpers && start.elapsed() < SPIN {
            std::hint::spin_loop();
        }
    });
    if spin {
        linger(&pool, helpers);
    }
}

/// Counts the parallel runs started; a lingering worker stops when it moves.
static RUNS: AtomicUsize = AtomicUsize::new(0);

/// Send the lingering workers back to sleep now: for a caller about to time
/// work it does alone, which spinning workers would slow down (they share
/// the core's caches, or the core itself where two logical CPUs share one).
pub fn stop_lingering() {
    RUNS.fetch_add(1, Ordering::Relaxed);
}

/// The longest a caller spins waiting for its helpers, and a worker spins
/// waiting for the next run, before falling back to rayon's sleeping waits.
const SPIN: Duration = Duration::from_micros(100);

/// The number of cores this process may run on (1 when unknown).
pub(crate) fn cores() -> usize {
    static CORES: Lazy<usize> =
        Lazy::new(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    *CORES
}

/// Keep `helpers` workers polling for up to [`SPIN`] after a run, so that
/// a run that follows right away (the next chunk of a frame, the next call
/// of a loop) finds them awake: rayon parks an idle worker after a few dozen
/// yields, and waking it takes longer than a small chunk takes to decode
/// (with both spins, two threads decode a small chunk of a few blocks
/// faster than one; without them, barely: see docs/performance.md).  A
/// lingering task returns as soon as another run starts anywhere in the
/// process.
fn linger(pool: &rayon::ThreadPool, helpers: usize) {
    let seen = RUNS.load(Ordering::Relaxed);
    for _ in 0..helpers {
        pool.spawn(move || {
            let start = Instant::now();
            while RUNS.load(Ordering::Relaxed) == seen && start.elapsed() < SPIN {
                std::hint::spin_loop();
            }
        });
    }
}
