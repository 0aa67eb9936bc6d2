//! NDMEAN (filter 33): lossy N-dimensional cell averaging for float32 and
//! float64 items.
//!
//! Like ndcell, it reads the block shape from the "b2nd" metalayer of the
//! super-chunk and cuts every block into cells; the meta byte is the cell
//! side (1..=127, read as a signed byte), clipped to the block shape in each
//! dimension.  Forward writes, cell after cell (in ndcell's order), the mean
//! of the cell's items repeated once per item; backward scatters the cells
//! back in place, so after a round trip every item holds the mean of its
//! cell.  The mean is summed in the item's own precision, in cell order, then
//! divided by the item count, exactly as the reference does, so both write
//! the same bits.
//!
//! Compression only takes 4- and 8-byte items; decompression takes the item
//! size of the super-chunk (as the reference, it does not check for 4 or 8
//! there).
//!
//! The reference places a cell's origin using the first cell dimension for
//! every dimension.  When the cell side was clipped in dimension 0 but not in
//! a later one (a block shape like `2 × 10` with side 4), cells overlap:
//! compression still succeeds and writes averages of those overlapping
//! cells, and decompression then fails its final check.  This module does the
//! same, so chunks stay byte-compatible both ways.

use super::ndcell::{b2nd_blockshape, block_dims, scatter, walk_cells};
use super::SUCCESS;
use crate::error::Error;
use crate::plugin::{CallInfo, FilterPlugin};

/// The cell shape for the meta byte and block shape: the side (a positive
/// signed byte) clipped to each block dimension.  `None` for a side of 0 or
/// above 127.
fn cell_shape(meta: u8, blockshape: &[i32]) -> Option<Vec<i32>> {
    let side = meta as i8;
    if side <= 0 {
        return None;
    }
    Some(blockshape.iter().map(|&b| (side as i32).min(b)).collect())
}

/// Everything both directions check before touching a block of `len` bytes
/// of `typesize`-byte items.  Returns (block shape, cell shape, origin step).
fn geometry(
    info: &CallInfo,
    typesize: usize,
    len: usize,
) -> Option<(Vec<usize>, Vec<usize>, usize)> {
    let blockshape = b2nd_blockshape(info)?;
    let cells = cell_shape(info.meta, &blockshape)?;
    let block = block_dims(&blockshape, typesize, len)?;
    // Clipped to a (now known positive) block shape: 1..=127 each.
    let cell: Vec<usize> = cells.iter().map(|&c| c as usize).collect();
    // A cell never holds more items than the block here; kept for parity
    // with the reference's checks.
    let cell_items: usize = cell.iter().product();
    if cell_items > len / typesize {
        return None;
    }
    let step = cell[0];
    Some((block, cell, step))
}

/// An item type the mean is computed in.
trait Item: Copy + std::ops::AddAssign + std::ops::Div<Output = Self> {
    const SIZE: usize;
    const ZERO: Self;
    fn read(b: &[u8]) -> Self;
    fn write(self, b: &mut [u8]);
    fn count(n: usize) -> Self;
}

impl Item for f32 {
    const SIZE: usize = 4;
    const ZERO: Self = 0.0;
    fn read(b: &[u8]) -> Self {
        f32::from_ne_bytes([b[0], b[1], b[2], b[3]])
    }
    fn write(self, b: &mut [u8]) {
        b.copy_from_slice(&self.to_ne_bytes());
    }
    fn count(n: usize) -> Self {
        n as f32
    }
}

impl Item for f64 {
    const SIZE: usize = 8;
    const ZERO: Self = 0.0;
    fn read(b: &[u8]) -> Self {
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        f64::from_ne_bytes(a)
    }
    fn write(self, b: &mut [u8]) {
        b.copy_from_slice(&self.to_ne_bytes());
    }
    fn count(n: usize) -> Self {
        n as f64
    }
}

/// Write the cell means of `src` into `dest` in cell order.
fn means<T: Item>(
    src: &[u8],
    dest: &mut [u8],
    block: &[usize],
    cell: &[usize],
    step: usize,
) -> Result<(), ()> {
    let ts = T::SIZE;
    let mut op = 0usize;
    let mut sum = T::ZERO;
    let mut n = 0usize;
    walk_cells(block, cell, step, |start, len, last| {
        let row = src.get(start * ts..(start + len) * ts).ok_or(())?;
        for item in row.chunks_exact(ts) {
            sum += T::read(item);
        }
        n += len;
        if last {
            let mean = sum / T::count(n);
            let out = dest.get_mut(op..op + n * ts).ok_or(())?;
            for item in out.chunks_exact_mut(ts) {
                mean.write(item);
            }
            op += n * ts;
            sum = T::ZERO;
            n = 0;
        }
        Ok(())
    })?;
    if op == src.len() {
        Ok(())
    } else {
        Err(())
    }
}

/// The ndmean filter.
pub struct NdMean;

impl FilterPlugin for NdMean {
    fn forward(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, _id: u8) -> i32 {
        let ts = match info.typesize {
            4 => 4,
            8 => 8,
            _ => return Error::Failure.code(),
        };
        let Some((block, cell, step)) = geometry(info, ts, src.len()) else {
            return Error::Failure.code();
        };
        let r = if ts == 4 {
            means::<f32>(src, dest, &block, &cell, step)
        } else {
            means::<f64>(src, dest, &block, &cell, step)
        };
        match r {
            Ok(()) => SUCCESS,
            Err(()) => Error::Failure.code(),
        }
    }

    fn backward(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, _id: u8) -> i32 {
        // The super-chunk's item size, narrowed to a signed byte as the
        // reference does.
        let ts = info.schunk_typesize().unwrap_or(0) as i8;
        if ts <= 0 {
            return Error::Failure.code();
        }
        let ts = ts as usize;
        let Some((block, cell, step)) = geometry(info, ts, src.len()) else {
            return Error::Failure.code();
        };
        match scatter(src, dest, &block, &cell, step, ts) {
            Ok(()) => SUCCESS,
            Err(()) => Error::Failure.code(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    #[test]
    fn cell_means_2d() {
        // 4 x 4 block, cells 2 x 2.
        let v: Vec<f32> = (0..16).map(|i| i as f32).collect();
        let src = f32s(&v);
        let mut out = vec![0u8; 64];
        means::<f32>(&src, &mut out, &[4, 4], &[2, 2], 2).unwrap();
        let expect = f32s(&[
            2.5, 2.5, 2.5, 2.5, 4.5, 4.5, 4.5, 4.5, 10.5, 10.5, 10.5, 10.5, 12.5, 12.5, 12.5, 12.5,
        ]);
        assert_eq!(out, expect);
        let mut back = vec![0u8; 64];
        scatter(&out, &mut back, &[4, 4], &[2, 2], 2, 4).unwrap();
        let expect_back = f32s(&[
            2.5, 2.5, 4.5, 4.5, 2.5, 2.5, 4.5, 4.5, 10.5, 10.5, 12.5, 12.5, 10.5, 10.5, 12.5, 12.5,
        ]);
        assert_eq!(back, expect_back);
    }

    #[test]
    fn ragged_cells_f64() {
        // 1-D block of 5, cells of 2: (0,1) (2,3) (4).
        let v = [1.0f64, 2.0, 4.0, 8.0, 16.0];
        let src: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
        let mut out = vec![0u8; 40];
        means::<f64>(&src, &mut out, &[5], &[2], 2).unwrap();
        let got: Vec<f64> = out
            .chunks_exact(8)
            .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, [1.5, 1.5, 6.0, 6.0, 16.0]);
    }

    #[test]
    fn summed_in_item_precision() {
        // 1e8 + 1 + 1 + 1 in f32 stays 1e8 (each +1 is lost).
        let src = f32s(&[1e8, 1.0, 1.0, 1.0]);
        let mut out = vec![0u8; 16];
        means::<f32>(&src, &mut out, &[4], &[4], 4).unwrap();
        assert_eq!(out, f32s(&[2.5e7; 4]));
    }

    #[test]
    fn clipped_first_dimension_overlaps_like_the_reference() {
        // Block 2 x 10, side 4: cells (2 x 4) placed with step 2.
        assert_eq!(cell_shape(4, &[2, 10]), Some(vec![2, 4]));
        let v: Vec<f32> = (0..20).map(|i| i as f32).collect();
        let src = f32s(&v);
        let mut out = vec![0u8; 80];
        means::<f32>(&src, &mut out, &[2, 10], &[2, 4], 2).unwrap();
        let mut back = vec![0u8; 80];
        assert!(scatter(&out, &mut back, &[2, 10], &[2, 4], 2, 4).is_err());
    }

    #[test]
    fn meta_is_a_signed_byte() {
        assert_eq!(cell_shape(0, &[4]), None);
        assert_eq!(cell_shape(128, &[4]), None);
        assert_eq!(cell_shape(255, &[4]), None);
        assert_eq!(cell_shape(127, &[4, 200]), Some(vec![4, 127]));
    }
}
