//! CI-sized mutation test: mutated chunks must never make the engine panic.
//!
//! ~20,000 inputs (env `BLOSC2_MUTATION_COUNT`), seed from `BLOSC2_TEST_SEED`
//! or the clock, printed.  Each input goes through the safe API
//! (`chunk::header`, `sizes`, `decompress_into`, `getitem`) and the C ABI
//! (`blosc2_decompress`, `blosc2_getitem`, `blosc2_cbuffer_sizes`,
//! `blosc1_cbuffer_validate`) with exact-size buffers; each must return Ok/Err
//! (or a C code), never panic, and a success must give the promised size.
//! The standalone, larger version is `examples/mutation_fuzz.rs`.

mod common;

#[path = "common/mutate.rs"]
mod mutate;

use std::time::Instant;

#[test]
fn mutated_chunks_never_panic() {
    mutate::install_panic_counter();
    let seed = common::test_seed();
    let count: u64 = common::env_num("BLOSC2_MUTATION_COUNT", 20_000);
    println!("mutation: BLOSC2_TEST_SEED={seed} count={count}");
    let corpus = mutate::build_corpus(seed);
    let mut stats = mutate::Stats::default();
    let mut failures = Vec::new();
    let t0 = Instant::now();
    for i in 0..count {
        let (src, kinds, input) = mutate::make_input(&corpus, seed, i);
        if let Err(e) = mutate::check_guarded(&input, seed ^ i, &mut stats) {
            failures.push(format!(
                "seed={seed} input={i}: {e}\n      from corpus #{src} ({}), mutations {:?}, {} bytes, first 48: {}",
                corpus[src].0,
                kinds.iter().map(|&k| mutate::KINDS[k]).collect::<Vec<_>>(),
                input.len(),
                mutate::hex_prefix(&input, 48)
            ));
        }
    }
    println!(
        "mutation: {count} inputs from {} corpus chunks in {:.1}s",
        corpus.len(),
        t0.elapsed().as_secs_f64()
    );
    stats.print();
    if !failures.is_empty() {
        let mut m = format!(
            "{} mutated input(s) broke a contract (seed={seed}):\n",
            failures.len()
        );
        for f in failures.iter().take(20) {
            m.push_str(&format!("  - {f}\n"));
        }
        panic!("{m}");
    }
}

/// The unmutated corpus must decode (sanity check of the harness itself).
#[test]
fn corpus_chunks_decode() {
    let corpus = mutate::build_corpus(1);
    for (name, c) in &corpus {
        let h = blosc2::chunk::header(c).unwrap_or_else(|e| panic!("{name}: header {e:?}"));
        let mut out = vec![0u8; h.nbytes as usize];
        let n = blosc2::chunk::decompress_into(&blosc2::chunk::DParams::default(), c, &mut out)
            .unwrap_or_else(|e| panic!("{name}: decompress {e:?}"));
        assert_eq!(n, h.nbytes as usize, "{name}");
    }
}
