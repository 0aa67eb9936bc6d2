//! The filters c-blosc2 registers at start (`register_filters` in the
//! reference): they are part of the engine's filter registry from the first
//! use, with the reference's ids and names, with or without `blosc2_init`.
//!
//! | id | name              |
//! |----|-------------------|
//! | 32 | `ndcell`          |
//! | 33 | `ndmean`          |
//! | 34 | `bytedelta_buggy` |
//! | 35 | `bytedelta`       |
//! | 36 | `int_trunc`       |
//!
//! Filters that need the super-chunk (bytedelta with meta 0 takes the
//! typesize of the super-chunk; ndcell and ndmean read its "b2nd" metalayer
//! and, when decoding, its typesize) reach it through the
//! [`crate::plugin::SchunkContext`] of their [`CallInfo`].

pub mod bytedelta;
pub mod int_trunc;
pub mod ndcell;
pub mod ndmean;

use crate::error::Error;
use crate::plugin::{CallInfo, FilterPlugin, RegisteredFilter};
use std::sync::Arc;

/// `BLOSC_FILTER_NDCELL`.
pub const NDCELL: u8 = 32;
/// `BLOSC_FILTER_NDMEAN`.
pub const NDMEAN: u8 = 33;
/// `BLOSC_FILTER_BYTEDELTA_BUGGY`.
pub const BYTEDELTA_BUGGY: u8 = 34;
/// `BLOSC_FILTER_BYTEDELTA`.
pub const BYTEDELTA: u8 = 35;
/// `BLOSC_FILTER_INT_TRUNC`.
pub const INT_TRUNC: u8 = 36;

const SUCCESS: i32 = 0;

struct ByteDelta(bytedelta::Flavour);

impl ByteDelta {
    /// The stream count: the meta byte, or the super-chunk's typesize for 0
    /// (an error without a super-chunk, as in the reference).
    fn typesize(info: &CallInfo) -> Option<usize> {
        if info.meta != 0 {
            return Some(info.meta as usize);
        }
        match info.schunk_typesize() {
            Some(t) if t > 0 => Some(t as usize),
            _ => None,
        }
    }
}

impl FilterPlugin for ByteDelta {
    fn forward(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, _id: u8) -> i32 {
        let Some(ts) = Self::typesize(info) else {
            return Error::Failure.code();
        };
        bytedelta::encode(self.0, ts, src, dest);
        SUCCESS
    }
    fn backward(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, _id: u8) -> i32 {
        let Some(ts) = Self::typesize(info) else {
            return Error::Failure.code();
        };
        bytedelta::decode(self.0, ts, src, dest);
        SUCCESS
    }
}

struct IntTrunc;

impl FilterPlugin for IntTrunc {
    fn forward(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, _id: u8) -> i32 {
        let ts = usize::try_from(info.typesize).unwrap_or(0);
        match int_trunc::truncate(info.meta as i8, ts, src, dest) {
            Ok(()) => SUCCESS,
            Err(()) => Error::Failure.code(),
        }
    }
    fn backward(&self, src: &[u8], dest: &mut [u8], _info: &CallInfo, _id: u8) -> i32 {
        dest[..src.len()].copy_from_slice(src);
        SUCCESS
    }
}

/// The built-in registered filters, in the reference's registration order.
pub fn builtin_filters() -> Vec<RegisteredFilter> {
    let f = |id: u8, name: &str, plugin: Arc<dyn FilterPlugin>| RegisteredFilter {
        id,
        name: name.into(),
        version: 1,
        plugin,
    };
    vec![
        f(NDCELL, "ndcell", Arc::new(ndcell::NdCell)),
        f(NDMEAN, "ndmean", Arc::new(ndmean::NdMean)),
        f(
            BYTEDELTA_BUGGY,
            "bytedelta_buggy",
            Arc::new(ByteDelta(bytedelta::Flavour::Buggy)),
        ),
        f(
            BYTEDELTA,
            "bytedelta",
            Arc::new(ByteDelta(bytedelta::Flavour::Fixed)),
        ),
        f(INT_TRUNC, "int_trunc", Arc::new(IntTrunc)),
    ]
}
