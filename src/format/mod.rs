//! Byte layouts with no I/O.

pub mod header;
