//! Gives the shared library c-blosc2's SONAME and puts a `libblosc2.so.9` link
//! next to it, so that `LD_LIBRARY_PATH=target/release` serves binaries built
//! against the reference.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
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
