#!/usr/bin/env bash
# Builds pkg/: cargo (wasm32, release) → wasm-bindgen --target web → wasm-opt -Oz (npm binaryen;
# Debian's binaryen 108 makes modules that fail to load with an externref table error).
set -euo pipefail
cd "$(dirname "$0")/.."
WASM_OUT=target/wasm32-unknown-unknown/release/tokenpaint.wasm
rm -rf pkg && mkdir -p pkg/analyse
# The analysis module first (feature `analyse`: saved timelines analysed again, for Node and the
# lab; pages never load it), then the page's module, the last build left in target/.
cargo build -q --release --target wasm32-unknown-unknown --lib --features analyse
wasm-bindgen --target web --out-dir pkg/analyse --out-name tokenpaint_analyse "$WASM_OUT"
cargo build -q --release --target wasm32-unknown-unknown --lib --features module
wasm-bindgen --target web --out-dir pkg --out-name tokenpaint_core "$WASM_OUT"
# After a trap the instance cannot be trusted: the shell starts a fresh instance of the same
# module. wasm-bindgen's glue keeps its instance in module variables and initSync refuses a second
# one, so a reset is appended to the generated glue (of both modules).
for GLUE in pkg/tokenpaint_core pkg/analyse/tokenpaint_analyse; do
  node scripts/trim-glue.mjs "$GLUE.js"
  cat >> "$GLUE.js" <<'GLUE'

/** tokenpaint: a fresh instance of the same module, after a trap. */
export function __tokenpaint_reinstantiate() {
    const module = wasmModule;
    wasm = undefined;
    cachedUint8ArrayMemory0 = null;
    return initSync({ module });
}
GLUE
  cat >> "$GLUE.d.ts" <<'TYPES'

/** tokenpaint: a fresh instance of the same module, after a trap. */
export function __tokenpaint_reinstantiate(): InitOutput;
TYPES
done
# The shipped modules' wasm-opt passes (scripts/wasm-opt.sh, shared with the size profile).
source scripts/wasm-opt.sh
for WASM in pkg/tokenpaint_core_bg.wasm pkg/analyse/tokenpaint_analyse_bg.wasm; do
  optimize "$WASM"
done
