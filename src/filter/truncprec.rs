//! Precision truncation for 32- and 64-bit IEEE floats.
//!
//! `prec_bits >= 0` asks to keep that many mantissa bits, `prec_bits < 0`
//! asks to drop `-prec_bits` of them.  The low mantissa bits are cleared.
//! Like the reference, requests that would clear the whole mantissa (or whose
//! magnitude exceeds the mantissa width) fail, as does any typesize other
//! than 4 or 8.  The filter has no inverse.

const MANTISSA_F32: i32 = 23;
const MANTISSA_F64: i32 = 52;

/// Number of low bits to clear, or `None` when the request is rejected.
fn zeroed_bits(prec_bits: i8, mantissa: i32) -> Option<u32> {
    let p = i32::from(prec_bits);
    if p.abs() > mantissa {
        return None;
    }
    let zeroed = if p >= 0 { mantissa - p } else { -p };
    if zeroed >= mantissa {
        return None;
    }
    Some(zeroed as u32)
}

/// Truncate the mantissas of the `src.len() / typesize` floats of `src` into
/// `dest`.  Trailing bytes that do not form a whole element are copied (the
/// reference leaves them unwritten).  On error `dest` is untouched.
pub fn truncate_precision(
    prec_bits: i8,
    typesize: usize,
    src: &[u8],
    dest: &mut [u8],
) -> Result<(), ()> {
    let len = src.len();
    assert!(
        dest.len() >= len,
        "truncate_precision: dest shorter than src"
    );
    let whole = match typesize {
        4 => {
            let z = zeroed_bits(prec_bits, MANTISSA_F32).ok_or(())?;
            let mask = !((1u32 << z) - 1);
            let mut d = dest.chunks_exact_mut(4);
            for (o, s) in (&mut d).zip(src.chunks_exact(4)) {
                let v = u32::from_le_bytes([s[0], s[1], s[2], s[3]]) & mask;
                o.copy_from_slice(&v.to_le_bytes());
            }
            len / 4 * 4
        }
        8 => {
            let z = zeroed_bits(prec_bits, MANTISSA_F64).ok_or(())?;
            let mask = !((1u64 << z) - 1);
            for (o, s) in dest.chunks_exact_mut(8).zip(src.chunks_exact(8)) {
                let mut w = [0u8; 8];
                w.copy_from_slice(s);
                o.copy_from_slice(&(u64::from_le_bytes(w) & mask).to_le_bytes());
            }
            len / 8 * 8
        }
        _ => return Err(()),
    };
    dest[whole..len].copy_from_slice(&src[whole..]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits() {
        assert_eq!(zeroed_bits(0, 23), None);
        assert_eq!(zeroed_bits(1, 23), Some(22));
        assert_eq!(zeroed_bits(23, 23), Some(0));
        assert_eq!(zeroed_bits(24, 23), None);
        assert_eq!(zeroed_bits(-22, 23), Some(22));
        assert_eq!(zeroed_bits(-23, 23), None);
        assert_eq!(zeroed_bits(-128, 52), None);
        assert_eq!(zeroed_bits(127, 52), None);
        assert_eq!(zeroed_bits(-51, 52), Some(51));
        assert_eq!(zeroed_bits(52, 52), Some(0));
    }

    #[test]
    fn f32_values() {
        let vals = [std::f32::consts::PI, -1.0e-3, 12345.678];
        let src: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut out = vec![0u8; src.len()];
        truncate_precision(10, 4, &src, &mut out).unwrap();
        for (o, v) in out.chunks_exact(4).zip(vals) {
            let got = u32::from_le_bytes([o[0], o[1], o[2], o[3]]);
            assert_eq!(got, v.to_bits() & 0xFFFF_E000);
        }
        // pi with 10 mantissa bits kept.
        let pi = f32::from_le_bytes([out[0], out[1], out[2], out[3]]);
        assert_eq!(pi, 3.140625);
        // Dropping 13 bits is the same as keeping 10.
        let mut out2 = vec![0u8; src.len()];
        truncate_precision(-13, 4, &src, &mut out2).unwrap();
        assert_eq!(out, out2);
    }

    #[test]
    fn f64_values_and_leftover() {
        let mut src: Vec<u8> = std::f64::consts::E.to_le_bytes().to_vec();
        src.extend_from_slice(&[1, 2, 3]);
        let mut out = vec![0u8; src.len()];
        truncate_precision(4, 8, &src, &mut out).unwrap();
        let mut w = [0u8; 8];
        w.copy_from_slice(&out[..8]);
        assert_eq!(f64::from_le_bytes(w), 2.625);
        assert_eq!(&out[8..], &[1, 2, 3]);
    }

    #[test]
    fn errors() {
        let src = [0u8; 16];
        let mut out = [9u8; 16];
        for (p, ts) in [
            (0i8, 4usize),
            (24, 4),
            (-23, 4),
            (0, 8),
            (53, 8),
            (-52, 8),
            (5, 2),
            (5, 16),
        ] {
            assert!(
                truncate_precision(p, ts, &src, &mut out).is_err(),
                "{p} {ts}"
            );
        }
        assert_eq!(out, [9u8; 16]);
    }
}
