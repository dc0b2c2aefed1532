#!/usr/bin/env bash
# Builds pkg/: cargo (wasm32, release) → wasm-bindgen --target web → wasm-opt -Oz (npm binaryen;
# Debian's binaryen 108 makes modules that fail to load with an externref table error).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release --target wasm32-unknown-unknown --lib
rm -rf pkg && mkdir -p pkg
wasm-bindgen --target web --out-dir pkg --out-name tokenpaint_core \
  target/wasm32-unknown-unknown/release/tokenpaint.wasm
# After a trap the instance cannot be trusted: the shell starts a fresh instance of the same
# module. wasm-bindgen's glue keeps its instance in module variables and initSync refuses a second
# one, so a reset is appended to the generated glue.
cat >> pkg/tokenpaint_core.js <<'GLUE'

/** tokenpaint: a fresh instance of the same module, after a trap. */
export function __tokenpaint_reinstantiate() {
    const module = wasmModule;
    wasm = undefined;
    cachedUint8ArrayMemory0 = null;
    return initSync({ module });
}
GLUE
node_modules/.bin/wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  pkg/tokenpaint_core_bg.wasm -o pkg/tokenpaint_core_bg.wasm
