//! The int_trunc filter (id 36): zero low bits of 1, 2, 4 or 8-byte integers.
//!
//! The filter meta is a signed precision: a positive value keeps that many
//! bits (counted from the top), a negative one zeroes that many low bits.
//! Asking to zero every bit (or more) is an error, as is any other typesize.
//! Truncation is not undone: the backward step is a copy.

/// Truncate `src` into `dest` (at least `src.len()` bytes).  The bytes after
/// the last whole item are copied unchanged.  `Err(())` for a typesize other
/// than 1, 2, 4, 8 or a precision that would clear the whole item.
pub fn truncate(prec_bits: i8, typesize: usize, src: &[u8], dest: &mut [u8]) -> Result<(), ()> {
    if !matches!(typesize, 1 | 2 | 4 | 8) {
        return Err(());
    }
    let width = (typesize * 8) as u8;
    // Same arithmetic as the reference: both cases wrap in 8 bits.
    let zeroed: u8 = if prec_bits >= 0 {
        width.wrapping_sub(prec_bits as u8)
    } else {
        (-(prec_bits as i16)) as u8
    };
    if zeroed >= width {
        return Err(());
    }
    let mask: u64 = !((1u64 << zeroed) - 1);
    // Item k's byte j is ANDed with byte j of the mask (little-endian); the
    // pattern repeats every `typesize` bytes, so AND whole 64-byte runs with
    // one 64-byte pattern (a loop the compiler turns into vector ANDs).
    let item_mask = mask.to_le_bytes();
    let pattern: [u8; 64] = std::array::from_fn(|i| item_mask[i % typesize]);
    let len = src.len();
    let whole = len / typesize * typesize;
    let (src, dest) = (&src[..len], &mut dest[..len]);
    let runs = whole / 64 * 64;
    for (s, d) in src[..runs]
        .chunks_exact(64)
        .zip(dest[..runs].chunks_exact_mut(64))
    {
        for ((o, &b), &m) in d.iter_mut().zip(s).zip(&pattern) {
            *o = b & m;
        }
    }
    // The items after the last whole run start at a multiple of typesize
    // too, so the pattern lines up with them.
    for ((o, &b), &m) in dest[runs..whole]
        .iter_mut()
        .zip(&src[runs..whole])
        .zip(&pattern)
    {
        *o = b & m;
    }
    dest[whole..].copy_from_slice(&src[whole..]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_and_zeroes_bits() {
        let src = 0xFFFF_FFFFu32.to_le_bytes();
        let mut d = [0u8; 4];
        truncate(8, 4, &src, &mut d).unwrap();
        assert_eq!(u32::from_le_bytes(d), 0xFF00_0000);
        truncate(-4, 4, &src, &mut d).unwrap();
        assert_eq!(u32::from_le_bytes(d), 0xFFFF_FFF0);
        let src = u64::MAX.to_le_bytes();
        let mut d = [0u8; 8];
        truncate(1, 8, &src, &mut d).unwrap();
        assert_eq!(u64::from_le_bytes(d), 1 << 63);
        let mut d1 = [0u8; 3];
        truncate(-3, 1, &[0xFF, 0x0F, 0x08], &mut d1).unwrap();
        assert_eq!(d1, [0xF8, 0x08, 0x08]);
    }

    #[test]
    fn rejects_bad_args() {
        let src = [0u8; 16];
        let mut d = [0u8; 16];
        assert!(truncate(3, 3, &src, &mut d).is_err());
        assert!(truncate(0, 4, &src, &mut d).is_err());
        assert!(truncate(-32, 4, &src, &mut d).is_err());
        assert!(truncate(-128, 8, &src, &mut d).is_err());
        assert!(truncate(9, 1, &src, &mut d).is_err());
        assert!(truncate(32, 4, &src, &mut d).is_ok());
        assert!(truncate(-31, 4, &src, &mut d).is_ok());
    }

    #[test]
    fn long_buffers_match_item_by_item_masking() {
        // Lengths around the 64-byte runs, every typesize and some precisions.
        for typesize in [1usize, 2, 4, 8] {
            for prec in [-1i8, -3, 5, 7] {
                for len in [0usize, 1, 63, 64, 65, 127, 128, 200, 1000, 1031] {
                    let src: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8 | 0x81).collect();
                    let mut got = vec![0u8; len];
                    truncate(prec, typesize, &src, &mut got).unwrap();
                    let width = 8 * typesize as i32;
                    let zeroed = if prec >= 0 {
                        width - prec as i32
                    } else {
                        -prec as i32
                    };
                    let whole = len / typesize * typesize;
                    for (i, (&g, &s)) in got.iter().zip(&src).enumerate() {
                        let bit0 = 8 * (i % typesize) as i32;
                        let keep = if i >= whole {
                            0xFF
                        } else {
                            (0..8)
                                .filter(|b| bit0 + b >= zeroed)
                                .fold(0u8, |m, b| m | 1 << b)
                        };
                        assert_eq!(
                            g,
                            s & keep,
                            "typesize {typesize} prec {prec} len {len} at {i}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn leftover_bytes_pass_through() {
        let src = [0xFFu8; 7];
        let mut d = [0u8; 7];
        truncate(4, 2, &src, &mut d).unwrap();
        assert_eq!(d, [0x00, 0xF0, 0x00, 0xF0, 0x00, 0xF0, 0xFF]);
    }
}
