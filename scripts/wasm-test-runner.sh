#!/usr/bin/env bash
# cargo's runner for wasm32 test binaries (.cargo/config.toml): wasm-bindgen-test-runner, without
# the libtest flags it refuses (`cargo test -q` hands the runner `--quiet`).
args=()
for a in "$@"; do
  case "$a" in
    --quiet | -q) ;;
    *) args+=("$a") ;;
  esac
done
exec wasm-bindgen-test-runner "${args[@]}"
