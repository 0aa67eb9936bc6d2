//! Tests of the BloscLZ codec (kept apart: the codec file is long enough).
use super::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Plain byte-at-a-time decoder with the same acceptance rules.
fn slow_decode(input: &[u8], out: &mut [u8]) -> Option<usize> {
    if input.is_empty() {
        return Some(0);
    }
    let (mut ip, mut op) = (1usize, 0usize);
    let mut ctrl = (input[0] & 31) as usize;
    loop {
        if ctrl < 32 {
            let run = ctrl + 1;
            if op + run > out.len() || ip + run > input.len() {
                return None;
            }
            for _ in 0..run {
                out[op] = input[ip];
                op += 1;
                ip += 1;
            }
        } else {
            let mut len = (ctrl >> 5) + 2;
            if len == 9 {
                loop {
                    input.get(ip + 1)?;
                    let code = input[ip];
                    ip += 1;
                    len += code as usize;
                    if code != 255 {
                        break;
                    }
                }
            } else {
                input.get(ip + 1)?;
            }
            let lo = input[ip] as usize;
            ip += 1;
            let mut dist = ((ctrl & 31) << 8) + lo + 1;
            if dist == 8192 {
                input.get(ip + 1)?;
                dist = 8192 + ((input[ip] as usize) << 8) + input[ip + 1] as usize;
                ip += 2;
            }
            if op + len > out.len() || dist > op {
                return None;
            }
            if ip >= input.len() {
                break;
            }
            for _ in 0..len {
                out[op] = out[op - dist];
                op += 1;
            }
        }
        if ip >= input.len() {
            break;
        }
        ctrl = input[ip] as usize;
        ip += 1;
    }
    Some(op)
}

fn roundtrip(data: &[u8]) -> Vec<usize> {
    let mut sizes = Vec::new();
    for clevel in 1..=9 {
        let mut comp = vec![0u8; data.len() + 100];
        let n = compress(clevel, data, &mut comp);
        sizes.push(n);
        if n == 0 {
            continue;
        }
        assert!(n <= comp.len());
        assert_eq!(comp[0] & 0xe0, 0x20, "format marker");
        let mut dec = vec![0u8; data.len()];
        assert_eq!(decompress(&comp[..n], &mut dec), Some(data.len()));
        assert_eq!(dec, data, "clevel {clevel}");
        // A larger output buffer changes nothing.
        let mut big = vec![0xa5u8; data.len() + 40];
        assert_eq!(decompress(&comp[..n], &mut big), Some(data.len()));
        assert_eq!(&big[..data.len()], data);
        // A smaller one is refused.
        if !data.is_empty() {
            let mut small = vec![0u8; data.len() - 1];
            assert_eq!(decompress(&comp[..n], &mut small), None);
        }
    }
    sizes
}

fn text_like(rng: &mut StdRng, n: usize) -> Vec<u8> {
    const WORDS: &str =
        "blosc |compress|the |of |data |chunk |frame, |block\n|superchunk |shuffle |1234 ";
    let words: Vec<&str> = WORDS.split('|').collect();
    let mut v = Vec::with_capacity(n + 16);
    while v.len() < n {
        v.extend_from_slice(words[rng.gen_range(0..words.len())].as_bytes());
    }
    v.truncate(n);
    v
}

fn small_alphabet(rng: &mut StdRng, n: usize, k: u8) -> Vec<u8> {
    (0..n).map(|_| b'a' + rng.gen_range(0..k)).collect()
}

#[test]
fn zeros_and_runs() {
    for &n in &[
        16usize, 17, 31, 64, 100, 1000, 4096, 65535, 65536, 65537, 200_000,
    ] {
        let sizes = roundtrip(&vec![0u8; n]);
        if n >= 1000 {
            assert!(
                sizes.iter().all(|&s| s > 0 && s < n / 8 + 64),
                "{n}: {sizes:?}"
            );
        }
        let runs: Vec<u8> = (0..n).map(|i| (i / 37) as u8).collect();
        roundtrip(&runs);
        let periodic: Vec<u8> = (0..n).map(|i| (i % 7) as u8 * 11).collect();
        roundtrip(&periodic);
        let ramp: Vec<u8> = (0..n).map(|i| (i as u32).to_le_bytes()[i % 4]).collect();
        roundtrip(&ramp);
    }
}

#[test]
fn random_and_mixed() {
    let mut rng = StdRng::seed_from_u64(0xb105c);
    for &n in &[16usize, 50, 999, 8192, 30_000, 65_536, 70_000, 140_000] {
        let random: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
        let sizes = roundtrip(&random);
        if n >= 1000 {
            assert!(
                sizes.iter().all(|&s| s == 0),
                "random compressed: {sizes:?}"
            );
        }
        roundtrip(&text_like(&mut rng, n));
        roundtrip(&small_alphabet(&mut rng, n, 3));
        // Sparse data: mostly zeros with random bytes sprinkled in.
        let sparse: Vec<u8> = (0..n)
            .map(|_| if rng.gen_ratio(1, 20) { rng.gen() } else { 0 })
            .collect();
        roundtrip(&sparse);
    }
}

#[test]
fn short_matches_one_or_two_items_back() {
    // Integers without shuffle: matches of a few zero bytes 8 to 15 bytes
    // back (the 8-byte match copy), for 8-byte and 12-byte items.
    for width in [8usize, 12] {
        let data: Vec<u8> = (0..20_000u64)
            .flat_map(|i| {
                let mut item = vec![0u8; width];
                item[3..8].copy_from_slice(&((4 * i) << 6).to_le_bytes()[..5]);
                item
            })
            .collect();
        let sizes = roundtrip(&data);
        assert!(
            sizes.iter().skip(2).all(|&n| n > 0 && n < data.len()),
            "{sizes:?}"
        );
        let mut comp = vec![0u8; data.len() + 100];
        let n = compress(5, &data, &mut comp);
        let mut slow = vec![0u8; data.len()];
        assert_eq!(slow_decode(&comp[..n], &mut slow), Some(data.len()));
        assert_eq!(slow, data);
    }
}

#[test]
fn far_matches() {
    // A compressible body with a random segment repeated at various
    // distances, some beyond the near (8 KiB) and far (72 KiB) windows.
    let mut rng = StdRng::seed_from_u64(7);
    for &gap in &[
        8000usize, 8190, 8192, 8200, 20_000, 65_000, 73_700, 73_730, 80_000,
    ] {
        let mut data = small_alphabet(&mut rng, gap + 3000, 2);
        let seg: Vec<u8> = (0..600).map(|_| rng.gen()).collect();
        data[100..700].copy_from_slice(&seg);
        data[100 + gap..700 + gap].copy_from_slice(&seg);
        let sizes = roundtrip(&data);
        assert!(sizes[8] > 0);
    }
}

#[test]
fn short_inputs() {
    let mut rng = StdRng::seed_from_u64(42);
    for n in 0..100 {
        let zeros = vec![0u8; n];
        let sizes = roundtrip(&zeros);
        if n < MIN_INPUT {
            assert!(sizes.iter().all(|&s| s == 0));
        }
        roundtrip(&text_like(&mut rng, n));
        roundtrip(&(0..n).map(|_| rng.gen_range(0..4u8)).collect::<Vec<_>>());
    }
}

#[test]
fn output_too_small() {
    let mut rng = StdRng::seed_from_u64(3);
    let data = text_like(&mut rng, 20_000);
    let mut comp = vec![0u8; 30_000];
    let full = compress(5, &data, &mut comp);
    assert!(full > 0 && full < data.len());
    // Any buffer smaller than needed gives 0, never a partial stream.
    for cap in [0, 10, 65, 66, 100, full / 2, full - 1] {
        let mut small = vec![0u8; cap];
        assert_eq!(compress(5, &data, &mut small), 0, "cap {cap}");
    }
    // Like the reference, one spare byte is needed past the stream end.
    let mut exact = vec![0u8; full];
    assert_eq!(compress(5, &data, &mut exact), 0);
    let mut spare = vec![0u8; full + 1];
    assert_eq!(compress(5, &data, &mut spare), full);
    assert_eq!(spare[..full], comp[..full]);
    // Short data, big enough output but below the 66-byte minimum.
    let mut out = vec![0u8; 65];
    assert_eq!(compress(9, &[0u8; 64], &mut out), 0);
    // Levels outside 1..=9.
    assert_eq!(compress(0, &data, &mut comp), 0);
    assert_eq!(
        compress(12, &data, &mut comp),
        compress(9, &data, &mut vec![0u8; 30_000])
    );
}

#[test]
fn handcrafted_streams() {
    // Literal "abc", near match dist 3 len 3, then a far match, then a
    // final literal (the reference ignores a trailing back-reference).
    let mut s = vec![0x20 | 2, b'a', b'b', b'c', 1 << 5, 2];
    assert_eq!(slow_decode(&s, &mut [0u8; 16]), None); // ends with a match
    s.extend_from_slice(&[0, b'z']);
    let mut out = [0u8; 16];
    assert_eq!(decompress(&s, &mut out), Some(7));
    assert_eq!(&out[..7], b"abcabcz");
    // Far reference (distance 8192 + 1) to before the start: refused.
    let far = [0x20, b'x', (1 << 5) | 31, 255, 0, 1, 0, b'y'];
    assert_eq!(decompress(&far, &mut [0u8; 64]), None);
    // Same, with enough history.
    let mut hist = Vec::new();
    for _ in 0..300 {
        hist.extend_from_slice(&[31]);
        hist.extend((0..32).map(|i| i as u8));
    }
    hist[0] |= 0x20;
    hist.extend_from_slice(&[(2 << 5) | 31, 255, 0, 1, 0, b'y']);
    let mut big = vec![0u8; 300 * 32 + 10];
    assert_eq!(decompress(&hist, &mut big), Some(300 * 32 + 5));
    let at = 300 * 32;
    let from = at - 8193;
    assert_eq!(big[at..at + 4], big[from..from + 4].to_vec()[..]);
    assert_eq!(decompress(&[], &mut []), Some(0));
}

#[test]
fn mutated_streams_never_panic() {
    let mut rng = StdRng::seed_from_u64(0x5eed);
    let mut corpus = Vec::new();
    for n in [40usize, 300, 5000, 40_000] {
        for data in [
            text_like(&mut rng, n),
            small_alphabet(&mut rng, n, 4),
            (0..n).map(|i| (i / 100) as u8).collect(),
        ] {
            let mut comp = vec![0u8; n + 100];
            let c = compress(9, &data, &mut comp);
            if c > 0 {
                comp.truncate(c);
                corpus.push((comp, n));
            }
        }
    }
    assert!(corpus.len() >= 8);
    let mut fast = Vec::new();
    let mut slow = Vec::new();
    let mut narrow = Vec::new();
    for case in 0..6000 {
        let (base, n) = &corpus[case % corpus.len()];
        let mut s = base.clone();
        match rng.gen_range(0..4) {
            0 => s.truncate(rng.gen_range(0..s.len())),
            1 => {
                for _ in 0..rng.gen_range(1..5) {
                    let i = rng.gen_range(0..s.len());
                    s[i] = rng.gen();
                }
            }
            2 => {
                let i = rng.gen_range(0..s.len());
                s[i] ^= 1 << rng.gen_range(0..8);
                s.truncate(rng.gen_range(i..s.len()) + 1);
            }
            _ => s = (0..rng.gen_range(0..200)).map(|_| rng.gen()).collect(),
        }
        let cap = match rng.gen_range(0..3) {
            0 => *n,
            1 => rng.gen_range(0..n + 50),
            _ => n + 1000,
        };
        fast.clear();
        fast.resize(cap, 0);
        slow.clear();
        slow.resize(cap, 0);
        narrow.clear();
        narrow.resize(cap, 0);
        // `decompress` takes the AVX2 build where the CPU has it; the
        // baseline build must agree too.
        let a = decompress(&s, &mut fast);
        let b = slow_decode(&s, &mut slow);
        let c = decompress_impl(&s, &mut narrow);
        assert_eq!(a, b, "case {case}");
        assert_eq!(c, b, "case {case}");
        if let Some(k) = a {
            assert!(k <= cap);
            assert_eq!(fast[..k], slow[..k], "case {case}");
            assert_eq!(narrow[..k], slow[..k], "case {case}");
        }
    }
}

#[test]
fn kept_table_gives_the_output_of_a_fresh_one() {
    // `compress` reuses the thread's table, which each call clears after
    // itself (by rehashing short inputs); any slot left behind would
    // change later outputs.  Mixed sizes, both clearing strategies and
    // every level (9 also writes shifted hashes), against a new table.
    let mut rng = StdRng::seed_from_u64(0xB10C);
    let mut compressed = 0;
    let tokens: Vec<[u8; 5]> = (0..3).map(|_| rng.gen()).collect();
    for round in 0..600 {
        let n = match round % 4 {
            0 => rng.gen_range(16..600),
            1 => rng.gen_range(600..5000),
            2 => rng.gen_range(5000..40_000),
            _ => rng.gen_range(16..3000),
        };
        let data: Vec<u8> = match round / 2 % 3 {
            0 => text_like(&mut rng, n),
            // The same three short tokens in random order in every
            // round: compressible, and nearly every 4-byte sequence
            // occurs at many places, in this input and the ones before,
            // so a slot left behind by an earlier call would soon be
            // taken up.
            1 => (0..n / 5 + 1)
                .flat_map(|_| tokens[rng.gen_range(0..tokens.len())])
                .take(n)
                .collect(),
            _ => (0..n).map(|_| rng.gen()).collect(),
        };
        // Every other call at level 9, whose encoder writes two slots
        // per match.
        let clevel = if round % 2 == 0 { 9 } else { 1 + round / 2 % 9 };
        let mut kept = vec![0u8; n + 64];
        let mut fresh = vec![0u8; n + 64];
        let a = compress(clevel as i32, &data, &mut kept);
        let b = compress_levels(Narrow, clevel, &data, &mut fresh, &mut Table::new());
        assert_eq!(a, b, "round {round} n {n} clevel {clevel}");
        assert_eq!(kept[..a], fresh[..b], "round {round} n {n} clevel {clevel}");
        compressed += usize::from(a > 0);
        // And directly: a call leaves the table all zero (this also
        // covers slots that later inputs would seldom read, such as the
        // level-9 encoder's shifted ones).
        let mut table = Table::new();
        compress_levels(Narrow, clevel, &data, &mut fresh, &mut table);
        assert!(
            table.slots.iter().all(|&v| v == 0),
            "round {round} n {n} clevel {clevel}: slots left behind"
        );
    }
    assert!(compressed > 100, "only {compressed} inputs compressed");
}

/// A scanner's output equals the portable one's on varied data, levels and
/// output room.
fn same_output_as_narrow<S: Scan>(wide: S) {
    let mut rng = StdRng::seed_from_u64(99);
    for case in 0..60 {
        let n = [16, 100, 1000, 4096, 70_000, 300_000][case % 6];
        let data = match case % 4 {
            0 => text_like(&mut rng, n),
            1 => small_alphabet(&mut rng, n, 2),
            2 => {
                let mut v = vec![0u8; n];
                for _ in 0..n / 50 {
                    let at = rng.gen_range(0..n);
                    v[at] = rng.gen();
                }
                v
            }
            _ => (0..n).map(|i| (i / 37 % 5) as u8).collect(),
        };
        for clevel in 1..=9 {
            for room in [n + 64, n / 2 + 66] {
                let mut a = vec![0u8; room];
                let mut b = vec![0u8; room];
                let t = &mut Table::new();
                let na = compress_levels(Narrow, clevel, &data, &mut a, t);
                let nb = compress_levels(wide, clevel, &data, &mut b, t);
                assert_eq!(na, nb, "case {case} clevel {clevel} room {room}");
                assert_eq!(a[..na], b[..nb], "case {case} clevel {clevel}");
            }
        }
    }
}

#[test]
fn wide_scans_give_the_same_output() {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(wide) = avx2::Wide::detect() {
            same_output_as_narrow(wide);
        }
        if let Some(wide) = avx512::Wide::detect() {
            same_output_as_narrow(wide);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    same_output_as_narrow(Narrow);
}

#[test]
fn copy_match_all_shapes() {
    const OP: usize = 200;
    let mut rng = StdRng::seed_from_u64(11);
    let dists = (1..40).chain([47, 63, 64, 65, 100, 128, 199, 200]);
    for dist in dists {
        for len in (1..80).chain([96, 127, 128, 129, 150, 260]) {
            for extra in [0usize, 3, 8, 20, 31, 32, 40] {
                let n = OP + len + extra;
                let mut a: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
                a[OP..].fill(0);
                let mut b = a.clone();
                copy_match(&mut a, OP, dist, len);
                for i in OP..OP + len {
                    b[i] = b[i - dist];
                }
                assert_eq!(a[..OP + len], b[..OP + len], "dist {dist} len {len}");
            }
        }
    }
}
