//! Standalone mutation fuzzer for the chunk decoder (the large version of
//! `tests/mutation.rs`).
//!
//!     cargo run --release --example mutation_fuzz -- --count 100000 --seed 42
//!
//! Prints progress, the Ok/Err counts per entry point, and exits non-zero on
//! any panic or contract violation (with the seed and input index, which
//! reproduce the input exactly).

#[path = "../tests/common/mutate.rs"]
mod mutate;

use std::time::Instant;

fn main() {
    let mut count: u64 = 100_000;
    let mut seed: Option<u64> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--count" => count = args.next().and_then(|v| v.parse().ok()).expect("--count N"),
            "--seed" => seed = Some(args.next().and_then(|v| v.parse().ok()).expect("--seed N")),
            "-h" | "--help" => {
                println!("usage: mutation_fuzz [--count N] [--seed S]");
                return;
            }
            other => {
                eprintln!(
                    "unknown argument {other:?}; usage: mutation_fuzz [--count N] [--seed S]"
                );
                std::process::exit(2);
            }
        }
    }
    let seed = seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    mutate::install_panic_counter();
    println!("mutation_fuzz: seed={seed} count={count}");
    let corpus = mutate::build_corpus(seed);
    println!("corpus: {} valid chunks", corpus.len());
    let mut stats = mutate::Stats::default();
    let mut bad = 0u64;
    let t0 = Instant::now();
    let step = (count / 20).max(1);
    for i in 0..count {
        let (src, kinds, input) = mutate::make_input(&corpus, seed, i);
        if let Err(e) = mutate::check_guarded(&input, seed ^ i, &mut stats) {
            bad += 1;
            eprintln!(
                "FAILURE seed={seed} input={i}: {e}\n  from corpus #{src} ({}), mutations {:?}, {} bytes, first 48: {}",
                corpus[src].0,
                kinds.iter().map(|&k| mutate::KINDS[k]).collect::<Vec<_>>(),
                input.len(),
                mutate::hex_prefix(&input, 48)
            );
        }
        if (i + 1) % step == 0 {
            println!(
                "  {:>9}/{count}  {:.1}s  failures {bad}",
                i + 1,
                t0.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "done: {count} inputs in {:.1}s, failures {bad}",
        t0.elapsed().as_secs_f64()
    );
    stats.print();
    if bad > 0 {
        eprintln!("mutation_fuzz: {bad} failure(s); reproduce with --seed {seed}");
        std::process::exit(1);
    }
}
