//! Helpers shared by the integration tests.

pub mod reflib;
pub mod schunk_context;

/// The base seed: `$BLOSC2_TEST_SEED` (decimal or 0x-hex) or the clock; one
/// value per test process.
pub fn test_seed() -> u64 {
    static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *SEED.get_or_init(pick_seed)
}

fn pick_seed() -> u64 {
    if let Ok(s) = std::env::var("BLOSC2_TEST_SEED") {
        let s = s.trim();
        let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => s.parse::<u64>(),
        };
        return parsed.unwrap_or_else(|_| panic!("BLOSC2_TEST_SEED={s:?} is not a u64"));
    }
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0x5eed);
    // Spread the low bits a little so that seeds printed close in time differ.
    t ^ (t >> 29).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// An environment variable parsed as a number, with a default.
pub fn env_num<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}
