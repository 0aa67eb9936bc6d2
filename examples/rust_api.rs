//! The safe Rust API of libblosc2-rs: one chunk, then a super-chunk stored as a
//! contiguous frame file with a metalayer, opened again and read back.
//!
//!     cargo run --release --example rust_api

use blosc2::chunk::{compress, decompress, CParams, DParams};
use blosc2::codec;
use blosc2::format::header::BITSHUFFLE;
use blosc2::schunk::{Storage, SuperChunk};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // One chunk.
    let data: Vec<u8> = (0..250_000u32)
        .flat_map(|i| (i / 7).to_le_bytes())
        .collect();
    let cparams = CParams {
        typesize: 4,
        compcode: codec::ZSTD,
        clevel: 5,
        ..CParams::default()
    };
    let chunk = compress(&cparams, &data)?;
    assert_eq!(decompress(&DParams::default(), &chunk)?, data);
    println!(
        "chunk: {} -> {} bytes (zstd, shuffle), round trip ok",
        data.len(),
        chunk.len()
    );

    // A super-chunk in a frame file.
    let dir = std::env::temp_dir().join(format!("blosc2-rust-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("example.b2frame");
    let mut filters = [0u8; 6];
    filters[5] = BITSHUFFLE;
    let cp = CParams {
        typesize: 8,
        compcode: codec::LZ4,
        filters,
        ..CParams::default()
    };
    let parts: Vec<Vec<u8>> = (0..4i64)
        .map(|c| {
            (0..50_000i64)
                .flat_map(|i| (c * 1_000_000 + i).to_le_bytes())
                .collect()
        })
        .collect();
    {
        let mut sc = SuperChunk::new(cp, DParams::default(), Storage::FrameFile(path.clone()))?;
        sc.meta_add("rust", b"example")?;
        for p in &parts {
            sc.append_buffer(p)?;
        }
    }
    let sc = SuperChunk::open(&path, 0)?;
    assert_eq!(sc.nchunks(), parts.len() as i64);
    for (i, p) in parts.iter().enumerate() {
        assert_eq!(&sc.decompress_chunk_vec(i as i64)?, p);
    }
    assert_eq!(sc.meta_get("rust")?, b"example");
    println!(
        "super-chunk: {} chunks in {} ({} bytes), meta 'rust' ok, read back ok",
        sc.nchunks(),
        path.display(),
        std::fs::metadata(&path)?.len()
    );
    std::fs::remove_dir_all(&dir)?;
    println!("rust-api: OK");
    Ok(())
}
