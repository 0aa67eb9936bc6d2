//! The `blosc2` command-line tool of libblosc2-rs, as a library: one module
//! per subcommand, each a function that returns `Err(one line)` on failure
//! (src/main.rs parses the arguments, calls one of them and prints the error).
//!
//! Subcommands: `compress`/`decompress` (contiguous frames), `pack`/`unpack`
//! (Bloscpack files), `convert` (between the two), `info` (chunk, frame or
//! Bloscpack file), `bench` and `demo`. `-` names stdin or stdout.
#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

pub mod bench;
pub mod common;
pub mod compress;
pub mod convert;
pub mod decompress;
pub mod demo;
pub mod info;
pub mod options;
pub mod pack;
pub mod unpack;

#[cfg(feature = "fuzzing")]
pub mod fuzz_entry;

pub use common::{Res, Transfer};
