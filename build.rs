//! Gives the shared library c-blosc2's SONAME and puts a `libblosc2.so.9` link
//! next to it, so that `LD_LIBRARY_PATH=target/release` serves binaries built
//! against the reference; on x86_64, also builds LZ4 a second time for CPUs
//! with AVX2 (`csrc/lz4_v3.c`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(lz4_v3)");
    build_lz4_v3();
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os != "linux" {
        return;
    }
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libblosc2.so.9");
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out; the library lands in <target>/<profile>.
    if let Ok(out) = std::env::var("OUT_DIR") {
        let out = PathBuf::from(out);
        if let Some(profile_dir) = out.ancestors().nth(3) {
            let link = profile_dir.join("libblosc2.so.9");
            if std::fs::symlink_metadata(&link).is_err() {
                #[cfg(unix)]
                let _ = std::os::unix::fs::symlink("libblosc2.so", &link);
            }
        }
    }
}

/// The directory holding `lz4.c` in the `lz4-sys` package this build uses:
/// the registry copy of the version `Cargo.lock` names, else what `cargo
/// metadata` says (a vendored or patched source).
fn lz4_source_dir() -> Option<PathBuf> {
    lz4_source_in_registry().or_else(lz4_source_from_metadata)
}

/// `$CARGO_HOME/registry/src/<index>/lz4-sys-<version>/liblz4/lib`, with the
/// version from `Cargo.lock`.  `cargo metadata --offline` alone is not
/// enough: on a fresh machine `cargo build` has not downloaded the
/// dev-dependencies, so metadata fails and the library was built without
/// this decoder (then kept so, as nothing made the build script run again).
fn lz4_source_in_registry() -> Option<PathBuf> {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    println!("cargo:rerun-if-changed=Cargo.lock");
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).ok()?;
    let mut lines = lock.lines();
    lines.find(|l| l.trim() == "name = \"lz4-sys\"")?;
    let version = lines
        .next()?
        .trim()
        .strip_prefix("version = \"")?
        .strip_suffix('"')?
        .to_string();
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))?;
    std::fs::read_dir(home.join("registry").join("src"))
        .ok()?
        .flatten()
        .map(|index| {
            index
                .path()
                .join(format!("lz4-sys-{version}"))
                .join("liblz4")
                .join("lib")
        })
        .find(|lib| lib.join("lz4.c").is_file())
}

/// The `lz4-sys` source directory according to `cargo metadata` (offline:
/// the package is already here).
fn lz4_source_from_metadata() -> Option<PathBuf> {
    let cargo = std::env::var_os("CARGO")?;
    let manifest = Path::new(&std::env::var_os("CARGO_MANIFEST_DIR")?).join("Cargo.toml");
    let target = std::env::var("TARGET").ok()?;
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--offline",
            "--format-version",
            "1",
            "--filter-platform",
        ])
        .arg(&target)
        .arg("--manifest-path")
        .arg(&manifest)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    // Every package's entry has `"manifest_path":"<dir>/Cargo.toml"`.
    text.split("\"manifest_path\":\"").skip(1).find_map(|rest| {
        let path = Path::new(rest.split('"').next()?);
        let dir = path.parent()?;
        let name = dir.file_name()?.to_str()?;
        let lib = dir.join("liblz4").join("lib");
        (name.starts_with("lz4-sys-") && lib.join("lz4.c").is_file()).then_some(lib)
    })
}

/// On x86_64, compile `csrc/lz4_v3.c` with AVX2, BMI1/2 and LZCNT and set
/// `cfg(lz4_v3)`; `src/codec/lz4.rs` calls it when the CPU has them. LZ4
/// built this way decompressed a 64 KiB lz4+shuffle chunk in 1.75 us
/// against 2.23 us for the generic build (the reference: 2.03 us). Without
/// the LZ4 source (an unusual vendoring, say) the generic build serves alone.
fn build_lz4_v3() {
    println!("cargo:rerun-if-changed=csrc/lz4_v3.c");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("x86_64") {
        return;
    }
    let Some(lib) = lz4_source_dir() else {
        println!("cargo:warning=lz4 source not found: no AVX2 build of LZ4");
        return;
    };
    let mut build = cc::Build::new();
    build
        .file("csrc/lz4_v3.c")
        .include(&lib)
        .opt_level(3)
        .debug(false)
        .force_frame_pointer(false)
        .flag("-mavx2")
        .flag("-mbmi")
        .flag("-mbmi2")
        .flag("-mlzcnt")
        .flag("-fvisibility=hidden")
        .warnings(false);
    // Where the decoder's loops fall relative to 32- and 64-byte boundaries
    // moved its speed on literal-heavy blocks by 5-8% (the same machine code,
    // placed at another address by unrelated changes elsewhere in the
    // library). Functions start on 64 bytes, loops on 32, and no branch
    // crosses or ends on a 32-byte boundary, so the placement no longer
    // depends on the rest of the build (docs/performance.md, "LZ4 decoder
    // placement"). Flags the compiler lacks are left out.
    for flag in [
        "-falign-functions=64",
        "-falign-loops=32",
        "-Wa,-mbranches-within-32B-boundaries",
    ] {
        build.flag_if_supported(flag);
    }
    build.compile("blosc2rs_lz4v3");
    println!("cargo:rustc-cfg=lz4_v3");
}
