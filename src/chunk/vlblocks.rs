//! VL-block chunks: blocks of different sizes, one source buffer each.

use super::params::DParams;
use crate::error::{Error, Result};

/// Decompress every block of a VL-block chunk, back to back, into `dest`.
pub fn decompress_all(_dparams: &DParams, _src: &[u8], _dest: &mut [u8]) -> Result<usize> {
    Err(Error::InvalidParam)
}
