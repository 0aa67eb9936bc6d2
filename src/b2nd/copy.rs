//! Copy a box of items between two C-order buffers of different (padded)
//! shapes (`b2nd_copy_buffer2`).

use super::geometry::{strides, MAX_DIM};
use crate::error::{Error, Result};

/// The number of dimensions and the item size of a box copy, checked:
/// 1 to [`MAX_DIM`] dimensions and a positive item size (`InvalidParam`
/// otherwise).
pub fn copy_args(ndim: i8, itemsize: i32) -> Result<(usize, usize)> {
    match (usize::try_from(ndim), usize::try_from(itemsize)) {
        (Ok(nd), Ok(ts)) if (1..=MAX_DIM).contains(&nd) && ts > 0 => Ok((nd, ts)),
        _ => Err(Error::InvalidParam),
    }
}

/// Bytes a buffer must hold for items up to (but excluding) `stop` along
/// every dimension of a buffer of shape `pad` (`None` on overflow; 0 when
/// the box is empty).
pub fn needed_bytes(pad: &[i64], start: &[i64], stop: &[i64], itemsize: usize) -> Option<usize> {
    if stop.iter().zip(start).any(|(&e, &s)| e <= s) {
        return Some(0);
    }
    let st = strides(pad);
    let mut last: i64 = 0;
    for i in 0..pad.len() {
        last = last.checked_add((stop[i] - 1).checked_mul(st[i])?)?;
    }
    usize::try_from(last.checked_add(1)?)
        .ok()?
        .checked_mul(itemsize)
}

/// The bytes from the start of each buffer that [`copy_box`] may touch
/// when it copies the box `[src_start, src_stop)` to `dst_start`: `None`
/// when the box is empty (nothing is copied), `InvalidParam` when the
/// arguments are not one value a dimension or a count overflows.
pub fn box_extents(
    itemsize: usize,
    src_pad: &[i64],
    src_start: &[i64],
    src_stop: &[i64],
    dst_pad: &[i64],
    dst_start: &[i64],
) -> Result<Option<(usize, usize)>> {
    let nd = src_pad.len();
    if [src_start, src_stop, dst_pad, dst_start]
        .iter()
        .any(|v| v.len() != nd)
    {
        return Err(Error::InvalidParam);
    }
    if src_stop.iter().zip(src_start).any(|(e, s)| e <= s) {
        return Ok(None);
    }
    let dst_stop: Vec<i64> = (0..nd)
        .map(|i| dst_start[i].saturating_add(src_stop[i] - src_start[i]))
        .collect();
    let src_len = needed_bytes(src_pad, src_start, src_stop, itemsize);
    let dst_len = needed_bytes(dst_pad, dst_start, &dst_stop, itemsize);
    match (src_len, dst_len) {
        (Some(s), Some(d)) => Ok(Some((s, d))),
        _ => Err(Error::InvalidParam),
    }
}

/// Copy `src[src_start..src_stop)` (a buffer of shape `src_pad`) into `dst`
/// (shape `dst_pad`) at `dst_start`.  Everything is checked: starts and
/// stops inside their padded shapes, and both slices long enough.
#[allow(clippy::too_many_arguments)]
pub fn copy_box(
    itemsize: usize,
    src: &[u8],
    src_pad: &[i64],
    src_start: &[i64],
    src_stop: &[i64],
    dst: &mut [u8],
    dst_pad: &[i64],
    dst_start: &[i64],
) -> Result<()> {
    let nd = src_pad.len();
    if src_start.len() != nd || src_stop.len() != nd || dst_pad.len() != nd || dst_start.len() != nd
    {
        return Err(Error::InvalidParam);
    }
    let mut copy = vec![0i64; nd];
    let mut dst_stop = vec![0i64; nd];
    for i in 0..nd {
        if src_start[i] < 0 || src_stop[i] < src_start[i] || src_stop[i] > src_pad[i] {
            return Err(Error::InvalidParam);
        }
        copy[i] = src_stop[i] - src_start[i];
        dst_stop[i] = dst_start[i]
            .checked_add(copy[i])
            .ok_or(Error::InvalidParam)?;
        if dst_start[i] < 0 || dst_stop[i] > dst_pad[i] {
            return Err(Error::InvalidParam);
        }
    }
    if copy.contains(&0) {
        return Ok(());
    }
    let need_src =
        needed_bytes(src_pad, src_start, src_stop, itemsize).ok_or(Error::InvalidParam)?;
    let need_dst =
        needed_bytes(dst_pad, dst_start, &dst_stop, itemsize).ok_or(Error::InvalidParam)?;
    if src.len() < need_src || dst.len() < need_dst {
        return Err(Error::InvalidParam);
    }
    if nd == 0 {
        dst[..itemsize].copy_from_slice(&src[..itemsize]);
        return Ok(());
    }
    let ss = strides(src_pad);
    let ds = strides(dst_pad);
    // Fold trailing dimensions that are copied whole in both buffers into
    // one contiguous run.
    let mut inner = nd - 1;
    let mut run = copy[nd - 1];
    while inner > 0 && copy[inner] == src_pad[inner] && copy[inner] == dst_pad[inner] {
        inner -= 1;
        run *= copy[inner];
    }
    let run_bytes = run as usize * itemsize;
    let so = |idx: &[i64]| -> usize {
        let mut o = 0i64;
        for i in 0..nd {
            o += (src_start[i] + idx[i]) * ss[i];
        }
        o as usize * itemsize
    };
    let dof = |idx: &[i64]| -> usize {
        let mut o = 0i64;
        for i in 0..nd {
            o += (dst_start[i] + idx[i]) * ds[i];
        }
        o as usize * itemsize
    };
    // Odometer over the outer dimensions [0, inner).
    let mut idx = vec![0i64; nd];
    loop {
        let s = so(&idx);
        let d = dof(&idx);
        dst[d..d + run_bytes].copy_from_slice(&src[s..s + run_bytes]);
        let mut k = inner;
        loop {
            if k == 0 {
                return Ok(());
            }
            k -= 1;
            idx[k] += 1;
            if idx[k] < copy[k] {
                break;
            }
            idx[k] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimensions_and_item_sizes() {
        assert_eq!(copy_args(1, 1), Ok((1, 1)));
        assert_eq!(copy_args(MAX_DIM as i8, 8), Ok((MAX_DIM, 8)));
        for (nd, ts) in [(0, 1), (-1, 1), (MAX_DIM as i8 + 1, 1), (2, 0), (2, -4)] {
            assert_eq!(copy_args(nd, ts), Err(Error::InvalidParam));
        }
    }

    #[test]
    fn extents_of_a_box() {
        // A 2x3 box at (1, 1) of a 4x5 buffer ends at item 2*5 + 3 = 13.
        let e = box_extents(2, &[4, 5], &[1, 1], &[3, 4], &[2, 3], &[0, 0]);
        assert_eq!(e, Ok(Some((28, 12))));
        let empty = box_extents(2, &[4, 5], &[1, 1], &[1, 4], &[2, 3], &[0, 0]);
        assert_eq!(empty, Ok(None));
        let huge = box_extents(8, &[2, i64::MAX], &[0, 0], &[3, 2], &[3, 2], &[0, 0]);
        assert_eq!(huge, Err(Error::InvalidParam));
        let short = box_extents(1, &[4, 5], &[1], &[3, 4], &[2, 3], &[0, 0]);
        assert_eq!(short, Err(Error::InvalidParam));
    }

    /// Item-by-item model of the copy.
    #[allow(clippy::too_many_arguments)]
    fn model(
        ts: usize,
        src: &[u8],
        sp: &[i64],
        s0: &[i64],
        s1: &[i64],
        dst: &mut [u8],
        dp: &[i64],
        d0: &[i64],
    ) {
        let nd = sp.len();
        let ss = strides(sp);
        let ds = strides(dp);
        let ext: Vec<i64> = (0..nd).map(|i| s1[i] - s0[i]).collect();
        super::super::geometry::for_each_index(&ext, |idx| {
            let mut so = 0;
            let mut doff = 0;
            for i in 0..nd {
                so += (s0[i] + idx[i]) * ss[i];
                doff += (d0[i] + idx[i]) * ds[i];
            }
            let (so, doff) = (so as usize * ts, doff as usize * ts);
            dst[doff..doff + ts].copy_from_slice(&src[so..so + ts]);
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn matches_model() {
        let mut seed = 12345u64;
        let mut rnd = |n: i64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as i64) % n
        };
        for _ in 0..300 {
            let nd = 1 + rnd(4) as usize;
            let ts = 1 + rnd(5) as usize;
            let sp: Vec<i64> = (0..nd).map(|_| 1 + rnd(6)).collect();
            let s0: Vec<i64> = sp.iter().map(|&p| rnd(p)).collect();
            let s1: Vec<i64> = (0..nd).map(|i| s0[i] + 1 + rnd(sp[i] - s0[i])).collect();
            let dp: Vec<i64> = (0..nd).map(|i| s1[i] - s0[i] + rnd(4)).collect();
            let d0: Vec<i64> = (0..nd).map(|i| rnd(dp[i] - (s1[i] - s0[i]) + 1)).collect();
            let n_src: i64 = sp.iter().product::<i64>() * ts as i64;
            let n_dst: i64 = dp.iter().product::<i64>() * ts as i64;
            let src: Vec<u8> = (0..n_src).map(|i| (i * 7 + 3) as u8).collect();
            let mut a = vec![0u8; n_dst as usize];
            let mut b = a.clone();
            copy_box(ts, &src, &sp, &s0, &s1, &mut a, &dp, &d0).unwrap();
            model(ts, &src, &sp, &s0, &s1, &mut b, &dp, &d0);
            assert_eq!(a, b);
        }
    }

    #[test]
    fn out_of_bounds_is_an_error() {
        let src = [0u8; 16];
        let mut dst = [0u8; 16];
        assert!(copy_box(
            1,
            &src,
            &[4, 4],
            &[0, 0],
            &[5, 4],
            &mut dst,
            &[4, 4],
            &[0, 0]
        )
        .is_err());
        assert!(copy_box(
            1,
            &src,
            &[4, 4],
            &[0, 0],
            &[2, 2],
            &mut dst,
            &[4, 4],
            &[3, 3]
        )
        .is_err());
        assert!(copy_box(
            1,
            &src[..8],
            &[4, 4],
            &[0, 0],
            &[4, 4],
            &mut dst,
            &[4, 4],
            &[0, 0]
        )
        .is_err());
        assert!(copy_box(
            1,
            &src,
            &[4, 4],
            &[0, 0],
            &[4, 4],
            &mut dst,
            &[4, 4],
            &[0, 0]
        )
        .is_ok());
    }
}
