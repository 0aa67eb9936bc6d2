//! libblosc2-rs: the Blosc2 meta-compressor in Rust, with the C ABI of c-blosc2 3.3.
//!
//! The safe Rust API lives in [`chunk`] (compress, decompress and getitem on one
//! chunk); the C layer in `ffi` wraps it.
//!
//! The top-level modules form a graph without cycles (checked by
//! `tests/module_graph.rs`): leaves such as [`error`], [`cpu`], [`mod@format`],
//! [`aligned`], [`alloc`] (buffers sized from input) and [`plugin`] (the interface of codec and filter plugins);
//! then [`filter`] and [`codec`]; [`chunk`] on top of them; [`frame`],
//! [`schunk`], [`b2nd`] and [`bloscpack`] above; and `ffi` over everything.
//! No engine module uses `ffi`.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod aligned;
pub mod alloc;
pub mod b2nd;
pub mod bloscpack;
pub mod chunk;
pub mod codec;
pub mod cpu;
pub mod error;
pub mod ffi;
pub mod filter;
pub mod format;
pub mod frame;
pub mod info;
pub mod io;
pub mod plugin;
pub mod pool;
pub mod schunk;

pub use error::{Error, Result};
