//! Links zkpipe's supraseal-c2 archive (`libzkpipe_supraseal_c2.a`) from the
//! CMake build directory ZKPIPE_BUILD, with the system libraries that
//! directory's `zkpipe_supraseal_c2.link` names (one "search DIR", "static
//! NAME" or "lib NAME" a line, in link order).
use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=ZKPIPE_BUILD");
    let dir = match env::var_os("ZKPIPE_BUILD") {
        Some(d) => PathBuf::from(d),
        None => panic!(
            "ZKPIPE_BUILD is not set: name zkpipe's CMake build directory, the one \
             holding libzkpipe_supraseal_c2.a (docs/supraseal-c2.md)"
        ),
    };
    let archive = dir.join("libzkpipe_supraseal_c2.a");
    if !archive.is_file() {
        panic!(
            "{} does not exist: build zkpipe first (cmake --build {} --target \
             zkpipe_supraseal_c2_upstream)",
            archive.display(),
            dir.display()
        );
    }
    let list = dir.join("zkpipe_supraseal_c2.link");
    let text = fs::read_to_string(&list)
        .unwrap_or_else(|e| panic!("{}: {} (re-run cmake on {})", list.display(), e, dir.display()));
    println!("cargo:rerun-if-changed={}", archive.display());
    println!("cargo:rerun-if-changed={}", list.display());
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=static=zkpipe_supraseal_c2");
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match line.split_once(' ') {
            Some(("search", d)) => println!("cargo:rustc-link-search=native={}", d),
            Some(("static", n)) => println!("cargo:rustc-link-lib=static={}", n),
            Some(("lib", n)) => println!("cargo:rustc-link-lib={}", n),
            _ => panic!("{}: a line it does not know: {:?}", list.display(), line),
        }
    }
}
