//! The bytedelta filter (ids 34 "bytedelta_buggy" and 35 "bytedelta").
//!
//! The block is seen as `typesize` byte streams laid one after the other (the
//! layout a byte shuffle leaves behind): stream `k` is the bytes
//! `k * n .. (k + 1) * n` with `n = len / typesize`.  Each stream is replaced
//! by the difference of every byte with the one before it (wrapping, the first
//! byte of a stream is taken against 0).  The `len % typesize` bytes at the end
//! belong to no stream and pass through as they are.
//!
//! The "buggy" flavour is what c-blosc2 wrote before 2.8 on CPUs where its
//! 16-byte SIMD loop ran: the byte after the last whole 16-byte group of a
//! stream restarted the delta from 0 instead of from the previous byte.  It is
//! kept so that such chunks still decode; it is its own exact inverse.

/// How the carried byte behaves at the end of the 16-byte groups.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flavour {
    /// The correct filter (id 35).
    Fixed,
    /// The legacy filter (id 34): restart from 0 after the last whole
    /// 16-byte group of each stream.
    Buggy,
}

/// The index inside a stream of `n` bytes where the buggy flavour restarts
/// its running byte at 0 (`None` when it never does).
fn restart_at(flavour: Flavour, n: usize) -> Option<usize> {
    match flavour {
        Flavour::Fixed => None,
        Flavour::Buggy => {
            let groups = n / 16;
            (groups > 0).then_some(groups * 16)
        }
    }
}

/// Forward filter.  `dest` must be at least `src.len()` bytes; `typesize`
/// must be at least 1.
pub fn encode(flavour: Flavour, typesize: usize, src: &[u8], dest: &mut [u8]) {
    let len = src.len();
    let n = len / typesize;
    let restart = restart_at(flavour, n);
    for (s_in, s_out) in src[..n * typesize]
        .chunks_exact(n.max(1))
        .zip(dest[..n * typesize].chunks_exact_mut(n.max(1)))
    {
        let mut prev = 0u8;
        for (i, (&v, o)) in s_in.iter().zip(s_out.iter_mut()).enumerate() {
            if Some(i) == restart {
                prev = 0;
            }
            *o = v.wrapping_sub(prev);
            prev = v;
        }
    }
    dest[n * typesize..len].copy_from_slice(&src[n * typesize..]);
}

/// Backward filter (inverse of [`encode`] for the same flavour).
pub fn decode(flavour: Flavour, typesize: usize, src: &[u8], dest: &mut [u8]) {
    let len = src.len();
    let n = len / typesize;
    let restart = restart_at(flavour, n);
    for (s_in, s_out) in src[..n * typesize]
        .chunks_exact(n.max(1))
        .zip(dest[..n * typesize].chunks_exact_mut(n.max(1)))
    {
        let mut acc = 0u8;
        for (i, (&d, o)) in s_in.iter().zip(s_out.iter_mut()).enumerate() {
            if Some(i) == restart {
                acc = 0;
            }
            acc = acc.wrapping_add(d);
            *o = acc;
        }
    }
    dest[n * typesize..len].copy_from_slice(&src[n * typesize..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| ((i * 7919) ^ (i >> 3)).wrapping_mul(31) as u8)
            .collect()
    }

    #[test]
    fn fixed_is_per_stream_delta() {
        // typesize 2, 4 elements: streams [1,2,3,4] and [10,20,30,40] + 1 leftover
        let src = [1u8, 2, 3, 4, 10, 20, 30, 40, 99];
        let mut out = [0u8; 9];
        encode(Flavour::Fixed, 2, &src, &mut out);
        assert_eq!(out, [1, 1, 1, 1, 10, 10, 10, 10, 99]);
        let mut back = [0u8; 9];
        decode(Flavour::Fixed, 2, &out, &mut back);
        assert_eq!(back, src);
    }

    #[test]
    fn buggy_restarts_after_last_group() {
        let src: Vec<u8> = (1..=20).collect();
        let mut out = vec![0u8; 20];
        encode(Flavour::Buggy, 1, &src, &mut out);
        let mut want = vec![1u8; 20];
        want[16] = 17;
        assert_eq!(out, want);
        let mut back = vec![0u8; 20];
        decode(Flavour::Buggy, 1, &out, &mut back);
        assert_eq!(back, src);
    }

    #[test]
    fn round_trips() {
        for len in [0usize, 1, 15, 16, 17, 33, 100, 1000, 4099] {
            let src = data(len);
            for ts in [1usize, 2, 3, 4, 7, 8, 16, 255] {
                for fl in [Flavour::Fixed, Flavour::Buggy] {
                    let mut a = vec![0u8; len];
                    let mut b = vec![0u8; len];
                    encode(fl, ts, &src, &mut a);
                    decode(fl, ts, &a, &mut b);
                    assert_eq!(b, src, "len {len} ts {ts} {fl:?}");
                }
            }
        }
    }
}
