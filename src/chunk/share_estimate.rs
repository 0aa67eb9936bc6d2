//! Choosing, per block, between doing a block's work on the calling thread
//! alone and sharing its streams with helper threads.
//!
//! Sharing pays when the streams take long (zstd or zlib, or any codec on
//! data it handles slowly), and costs when they are quick: handing streams
//! to another core and reading back what it wrote takes a couple of
//! microseconds for a 64 KiB block on one machine and more on another, so
//! that the same chunks may gain on one machine and lose on the next (see
//! docs/performance.md).  So each calling thread keeps, per kind of block
//! (the users of this module say what a kind is), two estimates of how long
//! a block takes, one for each way of doing it, and takes the quicker way;
//! the other way is tried now and then (a [`TRIAL`] of a few blocks), so
//! that the estimates follow the data and the machine, and less often while
//! the trials keep confirming the choice.  When the blocks done the
//! preferred way start taking a clearly different time (other data, another
//! chunk shape), the other way's estimate is stale: it is measured again at
//! once, and that trial replaces it instead of nudging it.
//! Blocks estimated under a [`Threshold`] are never shared: their
//! streams are done faster than any core seen so far takes to hand them over.

use crate::error::Result;
use std::cell::Cell;
use std::time::Instant;

/// Index of the serial estimate in [`Estimates::ns`].
const SERIAL: usize = 0;
/// Index of the shared estimate.
const SHARED: usize = 1;

/// What a calling thread knows of one kind of block.
#[derive(Clone, Copy, Debug)]
pub(super) struct Estimates {
    /// The estimated time to do a block on this thread alone
    /// ([`SERIAL`]) and shared with helpers ([`SHARED`]), in ns per KiB
    /// (0: no sample yet).
    ns: [u32; 2],
    /// log2 of the period, in calls, of the trials of the way not
    /// preferred: from [`MIN_EXPLORE`] up to [`MAX_EXPLORE`], one step up
    /// each time a trial leaves the preference as it was, back to the
    /// minimum when the preference changes.  A trial costs (waking a helper
    /// that stopped waiting, or doing alone what two threads would have
    /// done quicker), so trials that keep confirming become rare.
    explore: u32,
    /// Blocks of this kind done so far (wrapping).
    calls: u32,
    /// Time summed over the timed calls of the current trial, and their
    /// number.
    trial_ns: u64,
    trial_n: u32,
    /// Consecutive samples of the preferred way far above (positive) or
    /// far below (negative) `anchor`, its estimate when the first of them
    /// came; at [`DRIFT`] either way the data changed.
    drift: i8,
    anchor: u32,
    /// The way not preferred is due for a trial whose mean replaces its
    /// estimate (it was measured on other data).
    stale: bool,
    /// The least time of a block worth sharing.
    least: Threshold,
}

impl Estimates {
    /// No sample yet; blocks estimated under `least` are never shared.
    pub(super) const fn new(least: Threshold) -> Estimates {
        Estimates {
            ns: [0; 2],
            explore: MIN_EXPLORE,
            calls: 0,
            trial_ns: 0,
            trial_n: 0,
            drift: 0,
            anchor: 0,
            stale: false,
            least,
        }
    }

    /// Whether sharing a block of `bsize` bytes estimated at `ns_per_kib`
    /// on one thread may pay: it must take longer than [`Self::least`].
    fn pays(&self, ns_per_kib: u32, bsize: usize) -> bool {
        let kib = (bsize / 1024) as u64;
        let Threshold {
            fixed_ns,
            per_kib_ns,
        } = self.least;
        ns_per_kib as u64 * kib >= fixed_ns as u64 + per_kib_ns as u64 * kib
    }

    /// The way taken outside trials, for a block of `bsize` bytes: shared
    /// when that is estimated quicker by more than an eighth.  Sharing
    /// costs more than its timed part shows (the helpers' time, their
    /// lingering): blocks it did as fast as the serial way by that
    /// measure made whole runs slower (docs/performance.md, session 17).
    fn preferred(&self, bsize: usize) -> usize {
        let [serial, shared] = self.ns;
        let quicker = (shared as u64) + (shared as u64) / 8 < serial as u64;
        if serial != 0 && shared != 0 && quicker && self.pays(serial, bsize) {
            SHARED
        } else {
            SERIAL
        }
    }
}

/// One block in this many done the preferred way is timed (a clock read
/// costs ~25 ns, about 1% of the quickest blocks this applies to).
const SAMPLE: u32 = 8;

/// A trial of the way not preferred takes the last [`TRIAL`] calls of
/// every `1 << explore`, at least 32 and at most 1024 (multiples of
/// [`SAMPLE`]).
const MIN_EXPLORE: u32 = 5;
const MAX_EXPLORE: u32 = 10;

/// A sample over 1.5 times its estimate ([`FAR`] as a fraction), or
/// under the estimate divided by 1.5, is far from it; [`DRIFT`]
/// far samples in a row, all above or all below, mean the blocks changed,
/// where a single one is an interrupt or a page fault.
const FAR: (u64, u64) = (3, 2);
const DRIFT: i8 = 2;

/// Calls in a trial; the second half of them is timed and their mean time
/// is one sample.  The first calls after a switch are not representative:
/// the first shared blocks after a run of serial ones can take several
/// times as long as steady sharing (the helper's core and caches have gone
/// cold), which, timed, would keep sharing from ever looking good.
const TRIAL: u32 = 8;

/// The least time of a block worth sharing: a fixed cost (waking helpers,
/// waiting for the last of them) plus a cost per KiB (moving the helpers'
/// streams between cores).  With two threads a block saves at most half
/// its stream time, and the filters still run on one thread.  A block
/// below the threshold gives up a few microseconds at most where sharing
/// would have paid; above it the two estimates decide.
#[derive(Clone, Copy, Debug)]
pub(super) struct Threshold {
    fixed_ns: u32,
    per_kib_ns: u32,
}

/// For decoding: 13.2 us for a 64 KiB block, 25.6 us for 256 KiB.  The
/// fixed part is that of the slowest machines seen: on one, 64 KiB blocks
/// that decode in 7.5 us gained when shared, on others blocks of 10 us
/// lost a third of their speed (see docs/performance.md).
pub(super) const DECODE: Threshold = Threshold {
    fixed_ns: 9000,
    per_kib_ns: 65,
};

/// For compressing: twice as long, the filters taking a larger share of
/// the block's time there.  Quick LZ4 blocks above the decoding threshold
/// compressed slower overall with sharing tried on them, while slow
/// BloscLZ and zstd blocks gained (docs/performance.md, session 17).
pub(super) const ENCODE: Threshold = Threshold {
    fixed_ns: 18000,
    per_kib_ns: 130,
};

fn record(est: &mut Estimates, way: usize, bsize: usize, ns: u64) {
    let kib = (bsize / 1024).max(1) as u64;
    let sample = (ns / kib).clamp(1, u32::MAX as u64) as u32;
    let slot = &mut est.ns[way];
    // Up by a quarter of the difference, down by half: one block slowed by
    // an interrupt or a page fault does not switch the way blocks are
    // done, while a lasting change gets there after a few samples.
    *slot = match *slot {
        0 => sample,
        old if sample > old => old + (sample - old) / 4,
        old => old - (old - sample) / 2,
    };
}

/// How a call does its block.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Pick {
    way: usize,
    timed: bool,
    /// Where the call sits in a trial of the way not preferred.
    trial: Trial,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Trial {
    No,
    /// The first call: the trial's sums start over.
    First,
    Within,
    /// The last call: the trial's mean becomes a sample.
    Last,
}

/// How the next block of `bsize` bytes is done.
fn choose(est: &Estimates, bsize: usize) -> Pick {
    let pick = |way, timed, trial| Pick { way, timed, trial };
    let [serial, _] = est.ns;
    let k = est.calls & ((1 << est.explore) - 1);
    if serial == 0 {
        return pick(SERIAL, true, Trial::No);
    }
    if !est.pays(serial, bsize) {
        return pick(SERIAL, k.is_multiple_of(SAMPLE), Trial::No);
    }
    let preferred = est.preferred(bsize);
    let start = (1 << est.explore) - TRIAL;
    match k {
        k if k < start => pick(preferred, k % SAMPLE == SAMPLE / 2, Trial::No),
        k if k == start => pick(1 - preferred, false, Trial::First),
        k if k + 1 == 1 << est.explore => pick(1 - preferred, true, Trial::Last),
        k => pick(1 - preferred, k >= start + TRIAL / 2, Trial::Within),
    }
}

/// Take in a call's time (`ns`, when it was timed) and count the call.
/// A trial's mean moves the estimate of its way, then the trials' period
/// lengthens when the preference stayed as it was, or goes back to the
/// shortest when it changed.
fn update(est: &mut Estimates, pick: Pick, bsize: usize, ns: Option<u64>) {
    est.calls = est.calls.wrapping_add(1);
    if pick.trial == Trial::First {
        est.trial_ns = 0;
        est.trial_n = 0;
    }
    let Some(ns) = ns else {
        return;
    };
    let before = est.preferred(bsize);
    match pick.trial {
        Trial::No => {
            watch_drift(est, pick.way, bsize, ns);
            record(est, pick.way, bsize, ns);
        }
        Trial::First | Trial::Within => {
            est.trial_ns += ns;
            est.trial_n += 1;
            return;
        }
        Trial::Last => {
            let mean = (est.trial_ns + ns) / (est.trial_n + 1) as u64;
            if est.stale {
                est.ns[pick.way] = 0;
                est.stale = false;
            }
            record(est, pick.way, bsize, mean);
            // A period that restarts mid-window (the preference changed)
            // begins a trial without its first call: start it from zero.
            est.trial_ns = 0;
            est.trial_n = 0;
        }
    }
    est.explore = if est.preferred(bsize) != before {
        MIN_EXPLORE
    } else if pick.trial == Trial::Last {
        (est.explore + 1).min(MAX_EXPLORE)
    } else {
        est.explore
    };
}

/// Count a sample of the way taken outside trials that lies far from its
/// estimate; after [`DRIFT`] of them in a row on the same side, the other
/// way's estimate no longer describes these blocks: it is marked stale
/// and its trial starts with the next call (unless the other way is not
/// worth trying for such blocks, or has no estimate yet).
fn watch_drift(est: &mut Estimates, way: usize, bsize: usize, ns: u64) {
    let kib = (bsize / 1024).max(1) as u64;
    let sample = ns / kib;
    // Against the estimate the drift started from: the estimate itself
    // follows the samples (down by half at each), so that a lasting change
    // of 2x would otherwise look far only once.
    let old = if est.drift == 0 {
        est.ns[way]
    } else {
        est.anchor
    } as u64;
    let side = if old == 0 {
        0
    } else if sample * FAR.1 > old * FAR.0 {
        1
    } else if sample * FAR.0 < old * FAR.1 {
        -1
    } else {
        0
    };
    est.drift = match side {
        0 => 0,
        s if est.drift.signum() == s => est.drift + s,
        s => {
            est.anchor = est.ns[way];
            s
        }
    };
    if est.drift.abs() < DRIFT {
        return;
    }
    est.drift = 0;
    if est.ns[1 - way] == 0 || !est.pays(est.ns[SERIAL], bsize) {
        return;
    }
    est.stale = true;
    // The next call is the first of a trial (`update` has counted this
    // call already).
    let period = 1u32 << est.explore;
    let start = period - TRIAL;
    if est.calls & (period - 1) < start {
        est.calls = (est.calls & !(period - 1)) + start;
    }
}

/// Do one block of `bsize` bytes, of the kind whose estimates `cost`
/// holds, the way they pick: `work(false)` on this thread alone or
/// `work(true)` shared with helpers; time it when they ask for a sample,
/// and update them.
pub(super) fn run<T>(
    cost: &Cell<Estimates>,
    bsize: usize,
    work: impl FnOnce(bool) -> Result<T>,
) -> Result<T> {
    let mut est = cost.get();
    let pick = choose(&est, bsize);
    if pick.way == SERIAL && pick.trial == Trial::First {
        // Time the serial way as it runs outside trials: without helpers
        // still spinning from the last shared block.
        crate::pool::stop_lingering();
    }
    let start = pick.timed.then(Instant::now);
    let done = work(pick.way == SHARED);
    let ns = start.map(|s| s.elapsed().as_nanos() as u64);
    update(&mut est, pick, bsize, ns.filter(|_| done.is_ok()));
    cost.set(est);
    done
}

/// Estimates that make [`run`] share every block of `bsize` bytes outside
/// trials of the serial way (`true`), or never share one (`false`); for
/// the tests of the ways themselves.
#[cfg(test)]
pub(super) fn forced(share: bool) -> Estimates {
    Estimates {
        ns: if share { [u32::MAX / 2, 1] } else { [1, 0] },
        ..Estimates::new(DECODE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEW: Estimates = Estimates::new(DECODE);

    /// The block size of the simulations, in bytes and KiB: big enough
    /// that a block estimated at 120 ns per KiB pays sharing, and one at
    /// 100 does not.
    const BIG: usize = 256 << 10;
    const KIB: u64 = (BIG / 1024) as u64;

    #[test]
    fn estimate_follows_the_samples() {
        let mut est = NEW;
        let big = BIG;
        record(&mut est, SERIAL, big, KIB * 100);
        assert_eq!(est.ns, [100, 0]);
        // An outlier moves it up by a quarter, a quick block down by half.
        record(&mut est, SERIAL, big, KIB * 500);
        assert_eq!(est.ns, [200, 0]);
        record(&mut est, SERIAL, big, KIB * 100);
        assert_eq!(est.ns, [150, 0]);
        assert_eq!(est.preferred(big), SERIAL);
        record(&mut est, SHARED, big, KIB * 90);
        assert_eq!(est.ns, [150, 90]);
        assert_eq!(est.preferred(big), SHARED);
        assert!(!NEW.pays(100, big));
        assert!(NEW.pays(120, big));
        assert!(!NEW.pays(u32::MAX, 512));
    }

    /// Runs `calls` calls on `est` as [`run`] would, the serial way taking
    /// `serial` ns per KiB and the shared way `shared`; returns how many
    /// were shared.
    fn simulate(est: &mut Estimates, calls: u32, serial: u64, shared: u64) -> u32 {
        let big = BIG;
        let mut nshared = 0;
        for _ in 0..calls {
            let pick = choose(est, big);
            let ns = if pick.way == SHARED { shared } else { serial };
            nshared += (pick.way == SHARED) as u32;
            update(est, pick, big, pick.timed.then_some(ns * KIB));
        }
        nshared
    }

    #[test]
    fn the_quicker_way_wins_and_the_other_is_tried() {
        let big = BIG;
        // No sample yet: a timed serial block first.
        let mut est = NEW;
        assert_eq!(choose(&est, big).way, SERIAL);
        assert!(choose(&est, big).timed);
        // Under the threshold, never shared, whatever sharing would take.
        assert_eq!(simulate(&mut est, 1000, 100, 1), 0);
        assert_eq!(est.ns, [100, 0]);
        // Above it, sharing is tried and kept where it is quicker: the
        // serial way only in trials, TRIAL calls every 32.
        let mut est = NEW;
        let first = simulate(&mut est, 32, 200, 100);
        assert_eq!(first, TRIAL);
        assert_eq!(est.preferred(big), SHARED);
        assert_eq!(est.explore, MIN_EXPLORE);
        assert_eq!(simulate(&mut est, 32, 200, 100), 32 - TRIAL);
        // Where sharing is slower it is only tried, less and less often.
        let mut est = NEW;
        let shared = simulate(&mut est, 1 << 14, 200, 300);
        assert_eq!(est.preferred(big), SERIAL);
        assert_eq!(est.explore, MAX_EXPLORE);
        // Five trials to reach the longest period, then one per 1024 calls:
        // about 1% of the blocks.
        let most = (MAX_EXPLORE - MIN_EXPLORE + (1 << 14) / 1024 + 1) * TRIAL;
        assert!(shared <= most, "{shared} blocks shared");
        // Once the trials are rare, a change of speed still comes through:
        // sharing becomes quicker, the trials find so (two of them, as the
        // estimate comes down from 300 by halves), and the period starts
        // over.
        let mut calls = 0;
        while est.preferred(big) == SERIAL {
            simulate(&mut est, 1, 200, 100);
            calls += 1;
            assert!(calls <= 2 << MAX_EXPLORE, "sharing never chosen");
        }
        assert!(calls > 1 << MAX_EXPLORE, "switched after {calls} calls");
        assert_eq!(est.explore, MIN_EXPLORE);
    }

    /// Runs calls as [`simulate`] does until the preferred way changes,
    /// which must happen within `most` calls.
    fn switch_within(est: &mut Estimates, most: u32, serial: u64, shared: u64) {
        let before = est.preferred(BIG);
        for _ in 0..most {
            simulate(est, 1, serial, shared);
            if est.preferred(BIG) != before {
                return;
            }
        }
        panic!("still {before} after {most} calls: {est:?}");
    }

    #[test]
    fn other_blocks_are_measured_again_at_once() {
        let big = BIG;
        // Long on blocks that decode slowly, where sharing wins by far: the
        // trials of the serial way have become rare.
        let mut est = NEW;
        simulate(&mut est, 1 << 14, 2000, 600);
        assert_eq!(est.preferred(big), SHARED);
        assert_eq!(est.explore, MAX_EXPLORE);
        // Then blocks that decode quickly and lose when shared: two far
        // samples of the shared way (one per SAMPLE calls), one trial of
        // the serial way, whose mean replaces the old estimate.
        switch_within(&mut est, 4 * SAMPLE, 160, 265);
        assert_eq!(est.ns[SERIAL], 160);
        assert_eq!(est.explore, MIN_EXPLORE);
        // A change of half the time is as plain: from blocks where sharing
        // wins a little to blocks that take half as long shared and a
        // fifth as long serial.
        let mut est = NEW;
        simulate(&mut est, 1 << 14, 730, 600);
        assert_eq!(est.preferred(big), SHARED);
        switch_within(&mut est, 4 * SAMPLE, 150, 300);
        // And back: long on the quick blocks (serial preferred), then the
        // slow ones again.
        simulate(&mut est, 1 << 14, 160, 265);
        assert_eq!(est.preferred(big), SERIAL);
        assert_eq!(est.explore, MAX_EXPLORE);
        // (Here the serial estimate alone, rising, makes sharing look
        // quicker; the shared estimate, from the quick blocks, catches up
        // with the samples of the shared way.)
        switch_within(&mut est, 4 * SAMPLE, 2000, 600);
        simulate(&mut est, 16 * SAMPLE, 2000, 600);
        let [serial, shared] = est.ns;
        assert!((1600..=2400).contains(&serial), "{:?}", est.ns);
        assert!((480..=720).contains(&shared), "{:?}", est.ns);
    }

    #[test]
    fn lone_slow_blocks_start_no_trial() {
        let big = BIG;
        let mut est = NEW;
        simulate(&mut est, 1 << 14, 200, 300);
        assert_eq!(est.explore, MAX_EXPLORE);
        // One timed block in four takes 2.5 times as long (an interrupt,
        // a page fault), never two in a row: no trial starts early.
        let mut nshared = 0;
        let mut timed = 0;
        for _ in 0..1 << MAX_EXPLORE {
            let pick = choose(&est, big);
            nshared += (pick.way == SHARED) as u32;
            let ns = if pick.way == SHARED { 300 } else { 200 };
            let slow = pick.timed && pick.trial == Trial::No && timed % 4 == 3;
            timed += (pick.timed && pick.trial == Trial::No) as u32;
            let ns = if slow { 5 * ns / 2 } else { ns };
            update(&mut est, pick, big, pick.timed.then_some(ns * KIB));
        }
        assert!(nshared <= TRIAL, "{nshared} blocks shared");
        assert!(!est.stale);
    }

    #[test]
    fn a_trial_is_judged_on_its_second_half() {
        let big = BIG;
        let mut est = Estimates {
            ns: [200, 300],
            ..NEW
        };
        // The first calls of the trial are slow (cold helper), the rest
        // quick: only the quick ones count.
        for k in 0..32 {
            let pick = choose(&est, big);
            let ns = match (pick.way, pick.trial) {
                (SHARED, Trial::First) => 5000,
                (SHARED, _) if k < 28 => 5000,
                (SHARED, _) => 100,
                _ => 200,
            };
            update(&mut est, pick, big, pick.timed.then_some(ns * KIB));
        }
        assert_eq!(est.ns, [200, 200]);
        // One more trial at 100 and sharing is preferred.
        simulate(&mut est, 32, 200, 100);
        assert_eq!(est.preferred(big), SHARED);
        // A failed call (no time) inside a trial does not count.
        let mut est = Estimates {
            ns: [200, 300],
            calls: 24,
            ..NEW
        };
        for i in 0..TRIAL {
            let pick = choose(&est, big);
            assert_eq!(pick.way, SHARED);
            let ns = (pick.timed && i != 5).then_some(150 * KIB);
            update(&mut est, pick, big, ns);
        }
        assert_eq!(est.ns, [200, 225]);
    }
}
