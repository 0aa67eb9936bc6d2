//! The chunk header: 16 bytes in Blosc1-era chunks, 32 bytes in extended (Blosc2) ones.
//!
//! Layout (all integers little endian):
//!
//! | offset | size | field                                        |
//! |--------|------|----------------------------------------------|
//! | 0      | 1    | format version                               |
//! | 1      | 1    | codec format version                         |
//! | 2      | 1    | flags (shuffle/memcpy/bitshuffle/delta/split/codec) |
//! | 3      | 1    | typesize                                     |
//! | 4      | 4    | nbytes (uncompressed size)                   |
//! | 8      | 4    | blocksize (or number of blocks for VL-block chunks) |
//! | 12     | 4    | cbytes (compressed size, header included)    |
//! | 16     | 6    | filter codes (extended header only)          |
//! | 22     | 1    | codec id (when the flags say "user codec")   |
//! | 23     | 1    | codec meta                                   |
//! | 24     | 6    | filter meta                                  |
//! | 30     | 1    | blosc2 flags2 (bit 0: VL blocks)             |
//! | 31     | 1    | blosc2 flags (dict, endian, lazy, special)   |

use crate::error::{Error, Result};

/// Size of the Blosc1-era header.
pub const MIN_HEADER_LENGTH: usize = 16;
/// Size of the extended header.
pub const EXTENDED_HEADER_LENGTH: usize = 32;
/// Slots in the filter pipeline.
pub const MAX_FILTERS: usize = 6;
/// Largest block the format allows.
pub const MAX_BLOCKSIZE: i32 = 536_866_816;
/// Largest typesize for a special-value chunk.
pub const MAX_TYPESIZE: i32 = MAX_BLOCKSIZE;
/// Largest uncompressed buffer.
pub const MAX_BUFFERSIZE: i32 = i32::MAX - EXTENDED_HEADER_LENGTH as i32;
/// Below this many bytes a buffer is stored as a plain copy.
pub const MIN_BUFFERSIZE: i32 = 32;
/// Largest dictionary stored in a chunk.
pub const MAX_DICT_SIZE: i32 = 32 * 1024;
/// Smallest dictionary worth training.
pub const MIN_USEFUL_DICT: i32 = 256;

/// Format versions.
pub const VERSION_FORMAT_ALPHA: u8 = 3;
/// Version written by c-blosc2 for regular chunks.
pub const VERSION_FORMAT_STABLE: u8 = 5;
/// Version written for VL-block chunks (also the newest we read).
pub const VERSION_FORMAT_VL_BLOCKS: u8 = 6;
/// The newest format version understood.
pub const VERSION_FORMAT: u8 = VERSION_FORMAT_VL_BLOCKS;

/// Flags byte bits.
pub const FLAG_DOSHUFFLE: u8 = 0x1;
/// The chunk is a plain copy of the data.
pub const FLAG_MEMCPYED: u8 = 0x2;
/// Bit shuffle (with DOSHUFFLE too: extended header).
pub const FLAG_DOBITSHUFFLE: u8 = 0x4;
/// Delta filter.
pub const FLAG_DODELTA: u8 = 0x8;
/// Blocks are not split into typesize streams.
pub const FLAG_DONT_SPLIT: u8 = 0x10;

/// blosc2 flags bits.
pub const B2_USEDICT: u8 = 0x1;
/// Data is big endian.
pub const B2_BIGENDIAN: u8 = 0x2;
/// Lazy chunk (blocks on disk).
pub const B2_LAZY: u8 = 0x8;
/// Instrumented codec.
pub const B2_INSTR_CODEC: u8 = 0x80;
/// blosc2 flags2 bit: VL blocks.
pub const B2_VL_BLOCKS: u8 = 0x1;

/// Filter ids.
pub const NOFILTER: u8 = 0;
/// Byte shuffle.
pub const SHUFFLE: u8 = 1;
/// Bit shuffle.
pub const BITSHUFFLE: u8 = 2;
/// Delta.
pub const DELTA: u8 = 3;
/// Truncate precision.
pub const TRUNC_PREC: u8 = 4;

/// Special-value kinds stored in bits 4..6 of the blosc2 flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Special {
    /// A regular chunk.
    None = 0,
    /// All zeros.
    Zero = 1,
    /// All NaN (float32 or float64).
    Nan = 2,
    /// One repeated value, stored after the header.
    Value = 3,
    /// Uninitialized contents.
    Uninit = 4,
}

impl Special {
    /// Decode from the 3-bit field.
    pub fn from_bits(b: u8) -> Option<Special> {
        Some(match b {
            0 => Special::None,
            1 => Special::Zero,
            2 => Special::Nan,
            3 => Special::Value,
            4 => Special::Uninit,
            _ => return None,
        })
    }
}

/// A parsed chunk header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChunkHeader {
    /// Format version.
    pub version: u8,
    /// Codec format version.
    pub versionlz: u8,
    /// Flags byte.
    pub flags: u8,
    /// Typesize byte.
    pub typesize: u8,
    /// Uncompressed size.
    pub nbytes: i32,
    /// Block size (block count for VL blocks).
    pub blocksize: i32,
    /// Compressed size including the header.
    pub cbytes: i32,
    /// Filter pipeline.
    pub filters: [u8; MAX_FILTERS],
    /// Codec id when the flags name a user codec.
    pub udcompcode: u8,
    /// Codec meta.
    pub compcode_meta: u8,
    /// Filter meta.
    pub filters_meta: [u8; MAX_FILTERS],
    /// Second blosc2 flags byte.
    pub blosc2_flags2: u8,
    /// blosc2 flags byte.
    pub blosc2_flags: u8,
}

fn rd_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl ChunkHeader {
    /// Whether the flags announce a 32-byte header.
    pub fn is_extended(&self) -> bool {
        self.flags & (FLAG_DOSHUFFLE | FLAG_DOBITSHUFFLE) == (FLAG_DOSHUFFLE | FLAG_DOBITSHUFFLE)
    }
    /// Header length in bytes.
    pub fn overhead(&self) -> usize {
        if self.is_extended() {
            EXTENDED_HEADER_LENGTH
        } else {
            MIN_HEADER_LENGTH
        }
    }
    /// Codec format (3 bits) from the flags.
    pub fn compformat(&self) -> u8 {
        self.flags >> 5
    }
    /// Whether the chunk is a plain copy.
    pub fn memcpyed(&self) -> bool {
        self.flags & FLAG_MEMCPYED != 0
    }
    /// Whether blocks are stored as one stream each.
    pub fn dont_split(&self) -> bool {
        self.flags & FLAG_DONT_SPLIT != 0
    }
    /// VL-block chunk.
    pub fn vlblocks(&self) -> bool {
        self.is_extended() && self.blosc2_flags2 & B2_VL_BLOCKS != 0
    }
    /// Raw special-value field.
    pub fn special_bits(&self) -> u8 {
        if self.is_extended() {
            (self.blosc2_flags >> 4) & 0x7
        } else {
            0
        }
    }
    /// Special-value kind (None when the field holds an unknown id).
    pub fn special(&self) -> Option<Special> {
        Special::from_bits(self.special_bits())
    }
    /// Lazy chunk flag. A special-value or empty chunk is never lazy,
    /// whatever the bit says: it has no blocks to fetch, and the reference
    /// decodes it.
    pub fn lazy(&self) -> bool {
        self.is_extended()
            && self.blosc2_flags & B2_LAZY != 0
            && self.special_bits() == 0
            && self.nbytes != 0
    }
    /// Dictionary flag.
    pub fn use_dict(&self) -> bool {
        self.is_extended() && self.blosc2_flags & B2_USEDICT != 0
    }

    /// Instrumented-codec flag: the streams hold the writer's per-stream
    /// measurements, and decoding copies them out without running the
    /// filters or a postfilter (as the reference does).
    pub fn instrumented(&self) -> bool {
        self.is_extended() && self.blosc2_flags & B2_INSTR_CODEC != 0
    }

    /// The filters decoding undoes: the pipeline, or none for an
    /// instrumented chunk.
    pub fn decode_pipeline(&self) -> ([u8; MAX_FILTERS], [u8; MAX_FILTERS]) {
        if self.instrumented() {
            ([NOFILTER; MAX_FILTERS], [0; MAX_FILTERS])
        } else {
            self.pipeline()
        }
    }

    /// The filter pipeline, whichever header kind this is.
    pub fn pipeline(&self) -> ([u8; MAX_FILTERS], [u8; MAX_FILTERS]) {
        if self.is_extended() {
            (self.filters, self.filters_meta)
        } else {
            (flags_to_filters(self.flags), [0; MAX_FILTERS])
        }
    }

    /// Parse the first 16 bytes only (what `cbuffer_sizes` and friends look at).
    #[inline(always)]
    pub fn parse_min(src: &[u8]) -> Result<ChunkHeader> {
        if src.len() < MIN_HEADER_LENGTH {
            return Err(Error::ReadBuffer);
        }
        let h = ChunkHeader {
            version: src[0],
            versionlz: src[1],
            flags: src[2],
            typesize: src[3],
            nbytes: rd_i32(src, 4),
            blocksize: rd_i32(src, 8),
            cbytes: rd_i32(src, 12),
            ..Default::default()
        };
        if h.version == 0
            || h.cbytes < MIN_HEADER_LENGTH as i32
            || h.blocksize <= 0
            || h.blocksize > MAX_BLOCKSIZE
            || h.typesize == 0
            || h.nbytes < 0
        {
            return Err(Error::InvalidHeader);
        }
        Ok(h)
    }

    /// Parse and validate a whole header (16 or 32 bytes as the flags say).
    ///
    /// Always inlined, like `parse_min`: as a call it returns the header
    /// through memory written a field at a time, and the caller's wide copies
    /// of it then wait on store forwarding; perf put that at a tenth of the
    /// cost of decompressing a 64-byte chunk.
    #[inline(always)]
    pub fn parse(src: &[u8]) -> Result<ChunkHeader> {
        let mut h = Self::parse_min(src)?;
        if h.is_extended() {
            if h.cbytes < EXTENDED_HEADER_LENGTH as i32 {
                return Err(Error::InvalidHeader);
            }
            if src.len() < EXTENDED_HEADER_LENGTH {
                return Err(Error::ReadBuffer);
            }
            h.filters.copy_from_slice(&src[16..22]);
            h.udcompcode = src[22];
            h.compcode_meta = src[23];
            h.filters_meta.copy_from_slice(&src[24..30]);
            h.blosc2_flags2 = src[30];
            h.blosc2_flags = src[31];
            if h.version == VERSION_FORMAT_ALPHA {
                h.filters[5] = 0;
                h.filters_meta[5] = 0;
            }
            let special = h.special_bits();
            if special != 0 {
                if h.vlblocks() {
                    return Err(Error::InvalidHeader);
                }
                match Special::from_bits(special) {
                    None => return Err(Error::Data),
                    Some(Special::Value) => {
                        let ts = h.cbytes - EXTENDED_HEADER_LENGTH as i32;
                        if ts <= 0 || ts > MAX_TYPESIZE || ts > h.nbytes {
                            return Err(Error::InvalidHeader);
                        }
                        if h.nbytes % ts != 0 {
                            return Err(Error::InvalidHeader);
                        }
                    }
                    Some(Special::Zero) => {}
                    Some(_) => {
                        if h.nbytes % h.typesize as i32 != 0 {
                            return Err(Error::InvalidHeader);
                        }
                    }
                }
            }
        }
        if h.version > VERSION_FORMAT && h.blosc2_flags2 & !B2_VL_BLOCKS != 0 {
            return Err(Error::VersionSupport);
        }
        if h.vlblocks() && h.memcpyed() {
            return Err(Error::InvalidHeader);
        }
        if !h.vlblocks() && h.nbytes > 0 && h.blocksize > h.nbytes {
            h.blocksize = h.nbytes;
        }
        Ok(h)
    }

    /// Serialize into `dest` (16 or 32 bytes as `extended` says).
    pub fn write(&self, dest: &mut [u8], extended: bool) {
        dest[0] = self.version;
        dest[1] = self.versionlz;
        dest[2] = self.flags;
        dest[3] = self.typesize;
        dest[4..8].copy_from_slice(&self.nbytes.to_le_bytes());
        dest[8..12].copy_from_slice(&self.blocksize.to_le_bytes());
        dest[12..16].copy_from_slice(&self.cbytes.to_le_bytes());
        if extended {
            dest[16..22].copy_from_slice(&self.filters);
            dest[22] = self.udcompcode;
            dest[23] = self.compcode_meta;
            dest[24..30].copy_from_slice(&self.filters_meta);
            dest[30] = self.blosc2_flags2;
            dest[31] = self.blosc2_flags;
        }
    }
}

/// The pipeline implied by a Blosc1 flags byte.
pub fn flags_to_filters(flags: u8) -> [u8; MAX_FILTERS] {
    let mut f = [0u8; MAX_FILTERS];
    if flags & FLAG_DOSHUFFLE != 0 {
        f[MAX_FILTERS - 1] = SHUFFLE;
    }
    if flags & FLAG_DOBITSHUFFLE != 0 {
        f[MAX_FILTERS - 1] = BITSHUFFLE;
    }
    if flags & FLAG_DODELTA != 0 {
        f[MAX_FILTERS - 2] = DELTA;
    }
    f
}

/// The Blosc1 flag bits for a pipeline.
pub fn filters_to_flags(filters: &[u8; MAX_FILTERS]) -> u8 {
    let mut flags = 0;
    for &f in filters {
        match f {
            SHUFFLE => flags |= FLAG_DOSHUFFLE,
            BITSHUFFLE => flags |= FLAG_DOBITSHUFFLE,
            DELTA => flags |= FLAG_DODELTA,
            _ => {}
        }
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_extended() {
        let h = ChunkHeader {
            version: 5,
            versionlz: 1,
            flags: 0x05 | 0x20,
            typesize: 4,
            nbytes: 1000,
            blocksize: 1000,
            cbytes: 100,
            filters: [0, 0, 0, 0, 0, 1],
            blosc2_flags: 0,
            ..Default::default()
        };
        let mut b = [0u8; 32];
        h.write(&mut b, true);
        assert_eq!(ChunkHeader::parse(&b).unwrap(), h);
    }

    #[test]
    fn rejects_bad() {
        assert_eq!(ChunkHeader::parse(&[0u8; 8]), Err(Error::ReadBuffer));
        let mut b = [0u8; 16];
        b[3] = 1;
        b[8] = 0; // blocksize 0
        b[12] = 16;
        assert_eq!(ChunkHeader::parse(&b), Err(Error::InvalidHeader));
    }
}
