#!/usr/bin/env bash
# The Rust crate with supraseal-c2's public surface (rust/supraseal-c2),
# built offline by cargo against this build's upstream archive and tested on
# a fixture that ss_fixture writes (a synthetic circuit's .params, the
# caller's side of each circuit and zkpipe's native proofs).
#   usage: supraseal_rust.test.sh ZKPIPE (run from tests/; the build
#   directory is ZKPIPE's, where ss_fixture and the archive are)
# Exits 77 (skipped) where there is no cargo.
set -euo pipefail
build=$(cd "$(dirname "$1")" && pwd)
fixture=$build/tests/ss_fixture crate=$(cd ../rust/supraseal-c2 && pwd)
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
