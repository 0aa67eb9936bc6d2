//! Byte layouts with no I/O.

pub mod b2nd_meta;
pub mod frame;
pub mod header;
