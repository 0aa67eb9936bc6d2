//! TEMPORARY scalar placeholder (the filter module proper replaces this file).
#![allow(missing_docs)]
pub fn shuffle(typesize: usize, src: &[u8], dest: &mut [u8]) {
    let n = src.len();
    if typesize <= 1 || n < typesize {
        dest[..n].copy_from_slice(src);
        return;
    }
    let ne = n / typesize;
    for i in 0..ne {
        for j in 0..typesize {
            dest[j * ne + i] = src[i * typesize + j];
        }
    }
    dest[ne * typesize..n].copy_from_slice(&src[ne * typesize..]);
}
pub fn unshuffle(typesize: usize, src: &[u8], dest: &mut [u8]) {
    let n = src.len();
    if typesize <= 1 || n < typesize {
        dest[..n].copy_from_slice(src);
        return;
    }
    let ne = n / typesize;
    for i in 0..ne {
        for j in 0..typesize {
            dest[i * typesize + j] = src[j * ne + i];
        }
    }
    dest[ne * typesize..n].copy_from_slice(&src[ne * typesize..]);
}
pub fn bitshuffle(_typesize: usize, _src: &[u8], _dest: &mut [u8]) -> Result<(), ()> {
    Err(())
}
pub fn bitunshuffle(_typesize: usize, _src: &[u8], _dest: &mut [u8]) -> Result<(), ()> {
    Err(())
}
pub fn delta_encode(dref: &[u8], offset: usize, _typesize: usize, src: &[u8], dest: &mut [u8]) {
    if offset == 0 {
        dest[0] = dref[0];
        for i in 1..src.len() {
            dest[i] = src[i] ^ dref[i - 1];
        }
    } else {
        for i in 0..src.len() {
            dest[i] = src[i] ^ dref[i];
        }
    }
}
pub fn delta_decode(dref: &[u8], offset: usize, _typesize: usize, dest: &mut [u8]) {
    if offset == 0 {
        for i in 1..dest.len() {
            dest[i] ^= dref[i - 1];
        }
    } else {
        for i in 0..dest.len() {
            dest[i] ^= dref[i];
        }
    }
}
pub fn truncate_precision(_prec_bits: i8, _typesize: usize, src: &[u8], dest: &mut [u8]) -> Result<(), ()> {
    dest[..src.len()].copy_from_slice(src);
    Ok(())
}
pub fn simd_kernel_name() -> &'static str {
    "scalar"
}
