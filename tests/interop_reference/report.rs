//! The outcome bookkeeping: failures, differences and reference bugs by category.

use crate::cases::Case;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

#[derive(Default)]
pub(crate) struct Report {
    pub(crate) cases: usize,
    hard: BTreeMap<String, (usize, Vec<String>)>,
    nhard: usize,
    /// category -> (count, first examples)
    soft: BTreeMap<String, (usize, Vec<String>)>,
    refbugs: BTreeMap<String, (usize, Vec<String>)>,
    pub(crate) header_compared: usize,
    pub(crate) size_deltas: Vec<f64>,
}

fn note(map: &mut BTreeMap<String, (usize, Vec<String>)>, cat: &str, ex: String) {
    let e = map.entry(cat.to_string()).or_default();
    e.0 += 1;
    if e.1.len() < 3 {
        e.1.push(ex);
    }
}

impl Report {
    pub(crate) fn hard(&mut self, cat: &str, case: &Case, msg: impl std::fmt::Display) {
        self.nhard += 1;
        note(
            &mut self.hard,
            cat,
            format!("{msg}\n        {}", case.describe()),
        );
    }
    pub(crate) fn soft(&mut self, cat: &str, case: &Case, msg: impl std::fmt::Display) {
        note(
            &mut self.soft,
            cat,
            format!("{msg}\n        {}", case.describe()),
        );
    }
    pub(crate) fn refbug(&mut self, cat: &str, case: &Case, msg: impl std::fmt::Display) {
        note(
            &mut self.refbugs,
            cat,
            format!("{msg}\n        {}", case.describe()),
        );
    }

    pub(crate) fn finish(self, group: &str, seed: u64, elapsed: Duration) {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "== interop group {group}: seed={seed} cases={} in {:.1}s, headers compared={}, hard failures={}",
            self.cases,
            elapsed.as_secs_f64(),
            self.header_compared,
            self.nhard
        );
        if !self.size_deltas.is_empty() {
            let mut d = self.size_deltas.clone();
            d.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let _ = writeln!(
                s,
                "   cbytes ours/ref - 1 over {} chunks: min {:+.4} median {:+.4} max {:+.4}",
                d.len(),
                d[0],
                d[d.len() / 2],
                d[d.len() - 1]
            );
        }
        for (cat, (n, ex)) in &self.refbugs {
            let _ = writeln!(s, "   REFERENCE BUG [{cat}] x{n}");
            for e in ex {
                let _ = writeln!(s, "      e.g. {e}");
            }
        }
        for (cat, (n, ex)) in &self.soft {
            let _ = writeln!(s, "   difference (not a failure) [{cat}] x{n}");
            for e in ex {
                let _ = writeln!(s, "      e.g. {e}");
            }
        }
        println!("{s}");
        if self.nhard > 0 {
            let mut m = format!(
                "{} hard failure(s) in interop group {group} (seed={seed}; rerun one with BLOSC2_TEST_SEED={seed} \
                 BLOSC2_INTEROP_CASE=<case>):\n",
                self.nhard
            );
            for (cat, (n, ex)) in &self.hard {
                let _ = writeln!(m, "  FAIL [{cat}] x{n}");
                for e in ex {
                    let _ = writeln!(m, "      e.g. {e}");
                }
            }
            panic!("{m}");
        }
    }
}

pub(crate) fn first_diff(a: &[u8], b: &[u8]) -> String {
    if a.len() != b.len() {
        return format!("lengths {} vs {}", a.len(), b.len());
    }
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => {
            let n = a.iter().zip(b).filter(|(x, y)| x != y).count();
            format!(
                "first difference at byte {i} ({} vs {}), {n} bytes differ",
                a[i], b[i]
            )
        }
        None => "equal".into(),
    }
}
