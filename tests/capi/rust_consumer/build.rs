// What capi/README.md tells a user's binary crate to do: the geolin crate's build script found
// libgeolin.so (GEOLIN_LIB_DIR or pkg-config) and passes its directory as DEP_GEOLIN_LIBDIR;
// putting it into this binary's rpath lets it run without LD_LIBRARY_PATH.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_GEOLIN_LIBDIR");
    if let Ok(dir) = std::env::var("DEP_GEOLIN_LIBDIR") {
        println!("cargo:rustc-link-arg-bins=-Wl,-rpath,{dir}");
    }
}
