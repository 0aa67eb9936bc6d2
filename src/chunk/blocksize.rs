//! The automatic block size ("stune") and the split decision, following the
//! reference's rules so that our headers match its headers.

use super::params::SplitMode;
use crate::codec::{BLOSCLZ, LZ4, LZ4HC, ZLIB, ZSTD};
use crate::format::header::{FLAG_DOSHUFFLE, MIN_BUFFERSIZE};

const L1: i32 = 32 * 1024;
const MAX_STREAMS: i32 = 16;

/// Codecs meant for high compression ratios get larger blocks.
fn high_ratio_codec(compcode: u8) -> bool {
    matches!(compcode, LZ4HC | ZLIB | ZSTD)
}

/// Whether the reference's heuristics would split blocks into typesize streams.
pub fn split_block(
    splitmode: SplitMode,
    compcode: u8,
    clevel: i32,
    filter_flags: u8,
    typesize: i32,
    blocksize: i32,
) -> bool {
    match splitmode {
        SplitMode::Always => return true,
        SplitMode::Never => return false,
        _ => {}
    }
    let codec_ok = compcode == BLOSCLZ || compcode == LZ4 || (compcode == ZSTD && clevel <= 5);
    codec_ok
        && filter_flags & FLAG_DOSHUFFLE != 0
        && typesize <= MAX_STREAMS
        && typesize > 0
        && blocksize / typesize >= MIN_BUFFERSIZE
}

/// The block size the reference picks for these parameters. `user_blocksize` 0
/// means automatic.
pub fn compute_blocksize(
    compcode: u8,
    clevel: i32,
    typesize: i32,
    nbytes: i32,
    user_blocksize: i32,
    splitmode: SplitMode,
    filter_flags: u8,
) -> i32 {
    if nbytes < typesize {
        return 1;
    }
    let mut blocksize = nbytes;
    let split = split_block(
        splitmode,
        compcode,
        clevel,
        filter_flags,
        typesize,
        blocksize,
    );
    if user_blocksize != 0 {
        blocksize = user_blocksize;
    } else {
        if nbytes >= L1 {
            blocksize = L1;
            if high_ratio_codec(compcode) {
                blocksize *= 2;
            }
            match clevel {
                0 => blocksize /= 4,
                1 => blocksize /= 2,
                2 => {}
                3 => blocksize *= 2,
                4 | 5 => blocksize *= 4,
                6..=8 => blocksize *= 8,
                9 => {
                    blocksize *= 8;
                    if high_ratio_codec(compcode) {
                        blocksize *= 2;
                    }
                }
                _ => {}
            }
        }
        if clevel > 0 && split {
            blocksize = match clevel {
                1..=3 => 32 * 1024,
                4..=6 => 64 * 1024,
                7 => 128 * 1024,
                8 => 256 * 1024,
                _ => 512 * 1024,
            };
            blocksize = blocksize.saturating_mul(typesize);
            blocksize = blocksize.clamp(32 * 1024, 4 * 1024 * 1024);
        }
    }
    if blocksize > nbytes {
        blocksize = nbytes;
    }
    if blocksize > typesize {
        blocksize = blocksize / typesize * typesize;
    }
    crate::info::info!(
        "compcode: {compcode}, clevel: {clevel}, blocksize: {blocksize}, splitmode: {}, typesize: {typesize}",
        i32::from(split)
    );
    blocksize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // blosclz + shuffle, clevel 5, typesize 4, 4 MiB: split -> 64 KiB * 4.
        let b = compute_blocksize(BLOSCLZ, 5, 4, 4 << 20, 0, SplitMode::ForwardCompat, 1);
        assert_eq!(b, 256 * 1024);
        // zstd clevel 9 (no split): 32 KiB * 2 * 8 * 2.
        let b = compute_blocksize(ZSTD, 9, 8, 4 << 20, 0, SplitMode::ForwardCompat, 1);
        assert_eq!(b, 1 << 20);
        // tiny buffers
        assert_eq!(compute_blocksize(LZ4, 5, 8, 4, 0, SplitMode::Auto, 1), 1);
        assert_eq!(
            compute_blocksize(LZ4, 5, 8, 100, 0, SplitMode::Never, 1),
            96
        );
    }
}
