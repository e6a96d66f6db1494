#!/usr/bin/env bash
# Installs what zkpipe needs on Debian, only what is missing (idempotent):
# a C toolchain and CMake; Node.js and npm plus the pinned npm packages of
# tests/js (snarkjs, circom2, circomlib, @noble/curves) for the tests;
# libmicrohttpd and cJSON for the daemon, libcurl for its clients; libpq for
# the fleet's shared queue and the PostgreSQL server its tests start a
# private cluster of (tests/fleet.test.sh); Rust's compiler and cargo for the
# supraseal-c2 crate's test (tests/supraseal_rust.test.sh, offline). CUDA is
# used when nvcc is present; it is never installed here.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(build-essential cmake pkg-config nodejs npm libmicrohttpd-dev libcjson-dev libcurl4-openssl-dev
      libpq-dev postgresql)
# The tests' own toolchains, which the demo (ZP_SKIP_NPM=1) does without.
[ "${ZP_SKIP_NPM:-0}" != 1 ] && pkgs+=(rustc cargo)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# A toolchain installed outside apt (e.g. a node binary on PATH) also counts.
if [ ${#missing[@]} -gt 0 ]; then
  filtered=()
  for p in "${missing[@]}"; do
    case "$p" in
      nodejs) command -v node >/dev/null || filtered+=("$p") ;;
      npm) command -v npm >/dev/null || filtered+=("$p") ;;
      cmake) command -v cmake >/dev/null || filtered+=("$p") ;;
      rustc) command -v rustc >/dev/null || filtered+=("$p") ;;
      cargo) command -v cargo >/dev/null || filtered+=("$p") ;;
      build-essential) command -v cc >/dev/null && command -v make >/dev/null || filtered+=("$p") ;;
      postgresql) ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null ||
        filtered+=("$p") ;;
      *) filtered+=("$p") ;;
    esac
  done
  missing=("${filtered[@]+"${filtered[@]}"}")
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "${ZP_SKIP_NPM:-0}" != 1 ]; then
  if [ ! -d tests/js/node_modules/snarkjs ] || [ tests/js/package-lock.json -nt tests/js/node_modules/.package-lock.json ]; then
    echo "deps: installing npm test packages (tests/js)" >&2
    (cd tests/js && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi
