//! libblosc2-rs: the Blosc2 meta-compressor in Rust, with the C ABI of c-blosc2 3.3.
//!
//! The safe Rust API lives in [`chunk`] (compress, decompress and getitem on one
//! chunk); the C layer in `ffi` wraps it.

pub mod alloc;
pub mod b2nd;
pub mod bloscpack;
pub mod chunk;
pub mod codec;
pub mod error;
pub mod ffi;
pub mod filter;
pub mod format;
pub mod frame;
pub mod info;
pub mod io;
pub mod pool;
pub mod schunk;

pub use error::{Error, Result};
