//! The fixed-size parts of a Bloscpack file: the 32-byte file header and the
//! 32-byte metadata header (format version 3, as bloscpack 0.16.0 writes).
//!
//! ```text
//! file header      0..4 "blpk" | 4 version | 5 options | 6 checksum | 7 typesize
//!                  8..12 chunk_size (i32) | 12..16 last_chunk (i32)
//!                  16..24 nchunks (i64) | 24..32 max_app_chunks (i64)
//! metadata header  0..8 magic format ("JSON", NUL padded) | 8 options | 9 checksum
//!                  10 codec (0 none, 1 zlib) | 11 level | 12..16 meta_size (u32)
//!                  16..20 max_meta_size (u32) | 20..24 meta_comp_size (u32)
//!                  24..32 user codec (NUL padded)
//! ```
//! All integers are little-endian. Options bit 0: offsets follow the headers;
//! bit 1: a metadata section follows the file header.

use super::checksum::Checksum;
use super::BpError;

/// The magic string at the start of every Bloscpack file.
pub const MAGIC: &[u8; 4] = b"blpk";
/// The format version written (and the only one read).
pub const FORMAT_VERSION: u8 = 3;
/// Length of the file header.
pub const HEADER_LENGTH: usize = 32;
/// Length of the metadata header.
pub const METADATA_HEADER_LENGTH: usize = 32;
const OPT_OFFSETS: u8 = 0x01;
const OPT_METADATA: u8 = 0x02;

/// The file header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Format version (3).
    pub format_version: u8,
    /// Whether the offsets section is present.
    pub offsets: bool,
    /// Whether the metadata section is present.
    pub metadata: bool,
    /// The checksum stored after each chunk.
    pub checksum: Checksum,
    /// Item size used for the chunks.
    pub typesize: u8,
    /// Uncompressed size of each chunk but the last (-1: unknown).
    pub chunk_size: i32,
    /// Uncompressed size of the last chunk (-1: unknown).
    pub last_chunk: i32,
    /// Number of chunks (-1: unknown).
    pub nchunks: i64,
    /// Offset entries reserved for chunks appended later.
    pub max_app_chunks: i64,
}

impl Header {
    /// Serialize.
    pub fn encode(&self) -> [u8; HEADER_LENGTH] {
        let mut b = [0u8; HEADER_LENGTH];
        b[..4].copy_from_slice(MAGIC);
        b[4] = self.format_version;
        b[5] = (self.offsets as u8 * OPT_OFFSETS) | (self.metadata as u8 * OPT_METADATA);
        b[6] = self.checksum.id();
        b[7] = self.typesize;
        b[8..12].copy_from_slice(&self.chunk_size.to_le_bytes());
        b[12..16].copy_from_slice(&self.last_chunk.to_le_bytes());
        b[16..24].copy_from_slice(&self.nchunks.to_le_bytes());
        b[24..32].copy_from_slice(&self.max_app_chunks.to_le_bytes());
        b
    }

    /// Parse and validate.
    pub fn decode(b: &[u8]) -> Result<Header, BpError> {
        if b.len() < HEADER_LENGTH {
            return Err(BpError::new(format!(
                "not a Bloscpack file: {} bytes, shorter than the {HEADER_LENGTH}-byte header",
                b.len()
            )));
        }
        if &b[..4] != MAGIC {
            return Err(BpError::new(format!(
                "not a Bloscpack file: bad magic {:?} (expected \"blpk\")",
                String::from_utf8_lossy(&b[..4])
            )));
        }
        let format_version = b[4];
        if format_version != FORMAT_VERSION {
            return Err(BpError::new(format!(
                "unsupported Bloscpack format version {format_version} (only {FORMAT_VERSION} is supported)"
            )));
        }
        let options = b[5];
        if options & !(OPT_OFFSETS | OPT_METADATA) != 0 {
            return Err(BpError::new(format!(
                "corrupt Bloscpack header: unknown option bits {options:#04x}"
            )));
        }
        let checksum = Checksum::from_id(b[6]).ok_or_else(|| {
            BpError::new(format!(
                "corrupt Bloscpack header: unknown checksum id {}",
                b[6]
            ))
        })?;
        let i32_at = |o: usize| i32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let i64_at = |o: usize| i64::from_le_bytes(b[o..o + 8].try_into().unwrap());
        let h = Header {
            format_version,
            offsets: options & OPT_OFFSETS != 0,
            metadata: options & OPT_METADATA != 0,
            checksum,
            typesize: b[7],
            chunk_size: i32_at(8),
            last_chunk: i32_at(12),
            nchunks: i64_at(16),
            max_app_chunks: i64_at(24),
        };
        let bad = |what: String| Err(BpError::new(format!("corrupt Bloscpack header: {what}")));
        if h.chunk_size < -1 || h.last_chunk < -1 || h.nchunks < -1 || h.max_app_chunks < 0 {
            return bad(format!(
                "negative sizes (chunk_size {}, last_chunk {}, nchunks {}, max_app_chunks {})",
                h.chunk_size, h.last_chunk, h.nchunks, h.max_app_chunks
            ));
        }
        if h.chunk_size >= 0 && h.last_chunk > h.chunk_size {
            return bad(format!(
                "last_chunk {} larger than chunk_size {}",
                h.last_chunk, h.chunk_size
            ));
        }
        if h.nchunks == -1 && h.max_app_chunks != 0 {
            return bad("max_app_chunks set while nchunks is unknown".into());
        }
        if h.nchunks.checked_add(h.max_app_chunks).is_none() {
            return bad("nchunks + max_app_chunks overflows".into());
        }
        Ok(h)
    }

    /// Total uncompressed size, when the header knows it.
    pub fn total_size(&self) -> Option<u64> {
        if self.nchunks < 0 || self.chunk_size < 0 || self.last_chunk < 0 {
            return None;
        }
        if self.nchunks == 0 {
            return Some(0);
        }
        Some(self.chunk_size as u64 * (self.nchunks as u64 - 1) + self.last_chunk as u64)
    }
}

/// Codec of the metadata section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaCodec {
    /// Stored as is.
    None,
    /// zlib stream.
    Zlib,
}

/// The metadata header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataHeader {
    /// Serializer ("JSON").
    pub magic_format: Vec<u8>,
    /// Checksum of the stored metadata bytes.
    pub checksum: Checksum,
    /// How the metadata is compressed.
    pub codec: MetaCodec,
    /// Compression level used.
    pub level: u8,
    /// Size of the serialized metadata.
    pub meta_size: u32,
    /// Space reserved for the stored metadata.
    pub max_meta_size: u32,
    /// Size of the stored (maybe compressed) metadata.
    pub meta_comp_size: u32,
    /// User codec name (unused by bloscpack 0.16.0).
    pub user_codec: Vec<u8>,
}

fn padded8(s: &[u8]) -> [u8; 8] {
    let mut b = [0u8; 8];
    let n = s.len().min(8);
    b[..n].copy_from_slice(&s[..n]);
    b
}

fn unpad(s: &[u8]) -> Vec<u8> {
    let end = s.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
    let start = s[..end].iter().position(|&c| c != 0).unwrap_or(end);
    s[start..end].to_vec()
}

impl MetadataHeader {
    /// Serialize.
    pub fn encode(&self) -> [u8; METADATA_HEADER_LENGTH] {
        let mut b = [0u8; METADATA_HEADER_LENGTH];
        b[..8].copy_from_slice(&padded8(&self.magic_format));
        b[8] = 0;
        b[9] = self.checksum.id();
        b[10] = match self.codec {
            MetaCodec::None => 0,
            MetaCodec::Zlib => 1,
        };
        b[11] = self.level;
        b[12..16].copy_from_slice(&self.meta_size.to_le_bytes());
        b[16..20].copy_from_slice(&self.max_meta_size.to_le_bytes());
        b[20..24].copy_from_slice(&self.meta_comp_size.to_le_bytes());
        b[24..32].copy_from_slice(&padded8(&self.user_codec));
        b
    }

    /// Parse and validate.
    pub fn decode(b: &[u8]) -> Result<MetadataHeader, BpError> {
        let bad = |what: String| {
            Err(BpError::new(format!(
                "corrupt Bloscpack metadata header: {what}"
            )))
        };
        if b.len() < METADATA_HEADER_LENGTH {
            return bad("truncated".into());
        }
        if b[8] != 0 {
            return bad(format!("unknown option bits {:#04x}", b[8]));
        }
        let Some(checksum) = Checksum::from_id(b[9]) else {
            return bad(format!("unknown checksum id {}", b[9]));
        };
        let codec = match b[10] {
            0 => MetaCodec::None,
            1 => MetaCodec::Zlib,
            c => return bad(format!("unknown codec id {c}")),
        };
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let h = MetadataHeader {
            magic_format: unpad(&b[..8]),
            checksum,
            codec,
            level: b[11],
            meta_size: u32_at(12),
            max_meta_size: u32_at(16),
            meta_comp_size: u32_at(20),
            user_codec: unpad(&b[24..32]),
        };
        if h.meta_comp_size > h.max_meta_size {
            return bad(format!(
                "stored size {} larger than the reserved {}",
                h.meta_comp_size, h.max_meta_size
            ));
        }
        if h.codec == MetaCodec::None && h.meta_comp_size != h.meta_size {
            return bad(format!(
                "uncompressed metadata of size {} stored in {} bytes",
                h.meta_size, h.meta_comp_size
            ));
        }
        Ok(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_and_layout() {
        let h = Header {
            format_version: 3,
            offsets: true,
            metadata: true,
            checksum: Checksum::Sha256,
            typesize: 8,
            chunk_size: 1 << 20,
            last_chunk: 12345,
            nchunks: 7,
            max_app_chunks: 70,
        };
        let b = h.encode();
        assert_eq!(&b[..8], b"blpk\x03\x03\x06\x08");
        assert_eq!(Header::decode(&b).unwrap(), h);
        assert_eq!(h.total_size(), Some(6 * (1 << 20) + 12345));
        let mut bad = b;
        bad[0] = b'x';
        assert!(Header::decode(&bad)
            .unwrap_err()
            .to_string()
            .contains("bad magic"));
        let mut bad = b;
        bad[6] = 9;
        assert!(Header::decode(&bad).is_err());
        let mut bad = b;
        bad[12..16].copy_from_slice(&(2i32 << 20).to_le_bytes());
        assert!(Header::decode(&bad).is_err());
    }

    #[test]
    fn metadata_header_round_trip() {
        let m = MetadataHeader {
            magic_format: b"JSON".to_vec(),
            checksum: Checksum::Adler32,
            codec: MetaCodec::Zlib,
            level: 6,
            meta_size: 100,
            max_meta_size: 1000,
            meta_comp_size: 60,
            user_codec: Vec::new(),
        };
        let b = m.encode();
        assert_eq!(&b[..12], b"JSON\0\0\0\0\x00\x01\x01\x06");
        assert_eq!(MetadataHeader::decode(&b).unwrap(), m);
    }
}
