//! Which filter pipelines with delta the reference's decoder undoes from the
//! right buffers.
//!
//! The reference undoes a block's filters by rotating three scratch buffers
//! and the block's place in the output, and it undoes delta in place in the
//! output (delta needs the chunk's first block there).  For some pipelines
//! that rotation hands a step a buffer that does not hold the block: e.g.
//! with `[DELTA, SHUFFLE, DELTA]` the unshuffle writes to a scratch buffer
//! and the last delta then runs on the output, which still holds the
//! shuffled bytes.  Such a chunk decodes to wrong bytes with a success code.
//! [`reference_decodes`] replays the rotation (without running any filter)
//! so that the compressor can avoid writing those pipelines.

use crate::format::header::{DELTA, MAX_FILTERS, NOFILTER, TRUNC_PREC};

/// Where a block's bytes are in the reference's decoder.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Place {
    /// The block's place in the output buffer.
    Output,
    Scratch1,
    Scratch2,
    Scratch3,
}

/// A filter the decoder runs (truncation is not undone).
fn undone(filter: u8) -> bool {
    filter != NOFILTER && filter != TRUNC_PREC
}

/// Whether the reference's decoder, without a postfilter, undoes every
/// filter of `filters` on the buffer that holds the block and leaves the
/// result in the output.
pub fn reference_decodes(filters: &[u8; MAX_FILTERS]) -> bool {
    // The decoder undoes filters from the last slot to the first and stops
    // after the first slot that is undone.
    let Some(last) = (0..MAX_FILTERS).find(|&i| undone(filters[i])) else {
        return true;
    };
    // The next filter undone after slot `i` (towards slot 0).
    let next_undone = |i: usize| filters[..i].iter().rev().copied().find(|&f| undone(f));
    // The streams go straight to the output when delta is the first step.
    let mut block = if next_undone(MAX_FILTERS) == Some(DELTA) {
        Place::Output
    } else {
        Place::Scratch1
    };
    let (mut src, mut dest, mut spare) = (Place::Scratch1, Place::Scratch2, Place::Scratch3);
    for i in (0..MAX_FILTERS).rev() {
        let f = filters[i];
        let lands_in_output = i == last || f == DELTA || next_undone(i) == Some(DELTA);
        if lands_in_output && (f == DELTA || src != Place::Output) {
            dest = Place::Output;
        }
        if undone(f) {
            let right = if f == DELTA {
                // Delta works in place on `dest`.
                block == dest
            } else {
                block == src && src != dest
            };
            if !right {
                return false;
            }
            block = dest;
            (src, dest, spare) = (dest, spare, src);
        }
        if i == last {
            break;
        }
    }
    // What `src` holds is copied to the output at the end.
    block == src
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::header::{BITSHUFFLE, SHUFFLE};

    const BYTEDELTA: u8 = 35;

    /// Forward order as written in the filters array, slot 0 first.
    fn pipe(fs: &[u8]) -> [u8; MAX_FILTERS] {
        let mut p = [NOFILTER; MAX_FILTERS];
        p[..fs.len()].copy_from_slice(fs);
        p
    }

    #[test]
    fn plain_pipelines_decode() {
        assert!(reference_decodes(&pipe(&[])));
        for f in [DELTA, SHUFFLE, BITSHUFFLE, BYTEDELTA] {
            assert!(reference_decodes(&pipe(&[f])));
        }
        // What clients use: delta first, then a shuffle (in slots 4 and 5 too).
        assert!(reference_decodes(&pipe(&[DELTA, SHUFFLE])));
        assert!(reference_decodes(&[0, 0, 0, 0, DELTA, BITSHUFFLE]));
        assert!(reference_decodes(&[0, 0, 0, TRUNC_PREC, DELTA, SHUFFLE]));
    }

    /// The pipelines python-blosc2 running on the reference decodes right
    /// when our compressor wrote them (64 KiB of float32, typesize 4,
    /// 16 KiB blocks, lz4), and the two it decodes wrong.
    #[test]
    fn agrees_with_the_reference_on_three_filter_pipelines() {
        let (d, s, b, y) = (DELTA, SHUFFLE, BITSHUFFLE, BYTEDELTA);
        for ok in [
            [d, d, s],
            [d, d, b],
            [d, s, s],
            [d, s, b],
            [d, s, y],
            [d, b, s],
            [d, b, b],
            [d, b, y],
            [d, y, s],
            [d, y, b],
            [s, d, d],
            [s, d, s],
            [s, d, b],
            [s, d, y],
            [s, s, d],
            [s, b, d],
            [s, y, d],
            [b, d, d],
            [b, d, s],
            [b, s, d],
            [y, d, s],
            [y, s, d],
        ] {
            assert!(reference_decodes(&pipe(&ok)), "{ok:?}");
        }
        for wrong in [[d, s, d], [d, b, d]] {
            assert!(!reference_decodes(&pipe(&wrong)), "{wrong:?}");
        }
        // Found by fuzz/diff_chunk: a reordering filter between two deltas
        // with empty slots, and an unshuffle the rotation runs in place.
        assert!(!reference_decodes(&[d, 0, s, 0, d, 0]));
        assert!(!reference_decodes(&[s, d, d, 36, 0, 0]));
    }

    /// Without delta every pipeline decodes (so dropping the deltas, as the
    /// compressor does, always gives a chunk the reference reads).
    #[test]
    fn pipelines_without_delta_always_decode() {
        let choices = [NOFILTER, SHUFFLE, BITSHUFFLE, TRUNC_PREC, BYTEDELTA];
        for n in 0..choices.len().pow(4) {
            let mut p = [NOFILTER; MAX_FILTERS];
            let mut k = n;
            for slot in p.iter_mut().skip(2) {
                *slot = choices[k % choices.len()];
                k /= choices.len();
            }
            assert!(reference_decodes(&p), "{p:?}");
        }
    }
}
