// Links the crate to libgeolin.so and tells dependent crates where it is.
//
// The directory of the library is, in this order:
//   1. $GEOLIN_LIB_DIR (a CMake build tree's capi/ folder, or an installed <prefix>/lib);
//   2. `pkg-config --variable=libdir geolin` (an installed geolin; set PKG_CONFIG_PATH to
//      <prefix>/lib/pkgconfig for a prefix outside the default search path);
//   3. none: the linker's and the loader's default paths (a system-wide install + ldconfig).
//
// For 1 and 2 the build script emits
//   - rustc-link-search: the linker finds the library (this propagates to dependent crates);
//   - rustc-link-arg -rpath: this crate's own tests and examples run without LD_LIBRARY_PATH;
//   - the metadata `libdir`, which Cargo passes to the build script of every crate that depends
//     on this one as DEP_GEOLIN_LIBDIR. A `rustc-link-arg` of a dependency does not reach the
//     user's binary, so a binary crate that wants an rpath adds its own build.rs:
//         fn main() {
//             if let Ok(dir) = std::env::var("DEP_GEOLIN_LIBDIR") {
//                 println!("cargo:rustc-link-arg-bins=-Wl,-rpath,{dir}");
//             }
//         }
//     (or runs with LD_LIBRARY_PATH; capi/README.md "Rust"). tests/capi/rust_consumer is such
//     a crate, built and run by the capi_rust_consumer test.
use std::path::Path;
use std::process::Command;

fn pkg_config_libdir() -> Option<String> {
    let out = Command::new("pkg-config")
        .args(["--variable=libdir", "geolin"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let dir = String::from_utf8(out.stdout).ok()?.trim().to_string();
    if dir.is_empty() {
        None
    } else {
        Some(dir)
    }
}

fn main() {
    println!("cargo:rerun-if-env-changed=GEOLIN_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_LIBDIR");
    println!("cargo:rerun-if-changed=build.rs");

    let (dir, source) = match std::env::var("GEOLIN_LIB_DIR") {
        Ok(d) if !d.is_empty() => (Some(d), "GEOLIN_LIB_DIR"),
        _ => (pkg_config_libdir(), "pkg-config"),
    };
    // A canonical path: pkg-config's relocatable libdir is "<prefix>/lib/pkgconfig/../../lib".
    let dir = dir.map(|d| match std::fs::canonicalize(&d) {
        Ok(p) => p.to_string_lossy().into_owned(),
        Err(_) => d,
    });
    if let Some(dir) = dir {
        let has_library = ["libgeolin.so", "libgeolin.so.0", "libgeolin.dylib"]
            .iter()
            .any(|f| Path::new(&dir).join(f).exists());
        if !has_library {
            panic!(
                "geolin: {source} gives the library directory '{dir}', which has no libgeolin.so \
                 (build geolin first, or set GEOLIN_LIB_DIR to the directory of libgeolin.so)"
            );
        }
        println!("cargo:rustc-link-search=native={dir}");
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
        println!("cargo:libdir={dir}");
    } else {
        println!(
            "cargo:warning=geolin: neither GEOLIN_LIB_DIR nor `pkg-config geolin` gives the \
             directory of libgeolin.so; relying on the system's default library path"
        );
    }
    println!("cargo:rustc-link-lib=dylib=geolin");
}
