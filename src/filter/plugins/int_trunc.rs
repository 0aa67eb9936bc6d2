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
    let len = src.len();
    let whole = len / typesize * typesize;
    for (s, d) in src[..whole]
        .chunks_exact(typesize)
        .zip(dest[..whole].chunks_exact_mut(typesize))
    {
        // Little-endian item: byte k holds bits 8k..8k+7 of the mask.
        for (k, (&b, o)) in s.iter().zip(d.iter_mut()).enumerate() {
            *o = b & (mask >> (8 * k)) as u8;
        }
    }
    dest[whole..len].copy_from_slice(&src[whole..]);
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
    fn leftover_bytes_pass_through() {
        let src = [0xFFu8; 7];
        let mut d = [0u8; 7];
        truncate(4, 2, &src, &mut d).unwrap();
        assert_eq!(d, [0x00, 0xF0, 0x00, 0xF0, 0x00, 0xF0, 0xFF]);
    }
}
