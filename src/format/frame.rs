//! Byte layout of a contiguous frame (`b2frame`): the msgpack header with its
//! metalayers, the chunk-offsets index and the msgpack trailer with the
//! variable-length metalayers. No I/O here: everything works on slices.
//!
//! Integers inside msgpack are big-endian; the offsets index (a regular chunk
//! of `i64`) is little-endian.

use crate::error::{Error, Result};
use crate::format::header::{Special, MAX_FILTERS};

/// The magic string after the first two bytes, NUL included.
pub const MAGIC: &[u8; 8] = b"b2frame\0";
/// Position of the magic string.
pub const POS_MAGIC: usize = 2;
/// Position of the big-endian `int32` header length.
pub const POS_HEADER_LEN: usize = 11;
/// Position of the big-endian `uint64` frame length.
pub const POS_FRAME_LEN: usize = 16;
/// Position of the general flags byte.
pub const POS_FLAGS: usize = 25;
/// Position of the frame type byte.
pub const POS_TYPE: usize = 26;
/// Position of the codec byte (codec in the low nibble, clevel in the high one).
pub const POS_CODECS: usize = 27;
/// Position of the split-mode byte.
pub const POS_OTHER_FLAGS: usize = 28;
/// Position of the `int64` uncompressed size.
pub const POS_NBYTES: usize = 30;
/// Position of the `int64` compressed size.
pub const POS_CBYTES: usize = 39;
/// Position of the `int32` typesize.
pub const POS_TYPESIZE: usize = 48;
/// Position of the `int32` blocksize.
pub const POS_BLOCKSIZE: usize = 53;
/// Position of the `int32` chunksize.
pub const POS_CHUNKSIZE: usize = 58;
/// Position of the `int16` compression threads.
pub const POS_NTHREADS_C: usize = 63;
/// Position of the `int16` decompression threads.
pub const POS_NTHREADS_D: usize = 66;
/// Position of the msgpack bool "has vlmetalayers".
pub const POS_HAS_VLMETA: usize = 68;
/// Position of the number of filters (inside a fixext 16).
pub const POS_FILTERS: usize = 70;
/// Position of the user codec id.
pub const POS_UDCODEC: usize = 77;
/// Position of the codec meta byte.
pub const POS_CODEC_META: usize = 78;
/// Position of other_flags2 (bit 0: use_dict).
pub const POS_OTHER_FLAGS2: usize = 85;
/// Length of the fixed part of the header.
pub const HEADER_MINLEN: usize = 87;
/// Position of the uint16 size of the metalayers index.
pub const POS_IDX_SIZE: usize = 89;
/// Room reserved for filters in the header.
pub const FILTERS_MAX: usize = 8;
/// Smallest trailer (no vlmetalayers).
pub const TRAILER_MINLEN: usize = 25;
/// Distance of the trailer length from the end of the frame.
pub const TRAILER_LEN_FROM_END: usize = 22;
/// Trailer format version written.
pub const TRAILER_VERSION: u8 = 1;
/// Frame format versions (low nibble of the general flags).
pub const VERSION_RC1: u8 = 2;
/// Version used for variable chunk sizes or VL blocks.
pub const VERSION_VL_BLOCKS: u8 = 3;
/// Highest version we read.
pub const VERSION_MAX: u8 = 3;
/// General flag: 64-bit offsets (enumerated value 1 in bits 4-5).
pub const FLAG_OFFSETS_64: u8 = 0x10;
/// General flag: chunks of variable length.
pub const FLAG_VARIABLE_CHUNKS: u8 = 0x40;
/// General flag: chunks use variable-length blocks.
pub const FLAG_VL_BLOCKS: u8 = 0x80;
/// Frame type of a contiguous frame.
pub const TYPE_CONTIGUOUS: u8 = 0;
/// Frame type of a sparse (directory) frame.
pub const TYPE_SPARSE: u8 = 1;
/// Codec nibble meaning "see the user codec byte".
pub const UDCODEC_FORMAT: u8 = 6;
/// Most metalayers in a header (and vlmetalayers in a trailer).
pub const MAX_METALAYERS: usize = 16;
/// Longest metalayer name.
pub const METALAYER_NAME_MAXLEN: usize = 31;
/// Most vlmetalayers a reader accepts (the C struct's array size).
pub const MAX_VLMETALAYERS: usize = 8 * 1024;

/// The fixed fields of a frame header.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FrameHeader {
    /// Length of the whole header, metalayers included.
    pub header_len: i32,
    /// Length of the whole frame.
    pub frame_len: i64,
    /// General flags byte.
    pub flags: u8,
    /// Frame type (0 contiguous, 1 sparse).
    pub frame_type: u8,
    /// Codec id (resolved through the user codec byte).
    pub compcode: u8,
    /// Compression level.
    pub clevel: u8,
    /// Split mode, 1..=4 as in the C enum.
    pub splitmode: u8,
    /// Uncompressed size of all chunks.
    pub nbytes: i64,
    /// Size of the chunks section.
    pub cbytes: i64,
    /// Item size.
    pub typesize: i32,
    /// Block size (0 automatic).
    pub blocksize: i32,
    /// Common chunk size (0 variable, -1 not known yet).
    pub chunksize: i32,
    /// Compression threads.
    pub nthreads_c: i16,
    /// Decompression threads.
    pub nthreads_d: i16,
    /// Whether the trailer has vlmetalayers.
    pub has_vlmeta: bool,
    /// Filter pipeline.
    pub filters: [u8; MAX_FILTERS],
    /// Filter metas.
    pub filters_meta: [u8; MAX_FILTERS],
    /// Codec meta byte.
    pub compcode_meta: u8,
    /// Dictionary flag.
    pub use_dict: bool,
}

/// A named metalayer (fixed content in the header, compressed content in the trailer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metalayer {
    /// Name (at most 31 bytes).
    pub name: String,
    /// Content bytes.
    pub content: Vec<u8>,
}

fn be_i32(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
fn be_i64(b: &[u8], at: usize) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    i64::from_be_bytes(a)
}
fn be_u16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

impl FrameHeader {
    /// The general flags the reference writes for these chunk properties.
    pub fn general_flags(chunksize: i32, vlblocks: bool) -> u8 {
        let mut f = if chunksize == 0 || vlblocks {
            VERSION_VL_BLOCKS
        } else {
            VERSION_RC1
        };
        f += FLAG_OFFSETS_64;
        if chunksize == 0 {
            f |= FLAG_VARIABLE_CHUNKS;
        }
        if vlblocks {
            f |= FLAG_VL_BLOCKS;
        }
        f
    }

    /// Encode the header with its metalayers; `header_len` is computed here
    /// and `frame_len` written as given.
    pub fn encode(&self, metalayers: &[Metalayer]) -> Result<Vec<u8>> {
        if metalayers.len() > MAX_METALAYERS {
            return Err(Error::InvalidParam);
        }
        let mut h = vec![0u8; HEADER_MINLEN];
        h[0] = 0x90 + 14;
        h[1] = 0xa0 + 8;
        h[POS_MAGIC..POS_MAGIC + 8].copy_from_slice(MAGIC);
        h[POS_HEADER_LEN - 1] = 0xd2;
        h[POS_FRAME_LEN - 1] = 0xcf;
        h[POS_FRAME_LEN..POS_FRAME_LEN + 8].copy_from_slice(&self.frame_len.to_be_bytes());
        h[POS_FLAGS - 1] = 0xa0 + 4;
        h[POS_FLAGS] = self.flags;
        h[POS_TYPE] = self.frame_type;
        let codec = if self.compcode >= UDCODEC_FORMAT {
            UDCODEC_FORMAT
        } else {
            self.compcode
        };
        h[POS_CODECS] = codec.wrapping_add(self.clevel << 4);
        h[POS_OTHER_FLAGS] = self.splitmode.wrapping_sub(1);
        h[POS_NBYTES - 1] = 0xd3;
        h[POS_NBYTES..POS_NBYTES + 8].copy_from_slice(&self.nbytes.to_be_bytes());
        h[POS_CBYTES - 1] = 0xd3;
        h[POS_CBYTES..POS_CBYTES + 8].copy_from_slice(&self.cbytes.to_be_bytes());
        h[POS_TYPESIZE - 1] = 0xd2;
        h[POS_TYPESIZE..POS_TYPESIZE + 4].copy_from_slice(&self.typesize.to_be_bytes());
        h[POS_BLOCKSIZE - 1] = 0xd2;
        h[POS_BLOCKSIZE..POS_BLOCKSIZE + 4].copy_from_slice(&self.blocksize.to_be_bytes());
        h[POS_CHUNKSIZE - 1] = 0xd2;
        h[POS_CHUNKSIZE..POS_CHUNKSIZE + 4].copy_from_slice(&self.chunksize.to_be_bytes());
        h[POS_NTHREADS_C - 1] = 0xd1;
        h[POS_NTHREADS_C..POS_NTHREADS_C + 2].copy_from_slice(&self.nthreads_c.to_be_bytes());
        h[POS_NTHREADS_D - 1] = 0xd1;
        h[POS_NTHREADS_D..POS_NTHREADS_D + 2].copy_from_slice(&self.nthreads_d.to_be_bytes());
        h[POS_HAS_VLMETA] = if self.has_vlmeta { 0xc3 } else { 0xc2 };
        h[POS_FILTERS - 1] = 0xd8;
        h[POS_FILTERS] = MAX_FILTERS as u8;
        h[POS_FILTERS + 1..POS_FILTERS + 1 + MAX_FILTERS].copy_from_slice(&self.filters);
        let fm = POS_FILTERS + 1 + FILTERS_MAX;
        h[fm..fm + MAX_FILTERS].copy_from_slice(&self.filters_meta);
        h[POS_UDCODEC] = self.compcode;
        h[POS_CODEC_META] = self.compcode_meta;
        h[POS_OTHER_FLAGS2] = u8::from(self.use_dict);

        // Metalayers: [index size, {name: offset}, [bin32 contents]]
        h.push(0x93);
        h.push(0xcd);
        h.extend_from_slice(&[0, 0]);
        h.push(0xde);
        h.extend_from_slice(&(metalayers.len() as u16).to_be_bytes());
        let mut slots = Vec::with_capacity(metalayers.len());
        for m in metalayers {
            let name = m.name.as_bytes();
            if name.len() > METALAYER_NAME_MAXLEN {
                return Err(Error::InvalidParam);
            }
            h.push(0xa0 + name.len() as u8);
            h.extend_from_slice(name);
            h.push(0xd2);
            slots.push(h.len());
            h.extend_from_slice(&[0; 4]);
        }
        let idx_size = h.len() - HEADER_MINLEN;
        if idx_size >= 1 << 16 {
            return Err(Error::InvalidParam);
        }
        h[POS_IDX_SIZE..POS_IDX_SIZE + 2].copy_from_slice(&(idx_size as u16).to_be_bytes());
        h.push(0xdc);
        h.extend_from_slice(&(metalayers.len() as u16).to_be_bytes());
        for (m, slot) in metalayers.iter().zip(slots) {
            let at = i32::try_from(h.len()).map_err(|_| Error::InvalidParam)?;
            h[slot..slot + 4].copy_from_slice(&at.to_be_bytes());
            h.push(0xc6);
            let clen = i32::try_from(m.content.len()).map_err(|_| Error::InvalidParam)?;
            h.extend_from_slice(&clen.to_be_bytes());
            h.extend_from_slice(&m.content);
        }
        let hlen = i32::try_from(h.len()).map_err(|_| Error::InvalidParam)?;
        h[POS_HEADER_LEN..POS_HEADER_LEN + 4].copy_from_slice(&hlen.to_be_bytes());
        Ok(h)
    }

    /// Parse and check the fixed part (the first 87 bytes) of a header.
    pub fn parse(b: &[u8], expect_type: u8) -> Result<FrameHeader> {
        if b.len() < HEADER_MINLEN {
            return Err(Error::ReadBuffer);
        }
        if &b[POS_MAGIC..POS_MAGIC + 8] != MAGIC {
            return Err(Error::InvalidHeader);
        }
        let flags = b[POS_FLAGS];
        if flags & 0x0f > VERSION_MAX {
            return Err(Error::VersionSupport);
        }
        if b[POS_TYPE] != expect_type {
            return Err(Error::FrameType);
        }
        let header_len = be_i32(b, POS_HEADER_LEN);
        let frame_len = be_i64(b, POS_FRAME_LEN);
        if header_len < HEADER_MINLEN as i32 || header_len as i64 > frame_len {
            return Err(Error::InvalidHeader);
        }
        let typesize = be_i32(b, POS_TYPESIZE);
        if typesize <= 0 {
            return Err(Error::InvalidHeader);
        }
        let codecs = b[POS_CODECS];
        let mut compcode = codecs & 0x0f;
        if compcode == UDCODEC_FORMAT {
            compcode = b[POS_UDCODEC];
        }
        let nfilters = b[POS_FILTERS] as usize;
        if nfilters > MAX_FILTERS {
            return Err(Error::InvalidHeader);
        }
        let mut filters = [0u8; MAX_FILTERS];
        let mut filters_meta = [0u8; MAX_FILTERS];
        let fm = POS_FILTERS + 1 + FILTERS_MAX;
        filters[..nfilters].copy_from_slice(&b[POS_FILTERS + 1..POS_FILTERS + 1 + nfilters]);
        filters_meta[..nfilters].copy_from_slice(&b[fm..fm + nfilters]);
        let h = FrameHeader {
            header_len,
            frame_len,
            flags,
            frame_type: b[POS_TYPE],
            compcode,
            clevel: codecs >> 4,
            splitmode: (b[POS_OTHER_FLAGS] & 0x03) + 1,
            nbytes: be_i64(b, POS_NBYTES),
            cbytes: be_i64(b, POS_CBYTES),
            typesize,
            blocksize: be_i32(b, POS_BLOCKSIZE),
            chunksize: be_i32(b, POS_CHUNKSIZE),
            nthreads_c: i16::from_be_bytes([b[POS_NTHREADS_C], b[POS_NTHREADS_C + 1]]),
            nthreads_d: i16::from_be_bytes([b[POS_NTHREADS_D], b[POS_NTHREADS_D + 1]]),
            has_vlmeta: b[POS_HAS_VLMETA] == 0xc3,
            filters,
            filters_meta,
            compcode_meta: b[POS_CODEC_META],
            use_dict: b[POS_OTHER_FLAGS2] & 1 != 0,
        };
        if h.nbytes < 0 || h.cbytes < 0 {
            return Err(Error::InvalidHeader);
        }
        if h.nbytes > 0 && h.chunksize < 0 {
            return Err(Error::InvalidHeader);
        }
        Ok(h)
    }

    /// Number of chunks implied by a fixed chunksize (`None` when variable).
    pub fn nchunks_fixed(&self) -> Result<Option<i64>> {
        if self.nbytes == 0 {
            return Ok(Some(0));
        }
        if self.chunksize > 0 {
            // nbytes comes from the file and may be near i64::MAX: round up
            // without the overflow of nbytes + chunksize - 1.
            let n = u64::try_from(self.nbytes).map_err(|_| Error::InvalidHeader)?;
            return Ok(Some(n.div_ceil(self.chunksize as u64) as i64));
        }
        if self.chunksize == 0 {
            return Ok(None);
        }
        Err(Error::InvalidHeader)
    }
}

/// Parse the metalayers of a whole header (`header.len() == header_len`).
pub fn parse_metalayers(header: &[u8]) -> Result<Vec<Metalayer>> {
    parse_meta_section(header, POS_IDX_SIZE, MAX_METALAYERS)
}

/// Shared parser of the header and trailer metalayer sections: `at` points
/// at the uint16 index size, followed by the `0xde` map.
fn parse_meta_section(buf: &[u8], at: usize, max: usize) -> Result<Vec<Metalayer>> {
    let mut pos = at + 2;
    let need = |pos: usize, n: usize| -> Result<()> {
        if pos.checked_add(n).is_none_or(|e| e > buf.len()) {
            Err(Error::ReadBuffer)
        } else {
            Ok(())
        }
    };
    need(pos, 3)?;
    if buf[pos] != 0xde {
        return Err(Error::Data);
    }
    let n = be_u16(buf, pos + 1) as usize;
    pos += 3;
    if n > max {
        return Err(Error::Data);
    }
    let mut out = Vec::with_capacity(n);
    // Contents are copied out: together they may take no more than the
    // section holds (overlapping contents would multiply it; docs/limits.md).
    let mut copied = 0usize;
    for _ in 0..n {
        need(pos, 1)?;
        if buf[pos] & 0xe0 != 0xa0 {
            return Err(Error::Data);
        }
        let nlen = (buf[pos] & 0x1f) as usize;
        pos += 1;
        need(pos, nlen)?;
        let name = String::from_utf8_lossy(&buf[pos..pos + nlen]).into_owned();
        pos += nlen;
        need(pos, 5)?;
        if buf[pos] != 0xd2 {
            return Err(Error::Data);
        }
        let off = be_i32(buf, pos + 1);
        pos += 5;
        if off < 0 || off as usize >= buf.len() {
            return Err(Error::Data);
        }
        let off = off as usize;
        need(off, 5)?;
        if buf[off] != 0xc6 {
            return Err(Error::Data);
        }
        let clen = be_i32(buf, off + 1);
        if clen < 0 {
            return Err(Error::Data);
        }
        need(off + 5, clen as usize)?;
        copied += clen as usize;
        if copied > buf.len() {
            return Err(Error::Data);
        }
        out.push(Metalayer {
            name,
            content: buf[off + 5..off + 5 + clen as usize].to_vec(),
        });
    }
    Ok(out)
}

/// Encode a trailer holding these vlmetalayers (contents already compressed).
pub fn encode_trailer(vlmetalayers: &[Metalayer]) -> Result<Vec<u8>> {
    if vlmetalayers.len() > MAX_METALAYERS {
        return Err(Error::InvalidParam);
    }
    let mut t = vec![0x94, TRAILER_VERSION, 0x93, 0xcd, 0, 0, 0xde];
    t.extend_from_slice(&(vlmetalayers.len() as u16).to_be_bytes());
    let mut slots = Vec::with_capacity(vlmetalayers.len());
    for m in vlmetalayers {
        let name = m.name.as_bytes();
        if name.len() > METALAYER_NAME_MAXLEN {
            return Err(Error::InvalidParam);
        }
        t.push(0xa0 + name.len() as u8);
        t.extend_from_slice(name);
        t.push(0xd2);
        slots.push(t.len());
        t.extend_from_slice(&[0; 4]);
    }
    // The trailer's index size counts from the uint16 marker (byte 3).
    let idx_size = t.len() - 3;
    if idx_size >= 1 << 16 {
        return Err(Error::InvalidParam);
    }
    t[4..6].copy_from_slice(&(idx_size as u16).to_be_bytes());
    t.push(0xdc);
    t.extend_from_slice(&(vlmetalayers.len() as u16).to_be_bytes());
    for (m, slot) in vlmetalayers.iter().zip(slots) {
        let at = i32::try_from(t.len()).map_err(|_| Error::InvalidParam)?;
        t[slot..slot + 4].copy_from_slice(&at.to_be_bytes());
        t.push(0xc6);
        let clen = i32::try_from(m.content.len()).map_err(|_| Error::InvalidParam)?;
        t.extend_from_slice(&clen.to_be_bytes());
        t.extend_from_slice(&m.content);
    }
    let total = u32::try_from(t.len() + 23).map_err(|_| Error::InvalidParam)?;
    t.push(0xce);
    t.extend_from_slice(&total.to_be_bytes());
    t.push(0xd8);
    t.push(0); // no fingerprint
    t.extend_from_slice(&[0; 16]);
    Ok(t)
}

/// The trailer length stored in the last 25 bytes of a frame of `frame_len` bytes.
pub fn trailer_len_from_tail(tail: &[u8], frame_len: i64) -> Result<u32> {
    if tail.len() != TRAILER_MINLEN {
        return Err(Error::ReadBuffer);
    }
    let at = TRAILER_MINLEN - TRAILER_LEN_FROM_END;
    if tail[at - 1] != 0xce {
        return Err(Error::InvalidHeader);
    }
    let tl = u32::from_be_bytes([tail[at], tail[at + 1], tail[at + 2], tail[at + 3]]);
    if (tl as usize) < TRAILER_MINLEN
        || tl > i32::MAX as u32
        || tl as i64 > frame_len - HEADER_MINLEN as i64
    {
        return Err(Error::InvalidHeader);
    }
    Ok(tl)
}

/// Parse the vlmetalayers of a whole trailer.
pub fn parse_trailer(trailer: &[u8]) -> Result<Vec<Metalayer>> {
    parse_meta_section(trailer, 4, MAX_VLMETALAYERS)
}

/// The offset value that stands for a whole chunk of special values.
pub fn special_offset(kind: Special) -> Option<i64> {
    match kind {
        Special::Zero | Special::Nan | Special::Uninit => {
            Some(((1u64 << 63) | ((kind as u64) << 56)) as i64)
        }
        _ => None,
    }
}

/// The special kind a negative offset stands for.
pub fn offset_special(offset: i64) -> Result<Special> {
    let byte = ((offset as u64) >> 56) as u8;
    match byte & 0x07 {
        1 => Ok(Special::Zero),
        4 => Ok(Special::Uninit),
        2 => Ok(Special::Nan),
        _ => Err(Error::Data),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> FrameHeader {
        FrameHeader {
            frame_len: 1234,
            flags: FrameHeader::general_flags(4000, false),
            compcode: 5,
            clevel: 9,
            splitmode: 4,
            nbytes: 8000,
            cbytes: 300,
            typesize: 4,
            blocksize: 0,
            chunksize: 4000,
            nthreads_c: 1,
            nthreads_d: 1,
            filters: [0, 0, 0, 0, 0, 1],
            ..Default::default()
        }
    }

    #[test]
    fn nchunks_fixed_of_a_huge_nbytes_does_not_overflow() {
        // Found by the `lazy` fuzz target: nbytes i64::MAX - 7 from a file.
        let h = FrameHeader {
            nbytes: i64::MAX - 7,
            chunksize: 4000,
            ..sample()
        };
        assert_eq!(h.nchunks_fixed(), Ok(Some((i64::MAX - 7) / 4000 + 1)));
        let h = FrameHeader {
            nbytes: -1,
            ..sample()
        };
        assert_eq!(h.nchunks_fixed(), Err(Error::InvalidHeader));
    }

    #[test]
    fn header_round_trip_with_metalayers() {
        let metas = vec![
            Metalayer {
                name: "b2nd".into(),
                content: vec![1, 2, 3],
            },
            Metalayer {
                name: "x".into(),
                content: vec![],
            },
        ];
        let h = sample();
        let bytes = h.encode(&metas).unwrap();
        assert_eq!(bytes[0], 0x9e);
        assert_eq!(&bytes[2..10], b"b2frame\0");
        assert_eq!(bytes[POS_FLAGS], 0x12);
        assert_eq!(bytes[POS_CODECS], 0x95);
        assert_eq!(bytes[POS_OTHER_FLAGS], 3);
        let mut parsed = FrameHeader::parse(&bytes, TYPE_CONTIGUOUS).unwrap();
        assert_eq!(parsed.header_len as usize, bytes.len());
        parsed.header_len = 0;
        assert_eq!(parsed, h);
        assert_eq!(parse_metalayers(&bytes).unwrap(), metas);
        // no metalayers: 87 + 1 + 3 + 3 + 3 bytes
        assert_eq!(h.encode(&[]).unwrap().len(), 97);
    }

    #[test]
    fn trailer_round_trip() {
        let t = encode_trailer(&[]).unwrap();
        assert_eq!(t.len(), 35);
        let metas = vec![Metalayer {
            name: "info".into(),
            content: vec![9; 40],
        }];
        let t = encode_trailer(&metas).unwrap();
        let tl = trailer_len_from_tail(&t[t.len() - 25..], 1 << 20).unwrap();
        assert_eq!(tl as usize, t.len());
        assert_eq!(parse_trailer(&t).unwrap(), metas);
    }

    #[test]
    fn truncated_sections_are_errors() {
        let metas = vec![Metalayer {
            name: "m".into(),
            content: vec![7; 10],
        }];
        let bytes = sample().encode(&metas).unwrap();
        for n in 0..bytes.len() {
            let _ = parse_metalayers(&bytes[..n]);
            let _ = FrameHeader::parse(&bytes[..n], 0);
        }
        let t = encode_trailer(&metas).unwrap();
        for n in 0..t.len() {
            let _ = parse_trailer(&t[..n]);
        }
    }

    #[test]
    fn special_offsets() {
        for k in [Special::Zero, Special::Nan, Special::Uninit] {
            let o = special_offset(k).unwrap();
            assert!(o < 0);
            assert_eq!(offset_special(o).unwrap(), k);
        }
        assert_eq!(
            special_offset(Special::Zero).unwrap() as u64,
            0x8100_0000_0000_0000
        );
    }
}
