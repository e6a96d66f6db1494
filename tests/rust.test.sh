#!/usr/bin/env bash
# The Rust crate with supraseal-c2's public surface (rust/supraseal-c2),
# built offline by cargo against this build's upstream archive and tested on
# a fixture that ss_fixture writes (a synthetic circuit's .params, the
# caller's side of each circuit and zkpipe's native proofs).
#   usage: rust.test.sh SS_FIXTURE BUILD_DIR CRATE_DIR
# Exits 77 (skipped) where there is no cargo.
set -euo pipefail
fixture=$1 build=$2 crate=$3
if ! command -v cargo >/dev/null; then
    echo "rust: no cargo on PATH: skipped (scripts/deps.sh installs Debian's)"
    exit 77
fi
cargo --version
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$fixture" "$tmp/fix" porep:8 3
ZKPIPE_BUILD=$build ZKPIPE_SS_FIXTURE=$tmp/fix CARGO_TARGET_DIR=$build/rust-target \
    cargo test --offline --locked --manifest-path "$crate/Cargo.toml" 2>&1
