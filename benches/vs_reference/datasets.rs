//! The datasets (deterministic): 4 MiB each, generated from a fixed seed.

use crate::opts::DATA_BYTES;

/// SplitMix64: tiny, deterministic, good enough for test data.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

pub(crate) struct Dataset {
    pub(crate) name: &'static str,
    pub(crate) typesize: i32,
    pub(crate) data: Vec<u8>,
}

pub(crate) fn datasets() -> Vec<Dataset> {
    let mut rng = Rng(0x005E_EDB1_05C2);
    let mut out = Vec::new();

    let n = DATA_BYTES / 8;
    let lin: Vec<u8> = (0..n)
        .flat_map(|i| {
            let x = i as f64 * (100.0 / (n - 1) as f64) + (rng.unit() - 0.5) * 1e-6;
            x.to_le_bytes()
        })
        .collect();
    out.push(Dataset {
        name: "f64-linspace-noise",
        typesize: 8,
        data: lin,
    });

    let n = DATA_BYTES / 4;
    let ar: Vec<u8> = (0..n as i32).flat_map(|i| i.to_le_bytes()).collect();
    out.push(Dataset {
        name: "i32-arange",
        typesize: 4,
        data: ar,
    });

    let side = 1024usize; // 1024 x 1024 float32 = 4 MiB
    let mut field = Vec::with_capacity(DATA_BYTES);
    for y in 0..side {
        for x in 0..side {
            let (fx, fy) = (x as f32 / side as f32, y as f32 / side as f32);
            let v = (6.0 * fx).sin() * (4.0 * fy).cos() + 0.25 * ((fx * fx + fy * fy) * 9.0).sin();
            field.extend_from_slice(&v.to_le_bytes());
        }
    }
    out.push(Dataset {
        name: "f32-field2d",
        typesize: 4,
        data: field,
    });

    let rnd: Vec<u8> = (0..DATA_BYTES / 8)
        .flat_map(|_| rng.next().to_le_bytes())
        .collect();
    out.push(Dataset {
        name: "random-bytes",
        typesize: 8,
        data: rnd,
    });

    let sparse: Vec<u8> = (0..DATA_BYTES / 8)
        .flat_map(|_| {
            let v: i64 = if rng.next().is_multiple_of(100) {
                (rng.next() % 1_000_000) as i64
            } else {
                0
            };
            v.to_le_bytes()
        })
        .collect();
    out.push(Dataset {
        name: "i64-mostly-zero",
        typesize: 8,
        data: sparse,
    });

    for d in &out {
        assert_eq!(d.data.len(), DATA_BYTES);
    }
    out
}
