//! NDCELL (filter 32): lossless regrouping of an N-dimensional block into
//! cubic cells.
//!
//! The super-chunk must carry a "b2nd" metalayer; its block shape describes
//! every block the filter sees.  The filter meta byte is the cell side `c`
//! (1..=255), so a cell is `c × c × … × c` items, clipped at the far edges of
//! the block.  Forward writes the cells one after the other, in C order of
//! the cell grid, each cell itself in C order; backward puts every item back.
//!
//! Example, a 4 × 8 block with `c = 2` (items named by their position):
//!
//! ```text
//!  0  1 |  2  3 |  4  5 |  6  7
//!  8  9 | 10 11 | 12 13 | 14 15      ->   0 1 8 9  2 3 10 11  4 5 12 13  6 7 14 15
//! ------+-------+-------+------           16 17 24 25  18 19 26 27  ...
//! 16 17 | 18 19 | 20 21 | 22 23
//! 24 25 | 26 27 | 28 29 | 30 31
//! ```
//!
//! Both directions refuse (with `BLOSC2_ERROR_FAILURE`) a block whose size is
//! not the item size times the product of the block shape, a block shape with
//! a non-positive dimension, 0 or more than [`MAX_DIM`] dimensions, a cell
//! side of 0, and a cell (`c^ndim` items) larger than the block, as the
//! reference does.  The walk over the cells is shared with ndmean.

use super::SUCCESS;
use crate::error::Error;
use crate::plugin::{CallInfo, FilterPlugin, MetaReading};

/// Most dimensions ndcell and ndmean work with (`NDCELL_MAX_DIM`,
/// `NDMEAN_MAX_DIM` of the reference).
pub const MAX_DIM: usize = 8;

/// The block shape of the "b2nd" metalayer of the super-chunk of `info`, with
/// 1..=[`MAX_DIM`] dimensions (values not yet checked).  `None` without a
/// super-chunk, without the metalayer or when it cannot be read.
pub(super) fn b2nd_blockshape(info: &CallInfo) -> Option<Vec<i32>> {
    let shapes = info.array_shapes(MetaReading::AsReference)?;
    (1..=MAX_DIM)
        .contains(&shapes.ndim())
        .then_some(shapes.blockshape)
}

/// Check that a block of `len` bytes holds exactly the items of `blockshape`
/// at `typesize` bytes each (every dimension positive).  Returns the block
/// shape in items.
pub(super) fn block_dims(blockshape: &[i32], typesize: usize, len: usize) -> Option<Vec<usize>> {
    if typesize == 0 {
        return None;
    }
    let mut size = typesize;
    let mut dims = Vec::with_capacity(blockshape.len());
    for &d in blockshape {
        if d <= 0 {
            return None;
        }
        // Stop as soon as the product passes the block: it cannot overflow.
        size = size.checked_mul(d as usize).filter(|&s| s <= len)?;
        dims.push(d as usize);
    }
    (size == len).then_some(dims)
}

/// Walk the cells of a block of shape `block` (items, C order) cut into cells
/// of shape `cell`, in the order of the reference: the cells in C order of
/// the cell grid, and inside each cell its rows (runs along the last
/// dimension) in C order.  Calls `row(start, len, last_in_cell)` for every
/// row, `start` being the item offset in the block.
///
/// The offset of a cell's origin is `Σ grid_index[i] · origin_step ·
/// stride[i]`: `origin_step` is the cell side for ndcell; ndmean passes its
/// first cell dimension there, as the reference does (the two differ only
/// when a block dimension is smaller than the cell side).
///
/// Returns the end (`start + len`) of the last row, the value the reference
/// checks against the block's item count when decoding.  Every argument must
/// be non-empty with positive values (`block` and `cell` of the same length).
pub(super) fn walk_cells<E>(
    block: &[usize],
    cell: &[usize],
    origin_step: usize,
    mut row: impl FnMut(usize, usize, bool) -> Result<(), E>,
) -> Result<usize, E> {
    let nd = block.len();
    debug_assert!(nd >= 1 && cell.len() == nd);
    let mut stride = vec![1usize; nd];
    for i in (0..nd - 1).rev() {
        stride[i] = stride[i + 1] * block[i + 1];
    }
    let grid: Vec<usize> = (0..nd).map(|i| block[i].div_ceil(cell[i])).collect();
    let ncells: usize = grid.iter().product();
    let mut at = vec![0usize; nd];
    let mut pad = vec![0usize; nd];
    let mut kk = vec![0usize; nd];
    let mut end = 0;
    for _ in 0..ncells {
        let origin: usize = (0..nd).map(|i| at[i] * origin_step * stride[i]).sum();
        for i in 0..nd {
            let rest = block[i] % cell[i];
            pad[i] = if rest != 0 && at[i] == grid[i] - 1 {
                rest
            } else {
                cell[i]
            };
        }
        let len = pad[nd - 1];
        let nrows: usize = pad[..nd - 1].iter().product();
        kk.fill(0);
        for r in 0..nrows {
            let start = origin + (0..nd - 1).map(|i| kk[i] * stride[i]).sum::<usize>();
            row(start, len, r + 1 == nrows)?;
            end = start + len;
            step(&mut kk[..nd - 1], &pad[..nd - 1]);
        }
        step(&mut at, &grid);
    }
    Ok(end)
}

/// Advance a C-order multi-index `idx` within `shape` (wrapping to zeros).
fn step(idx: &mut [usize], shape: &[usize]) {
    for i in (0..idx.len()).rev() {
        idx[i] += 1;
        if idx[i] < shape[i] {
            return;
        }
        idx[i] = 0;
    }
}

/// Gather the block `src` into cell order in `dest` (same length).
/// `Err` when a row falls outside the buffers.
pub(super) fn gather(
    src: &[u8],
    dest: &mut [u8],
    block: &[usize],
    cell: &[usize],
    origin_step: usize,
    typesize: usize,
) -> Result<(), ()> {
    let mut op = 0usize;
    walk_cells(block, cell, origin_step, |start, len, _| {
        let n = len * typesize;
        let from = src.get(start * typesize..start * typesize + n).ok_or(())?;
        dest.get_mut(op..op + n).ok_or(())?.copy_from_slice(from);
        op += n;
        Ok(())
    })?;
    if op == src.len() {
        Ok(())
    } else {
        Err(())
    }
}

/// Scatter the cell-ordered `src` back into block order in `dest`.  `Err`
/// when a row falls outside the buffers or the last row does not end at the
/// end of the block (the reference's final check).
pub(super) fn scatter(
    src: &[u8],
    dest: &mut [u8],
    block: &[usize],
    cell: &[usize],
    origin_step: usize,
    typesize: usize,
) -> Result<(), ()> {
    let mut ip = 0usize;
    let end = walk_cells(block, cell, origin_step, |start, len, _| {
        let n = len * typesize;
        let from = src.get(ip..ip + n).ok_or(())?;
        dest.get_mut(start * typesize..start * typesize + n)
            .ok_or(())?
            .copy_from_slice(from);
        ip += n;
        Ok(())
    })?;
    if end * typesize == src.len() {
        Ok(())
    } else {
        Err(())
    }
}

/// The cell side from the meta byte and the cell shape for `ndim` dimensions,
/// refusing 0 and a cell whose item count overflows 64 bits.
fn cell_side(meta: u8, ndim: usize) -> Option<(usize, u64)> {
    if meta == 0 {
        return None;
    }
    let side = meta as usize;
    let mut items: u64 = 1;
    for _ in 0..ndim {
        items = items
            .checked_mul(side as u64)
            .filter(|&v| v <= i64::MAX as u64)?;
    }
    Some((side, items))
}

/// Everything both directions check before touching a block of `len` bytes.
/// Returns (block shape, cell side).
fn geometry(info: &CallInfo, typesize: i32, len: usize) -> Option<(Vec<usize>, usize)> {
    let blockshape = b2nd_blockshape(info)?;
    let (side, cell_items) = cell_side(info.meta, blockshape.len())?;
    if typesize <= 0 {
        return None;
    }
    let ts = typesize as usize;
    let block = block_dims(&blockshape, ts, len)?;
    // The cell must not hold more items than the block.
    if cell_items > (len / ts) as u64 {
        return None;
    }
    Some((block, side))
}

/// The ndcell filter.
pub struct NdCell;

impl FilterPlugin for NdCell {
    fn forward(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, _id: u8) -> i32 {
        let Some((block, side)) = geometry(info, info.typesize, src.len()) else {
            return Error::Failure.code();
        };
        let cell = vec![side; block.len()];
        match gather(src, dest, &block, &cell, side, info.typesize as usize) {
            Ok(()) => SUCCESS,
            Err(()) => Error::Failure.code(),
        }
    }

    fn backward(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, _id: u8) -> i32 {
        // Decoding takes the item size of the super-chunk, as the reference.
        let typesize = info.schunk_typesize().unwrap_or(0);
        let Some((block, side)) = geometry(info, typesize, src.len()) else {
            return Error::Failure.code();
        };
        let cell = vec![side; block.len()];
        match scatter(src, dest, &block, &cell, side, typesize as usize) {
            Ok(()) => SUCCESS,
            Err(()) => Error::Failure.code(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cell order computed the obvious way: for every cell, every item of
    /// the block that falls in it, in C order.
    fn naive(block: &[usize], side: usize) -> Vec<usize> {
        let n: usize = block.iter().product();
        let coords = |mut k: usize| {
            let mut c = vec![0; block.len()];
            for i in (0..block.len()).rev() {
                c[i] = k % block[i];
                k /= block[i];
            }
            c
        };
        let cell_of = |c: &[usize]| -> Vec<usize> { c.iter().map(|x| x / side).collect() };
        let mut order: Vec<usize> = (0..n).collect();
        // Stable sort by cell index (C order of the grid) keeps C order inside.
        order.sort_by_key(|&k| cell_of(&coords(k)));
        order
    }

    #[test]
    fn readme_example() {
        let src: Vec<u8> = (0..32).collect();
        let mut out = vec![0; 32];
        gather(&src, &mut out, &[4, 8], &[2, 2], 2, 1).unwrap();
        assert_eq!(
            out,
            [
                0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15, 16, 17, 24, 25, 18, 19, 26,
                27, 20, 21, 28, 29, 22, 23, 30, 31
            ]
        );
        let mut back = vec![0; 32];
        scatter(&out, &mut back, &[4, 8], &[2, 2], 2, 1).unwrap();
        assert_eq!(back, src);
    }

    #[test]
    fn matches_naive_order_and_round_trips() {
        for (block, side) in [
            (vec![10usize], 3usize),
            (vec![7], 7),
            (vec![5, 7], 2),
            (vec![3, 100], 4),
            (vec![6, 5, 4], 3),
            (vec![2, 3, 4, 5], 2),
            (vec![9, 1, 4], 4),
            (vec![1, 1, 1, 1, 1, 1, 1, 8], 1),
        ] {
            for ts in [1usize, 2, 4, 8] {
                let n: usize = block.iter().product();
                let src: Vec<u8> = (0..n * ts).map(|i| (i * 7 + i / 251) as u8).collect();
                let cell = vec![side; block.len()];
                let mut out = vec![0; n * ts];
                gather(&src, &mut out, &block, &cell, side, ts).unwrap();
                let expect: Vec<u8> = naive(&block, side)
                    .iter()
                    .flat_map(|&k| src[k * ts..(k + 1) * ts].to_vec())
                    .collect();
                assert_eq!(out, expect, "{block:?} side {side} ts {ts}");
                let mut back = vec![0; n * ts];
                scatter(&out, &mut back, &block, &cell, side, ts).unwrap();
                assert_eq!(back, src, "{block:?} side {side} ts {ts}");
            }
        }
    }

    #[test]
    fn geometry_checks() {
        assert_eq!(block_dims(&[4, 5], 2, 40), Some(vec![4, 5]));
        assert_eq!(block_dims(&[4, 5], 2, 41), None);
        assert_eq!(block_dims(&[4, 0], 2, 0), None);
        assert_eq!(block_dims(&[-4, -5], 2, 40), None);
        assert_eq!(block_dims(&[i32::MAX, i32::MAX, 4], 1, 64), None);
        assert_eq!(block_dims(&[65536, 65536, 1], 1, 0), None);
        assert_eq!(block_dims(&[2], 0, 0), None);
        assert_eq!(cell_side(0, 2), None);
        assert_eq!(cell_side(255, 7), Some((255, 255u64.pow(7))));
        assert_eq!(cell_side(255, 8), None);
        assert_eq!(cell_side(2, 8), Some((2, 256)));
    }

    #[test]
    fn bad_buffers_are_errors() {
        let src = vec![0u8; 16];
        let mut small = vec![0u8; 8];
        assert!(gather(&src, &mut small, &[4, 4], &[2, 2], 2, 1).is_err());
        assert!(scatter(&src, &mut small, &[4, 4], &[2, 2], 2, 1).is_err());
        let mut out = vec![0u8; 16];
        assert!(scatter(&src[..8], &mut out, &[4, 4], &[2, 2], 2, 1).is_err());
    }
}
