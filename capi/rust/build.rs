// Links the crate to libgeolin.so. The directory holding the library comes from the
// environment variable GEOLIN_LIB_DIR (the CMake build directory's capi/ folder, or an installed
// <prefix>/lib); without it, the system's default search path is used. An rpath to that
// directory is added so tests and binaries run without LD_LIBRARY_PATH.
fn main() {
    println!("cargo:rerun-if-env-changed=GEOLIN_LIB_DIR");
    if let Ok(dir) = std::env::var("GEOLIN_LIB_DIR") {
        if !dir.is_empty() {
            println!("cargo:rustc-link-search=native={dir}");
            println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
        }
    }
    println!("cargo:rustc-link-lib=dylib=geolin");
}
