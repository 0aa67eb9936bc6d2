//! The few entry points of the zfp C library that the codecs use, behind
//! two safe functions working on slices: [`compress`] and [`decompress`].
//! The library and its declarations (bindgen bindings of zfp 1.0.0's
//! `zfp.h`) come from the `zfp-sys-cc` crate.
//!
//! zfp's bit streams do no bounds checks at all: the writer stores whole
//! 64-bit words past the end of a buffer that is too small, and the reader
//! loads words past the end of a stream that is too short.  So the encoder
//! always writes into a buffer of our own, sized by an upper bound on what it
//! can write, and the decoder always reads from a zero-padded copy of the
//! stream, sized by an upper bound on what it can read, whatever the bytes
//! say.  Both buffers are vectors of `u64`, as the bit streams access whole
//! aligned words.

use std::ffi::{c_uint, c_void};
use zfp_sys_cc::{
    bitstream as Bitstream, stream_close, stream_open, zfp_compress, zfp_decompress,
    zfp_field as ZfpField, zfp_field_1d, zfp_field_2d, zfp_field_3d, zfp_field_4d, zfp_field_free,
    zfp_stream as ZfpStream, zfp_stream_close, zfp_stream_maximum_size, zfp_stream_open,
    zfp_stream_params, zfp_stream_rewind, zfp_stream_set_accuracy, zfp_stream_set_bit_stream,
    zfp_stream_set_precision, zfp_stream_set_rate, zfp_type, zfp_type_zfp_type_double,
    zfp_type_zfp_type_float,
};

/// Scalar type of the values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    /// `float` (typesize 4).
    F32,
    /// `double` (typesize 8).
    F64,
}

impl Scalar {
    /// The scalar type of a typesize, if zfp handles it.
    pub fn of_typesize(typesize: i32) -> Option<Scalar> {
        match typesize {
            4 => Some(Scalar::F32),
            8 => Some(Scalar::F64),
            _ => None,
        }
    }
    /// Bytes per value.
    pub fn size(self) -> usize {
        match self {
            Scalar::F32 => 4,
            Scalar::F64 => 8,
        }
    }
    fn zfp_type(self) -> zfp_type {
        match self {
            Scalar::F32 => zfp_type_zfp_type_float,
            Scalar::F64 => zfp_type_zfp_type_double,
        }
    }
    /// Bits of the block exponent.
    fn ebits(self) -> u64 {
        match self {
            Scalar::F32 => 8,
            Scalar::F64 => 11,
        }
    }
    /// Bits of the integers of the block transform (bit planes).
    fn intprec(self) -> u64 {
        match self {
            Scalar::F32 => 32,
            Scalar::F64 => 64,
        }
    }
}

/// Compression mode with its zfp parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    /// Absolute error tolerance.
    Accuracy(f64),
    /// Bit planes kept.
    Precision(u32),
    /// Compressed bits per value.
    Rate(f64),
}

/// Owns a `zfp_stream`.
struct Stream(*mut ZfpStream);

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: the pointer came from zfp_stream_open, is non-null and is
        // closed once, here.
        unsafe { zfp_stream_close(self.0) }
    }
}

/// Owns a `bitstream`.
struct Bits(*mut Bitstream);

impl Drop for Bits {
    fn drop(&mut self) {
        // SAFETY: the pointer came from stream_open, is non-null and is closed
        // once, here (stream_close does not touch the buffer).
        unsafe { stream_close(self.0) }
    }
}

/// Owns a `zfp_field`.
struct Field(*mut ZfpField);

impl Drop for Field {
    fn drop(&mut self) {
        // SAFETY: the pointer came from zfp_field_Nd, is non-null and is freed
        // once, here (zfp_field_free does not free the data).
        unsafe { zfp_field_free(self.0) }
    }
}

/// A zfp stream set for `mode`, without a bit stream yet.
fn open_stream(mode: Mode, scalar: Scalar, ndim: usize) -> Option<Stream> {
    // SAFETY: zfp_stream_open accepts a null bit stream (set later).
    let zfp = unsafe { zfp_stream_open(std::ptr::null_mut()) };
    if zfp.is_null() {
        return None;
    }
    let s = Stream(zfp);
    // SAFETY: s.0 is a live zfp_stream; these setters only write its fields.
    unsafe {
        match mode {
            Mode::Accuracy(tol) => {
                zfp_stream_set_accuracy(s.0, tol);
            }
            Mode::Precision(prec) => {
                zfp_stream_set_precision(s.0, prec);
            }
            Mode::Rate(rate) => {
                zfp_stream_set_rate(s.0, rate, scalar.zfp_type(), ndim as c_uint, 0);
            }
        }
    }
    Some(s)
}

/// A zfp field over `data` with the C-order shape `dims` (1 to 4 of them).
///
/// # Safety
/// `data` must stay valid, for reads (and writes when decompressing), for the
/// product of `dims` values of `scalar` while the field is used.
unsafe fn open_field(data: *mut c_void, scalar: Scalar, dims: &[usize]) -> Option<Field> {
    let t = scalar.zfp_type();
    // zfp's x is the fastest varying dimension, i.e. the last C-order one.
    // SAFETY: these constructors only record the pointer and the sizes.
    let f = unsafe {
        match *dims {
            [x] => zfp_field_1d(data, t, x),
            [y, x] => zfp_field_2d(data, t, x, y),
            [z, y, x] => zfp_field_3d(data, t, x, y, z),
            [w, z, y, x] => zfp_field_4d(data, t, x, y, z, w),
            _ => return None,
        }
    };
    (!f.is_null()).then_some(Field(f))
}

/// An upper bound, in bytes, on how far zfp's bit stream may touch a buffer
/// when decoding (or encoding) the blocks of `dims` with the parameters of
/// `zfp`, whatever the stream holds.
///
/// Per block of `4^d` values the decoder reads at most: the zero flag and the
/// exponent (`1 + ebits`), then per bit plane (at most `intprec` of them) the
/// bits of the values already significant, one bit per newly significant
/// value plus the zeros scanned up to it (two per value over all planes), and
/// one closing group-test bit; a fixed-rate stream also skips up to `minbits`
/// per block.  The word buffer of the reader adds at most one word.
fn stream_bound(zfp: &Stream, scalar: Scalar, dims: &[usize]) -> Option<usize> {
    let (mut minbits, mut maxbits, mut maxprec, mut minexp) = (0, 0, 0, 0);
    // SAFETY: zfp.0 is a live zfp_stream; the four pointers are to locals.
    unsafe { zfp_stream_params(zfp.0, &mut minbits, &mut maxbits, &mut maxprec, &mut minexp) };
    let size = 1u64 << (2 * dims.len());
    let p = scalar.intprec();
    let per_block = (1 + scalar.ebits() + (p + 2) * size + p).max(minbits as u64);
    let mut blocks: u64 = 1;
    for &d in dims {
        blocks = blocks.checked_mul((d as u64).div_ceil(4))?;
    }
    let bits = blocks.checked_mul(per_block)?;
    let bytes = bits.div_ceil(64).checked_add(2)?.checked_mul(8)?;
    usize::try_from(bytes).ok()
}

fn product(dims: &[usize]) -> Option<usize> {
    dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d))
}

/// Compress the values of `input` (exactly the product of `dims` values of
/// `scalar`, native byte order, C order) into a new buffer.  `None` when zfp
/// fails.
pub fn compress(mode: Mode, scalar: Scalar, dims: &[usize], input: &[u8]) -> Option<Vec<u8>> {
    let n = product(dims)?;
    if n == 0 || input.len() != n.checked_mul(scalar.size())? {
        return None;
    }
    // zfp loads whole floats/doubles: give it aligned values.
    let aligned_copy: Vec<u64>;
    let data: *const u8 = if (input.as_ptr() as usize).is_multiple_of(scalar.size()) {
        input.as_ptr()
    } else {
        aligned_copy = to_words(input, 0);
        aligned_copy.as_ptr() as *const u8
    };
    let zfp = open_stream(mode, scalar, dims.len())?;
    // SAFETY: `data` holds n values of `scalar` (the checks above) and lives
    // until the end of this function; zfp_compress only reads through it.
    let field = unsafe { open_field(data as *mut c_void, scalar, dims)? };
    // SAFETY: both are live objects of zfp.
    let zfp_max = unsafe { zfp_stream_maximum_size(zfp.0, field.0) };
    let cap = stream_bound(&zfp, scalar, dims)?.max(zfp_max.checked_add(8)?);
    let mut out = vec![0u64; cap.div_ceil(8)];
    let out_bytes = out.len() * 8;
    // SAFETY: the buffer is `out_bytes` long and outlives the bit stream.
    let bits = unsafe { stream_open(out.as_mut_ptr() as *mut c_void, out_bytes) };
    if bits.is_null() {
        return None;
    }
    let bits = Bits(bits);
    // SAFETY: live objects; the buffer is large enough for anything the
    // encoder can write (stream_bound and zfp's own maximum size), and the
    // field's data are valid for reads.
    let written = unsafe {
        zfp_stream_set_bit_stream(zfp.0, bits.0);
        zfp_stream_rewind(zfp.0);
        zfp_compress(zfp.0, field.0)
    };
    drop(field);
    drop(zfp);
    drop(bits);
    if written == 0 || written > out_bytes {
        return None;
    }
    let mut bytes = vec![0u8; written];
    copy_words(&out, &mut bytes);
    Some(bytes)
}

/// Why a stream did not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// zfp refused the parameters (it decoded nothing).
    Zfp,
    /// The stream ended before all the blocks were read.
    Truncated,
    /// A working buffer (about the size of the field) could not be had.
    Memory,
}

/// Decompress the zfp stream `input` into `out`, which must hold exactly the
/// product of `dims` values of `scalar`.  Returns the bytes of `input` that
/// the blocks used.
pub fn decompress(
    mode: Mode,
    scalar: Scalar,
    dims: &[usize],
    input: &[u8],
    out: &mut [u8],
) -> Result<usize, DecodeError> {
    let n = product(dims).ok_or(DecodeError::Zfp)?;
    if n == 0 || Some(out.len()) != n.checked_mul(scalar.size()) {
        return Err(DecodeError::Zfp);
    }
    // Every zfp block takes at least one bit in every mode: a stream with
    // fewer bits than the field has blocks is cut short whatever it holds.
    // Saying so now keeps a few bytes that claim a field of gigabytes from
    // being decoded into it (and the padded copy below from being sized for
    // it).
    let blocks = dims.iter().map(|d| d.div_ceil(4)).product::<usize>();
    if input.len().saturating_mul(8) < blocks {
        return Err(DecodeError::Truncated);
    }
    let zfp = open_stream(mode, scalar, dims.len()).ok_or(DecodeError::Zfp)?;
    let cap = stream_bound(&zfp, scalar, dims).ok_or(DecodeError::Zfp)?;
    // The reader may go as far as `cap` bytes whatever the stream says: read
    // from a zero-padded copy of at least that size.
    let mut padded = zeroed_words(cap.div_ceil(8).max(input.len().div_ceil(8)))?;
    fill_words(&mut padded, input);
    let padded_bytes = padded.len() * 8;
    // zfp stores whole floats/doubles: give it aligned storage.
    let mut aligned_out: Vec<u64> = Vec::new();
    let direct = (out.as_ptr() as usize).is_multiple_of(scalar.size());
    let target: *mut u8 = if direct {
        out.as_mut_ptr()
    } else {
        aligned_out = zeroed_words(out.len().div_ceil(8))?;
        aligned_out.as_mut_ptr() as *mut u8
    };
    // SAFETY: `target` holds exactly n values of `scalar` (out, or a buffer of
    // the same size) and outlives the field.
    let field =
        unsafe { open_field(target as *mut c_void, scalar, dims) }.ok_or(DecodeError::Zfp)?;
    // SAFETY: `padded` is `padded_bytes` long and outlives the bit stream.
    let bits = unsafe { stream_open(padded.as_mut_ptr() as *mut c_void, padded_bytes) };
    if bits.is_null() {
        return Err(DecodeError::Zfp);
    }
    let bits = Bits(bits);
    // SAFETY: live objects; the decoder reads at most `cap` <= padded_bytes
    // bytes of the stream (stream_bound) and writes exactly the n values of
    // the field.
    let used = unsafe {
        zfp_stream_set_bit_stream(zfp.0, bits.0);
        zfp_stream_rewind(zfp.0);
        zfp_decompress(zfp.0, field.0)
    };
    drop(field);
    drop(zfp);
    drop(bits);
    if used == 0 {
        return Err(DecodeError::Zfp);
    }
    if used > input.len() {
        return Err(DecodeError::Truncated);
    }
    if !direct {
        copy_words(&aligned_out, out);
    }
    Ok(used)
}

/// `bytes` in native-order words, zero-padded to at least `min_words` words.
fn to_words(bytes: &[u8], min_words: usize) -> Vec<u64> {
    let mut v = vec![0u64; bytes.len().div_ceil(8).max(min_words)];
    fill_words(&mut v, bytes);
    v
}

/// `n` zero words, or [`DecodeError::Memory`]: the decoder's buffers are
/// sized by the field the chunk claims, which may be more than the system
/// gives.
fn zeroed_words(n: usize) -> Result<Vec<u64>, DecodeError> {
    bytemuck::allocation::try_zeroed_vec(n).map_err(|()| DecodeError::Memory)
}

/// `bytes` into the first words of `words` (native order; the last word
/// zero-padded). `words` holds at least `bytes.len().div_ceil(8)` words.
fn fill_words(words: &mut [u64], bytes: &[u8]) {
    for (w, c) in words.iter_mut().zip(bytes.chunks(8)) {
        let mut b = [0u8; 8];
        b[..c.len()].copy_from_slice(c);
        *w = u64::from_ne_bytes(b);
    }
}

/// The first `dest.len()` bytes of `words` (native order) into `dest`.
fn copy_words(words: &[u64], dest: &mut [u8]) {
    for (c, w) in dest.chunks_mut(8).zip(words) {
        c.copy_from_slice(&w.to_ne_bytes()[..c.len()]);
    }
}
