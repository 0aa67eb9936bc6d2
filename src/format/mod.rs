//! Byte layouts with no I/O.

pub mod frame;
pub mod header;
