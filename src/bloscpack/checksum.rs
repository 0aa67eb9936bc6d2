//! The per-chunk checksums of Bloscpack, by their id in the header.

use md5::Digest;

/// A checksum that Bloscpack stores after each compressed chunk (and after the
/// metadata). Ids and digests follow the RFC and bloscpack 0.16.0: the zlib
/// checksums are stored as little-endian `u32`, the hashlib ones as their digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checksum {
    /// No checksum (id 0).
    None,
    /// zlib.adler32 (id 1).
    Adler32,
    /// zlib.crc32 (id 2).
    Crc32,
    /// MD5 (id 3).
    Md5,
    /// SHA-1 (id 4).
    Sha1,
    /// SHA-224 (id 5).
    Sha224,
    /// SHA-256 (id 6).
    Sha256,
    /// SHA-384 (id 7).
    Sha384,
    /// SHA-512 (id 8).
    Sha512,
}

/// All checksums, in id order.
pub const ALL: [Checksum; 9] = [
    Checksum::None,
    Checksum::Adler32,
    Checksum::Crc32,
    Checksum::Md5,
    Checksum::Sha1,
    Checksum::Sha224,
    Checksum::Sha256,
    Checksum::Sha384,
    Checksum::Sha512,
];

impl Checksum {
    /// The id stored in the header.
    pub fn id(self) -> u8 {
        ALL.iter().position(|&c| c == self).unwrap_or(0) as u8
    }

    /// The checksum with this header id.
    pub fn from_id(id: u8) -> Option<Checksum> {
        ALL.get(id as usize).copied()
    }

    /// Its name as bloscpack spells it (`None`, `adler32`, ..., `sha512`).
    pub fn name(self) -> &'static str {
        match self {
            Checksum::None => "None",
            Checksum::Adler32 => "adler32",
            Checksum::Crc32 => "crc32",
            Checksum::Md5 => "md5",
            Checksum::Sha1 => "sha1",
            Checksum::Sha224 => "sha224",
            Checksum::Sha256 => "sha256",
            Checksum::Sha384 => "sha384",
            Checksum::Sha512 => "sha512",
        }
    }

    /// Parse a name (case-insensitive; `none` for no checksum).
    pub fn from_name(name: &str) -> Option<Checksum> {
        ALL.iter()
            .copied()
            .find(|c| c.name().eq_ignore_ascii_case(name))
    }

    /// Digest length in bytes.
    pub fn size(self) -> usize {
        match self {
            Checksum::None => 0,
            Checksum::Adler32 | Checksum::Crc32 => 4,
            Checksum::Md5 => 16,
            Checksum::Sha1 => 20,
            Checksum::Sha224 => 28,
            Checksum::Sha256 => 32,
            Checksum::Sha384 => 48,
            Checksum::Sha512 => 64,
        }
    }

    /// The digest of `data`, as stored in the file.
    pub fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            Checksum::None => Vec::new(),
            Checksum::Adler32 => {
                let mut a = adler2::Adler32::new();
                a.write_slice(data);
                a.checksum().to_le_bytes().to_vec()
            }
            Checksum::Crc32 => crc32fast::hash(data).to_le_bytes().to_vec(),
            Checksum::Md5 => md5::Md5::digest(data).to_vec(),
            Checksum::Sha1 => sha1::Sha1::digest(data).to_vec(),
            Checksum::Sha224 => sha2::Sha224::digest(data).to_vec(),
            Checksum::Sha256 => sha2::Sha256::digest(data).to_vec(),
            Checksum::Sha384 => sha2::Sha384::digest(data).to_vec(),
            Checksum::Sha512 => sha2::Sha512::digest(data).to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests_of_abc() {
        let hex = |v: Vec<u8>| v.iter().map(|b| format!("{b:02x}")).collect::<String>();
        // zlib.adler32(b"abc") = 0x024d0127, zlib.crc32(b"abc") = 0x352441c2
        assert_eq!(
            Checksum::Adler32.digest(b"abc"),
            0x024d_0127u32.to_le_bytes()
        );
        assert_eq!(Checksum::Crc32.digest(b"abc"), 0x3524_41c2u32.to_le_bytes());
        assert_eq!(
            hex(Checksum::Md5.digest(b"abc")),
            "900150983cd24fb0d6963f7d28e17f72"
        );
        assert_eq!(
            hex(Checksum::Sha1.digest(b"abc")),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        for c in ALL {
            assert_eq!(c.digest(b"abc").len(), c.size());
            assert_eq!(Checksum::from_id(c.id()), Some(c));
            assert_eq!(Checksum::from_name(c.name()), Some(c));
        }
    }
}
