//! The `blosc2` binary end to end: round trips through every subcommand that
//! writes, the summary line and `--quiet`, `info` on each kind of file, and
//! the exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn blosc2(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blosc2"))
        .args(args)
        .output()
        .expect("cannot run the blosc2 binary")
}

fn ok(args: &[&str]) -> Output {
    let out = blosc2(args);
    assert!(
        out.status.success(),
        "blosc2 {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("blosc2-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// 1 MiB of slowly varying u32 values: compressible, not trivial.
fn sample() -> Vec<u8> {
    (0..(1u32 << 18))
        .flat_map(|i| (i / 7).to_le_bytes())
        .collect()
}

#[test]
fn compress_and_decompress_round_trip_and_print_a_summary() {
    let d = scratch("roundtrip");
    let (raw, frame, back) = (d.join("in.raw"), d.join("f.b2frame"), d.join("back"));
    std::fs::write(&raw, sample()).unwrap();
    let c = ok(&[
        "compress",
        s(&raw),
        s(&frame),
        "--typesize",
        "4",
        "--chunk-size",
        "256K",
    ]);
    let line = String::from_utf8(c.stderr).unwrap();
    let frame_len = std::fs::metadata(&frame).unwrap().len();
    assert!(
        line.starts_with(&format!("compressed 1048576 -> {frame_len} bytes (ratio ")),
        "{line}"
    );
    assert!(
        line.contains("B/s in ") && line.trim_end().ends_with(" s"),
        "{line}"
    );
    assert_eq!(line.lines().count(), 1);
    let dz = ok(&["decompress", s(&frame), s(&back)]);
    let line = String::from_utf8(dz.stderr).unwrap();
    assert!(
        line.starts_with(&format!("decompressed {frame_len} -> 1048576 bytes")),
        "{line}"
    );
    assert_eq!(std::fs::read(&back).unwrap(), sample());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn quiet_prints_nothing_on_stderr() {
    let d = scratch("quiet");
    let (raw, frame, back) = (d.join("in.raw"), d.join("f.b2frame"), d.join("back"));
    std::fs::write(&raw, sample()).unwrap();
    let c = ok(&["compress", "-q", s(&raw), s(&frame)]);
    assert!(c.stderr.is_empty());
    let dz = ok(&["decompress", "--quiet", s(&frame), s(&back)]);
    assert!(dz.stderr.is_empty());
    assert_eq!(std::fs::read(&back).unwrap(), sample());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn pack_unpack_and_convert_both_ways() {
    let d = scratch("pack");
    let raw = d.join("in.raw");
    std::fs::write(&raw, sample()).unwrap();
    let (blp, back) = (d.join("a.blp"), d.join("back"));
    ok(&["pack", s(&raw), s(&blp), "--chunk-size", "300K"]);
    ok(&["unpack", s(&blp), s(&back)]);
    assert_eq!(std::fs::read(&back).unwrap(), sample());
    let (frame, blp2, back2) = (d.join("c.b2frame"), d.join("c.blp"), d.join("back2"));
    ok(&["convert", s(&blp), s(&frame)]);
    ok(&["convert", s(&frame), s(&blp2)]);
    ok(&["unpack", s(&blp2), s(&back2)]);
    assert_eq!(std::fs::read(&back2).unwrap(), sample());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn info_describes_frames_bloscpack_files_and_chunks() {
    let d = scratch("info");
    let raw = d.join("in.raw");
    std::fs::write(&raw, sample()).unwrap();
    let (frame, blp) = (d.join("f.b2frame"), d.join("f.blp"));
    ok(&["compress", "-q", s(&raw), s(&frame), "--codec", "lz4"]);
    ok(&["pack", s(&raw), s(&blp)]);
    let text = String::from_utf8(ok(&["info", s(&frame)]).stdout).unwrap();
    assert!(
        text.starts_with("type:           contiguous frame\n"),
        "{text}"
    );
    assert!(text.contains("codec:          lz4 (clevel 5)"), "{text}");
    let json = String::from_utf8(ok(&["info", "--json", s(&blp)]).stdout).unwrap();
    assert!(
        json.starts_with('{') && json.contains("\"type\":\"bloscpack\""),
        "{json}"
    );
    assert!(json.contains("\"nbytes\":1048576"), "{json}");
    // The first chunk of the Bloscpack file on its own: its offset is the
    // first entry of the offsets table after the 32-byte header (no metadata).
    let chunk = d.join("one.chunk");
    let bytes = std::fs::read(&blp).unwrap();
    let start = u64::from_le_bytes(bytes[32..40].try_into().unwrap()) as usize;
    let cbytes = u32::from_le_bytes(bytes[start + 12..start + 16].try_into().unwrap()) as usize;
    std::fs::write(&chunk, &bytes[start..start + cbytes]).unwrap();
    let text = String::from_utf8(ok(&["info", s(&chunk)]).stdout).unwrap();
    assert!(text.starts_with("type:           chunk\n"), "{text}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn errors_are_one_line_with_exit_code_1_and_usage_errors_exit_2() {
    let d = scratch("errors");
    let junk = d.join("junk");
    std::fs::write(&junk, b"this is not a blosc file at all").unwrap();
    for args in [
        vec!["info", s(&junk)],
        vec!["decompress", s(&junk), "-"],
        vec!["unpack", s(&junk), "-"],
        vec!["info", "/nonexistent/blosc2-cli-test"],
    ] {
        let out = blosc2(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with("blosc2: error: "), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert_eq!(blosc2(&["compress"]).status.code(), Some(2));
    assert_eq!(
        blosc2(&["compress", "a", "b", "--threads", "0"])
            .status
            .code(),
        Some(2)
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn threads_default_to_the_number_of_cores() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get().min(256));
    for cmd in [
        "compress",
        "decompress",
        "unpack",
        "bench",
        "pack",
        "convert",
        "demo",
    ] {
        let help = String::from_utf8(ok(&[cmd, "--help"]).stdout).unwrap();
        assert!(
            help.contains(&format!("[default: {cores}]")),
            "{cmd} --help: {help}"
        );
    }
}
