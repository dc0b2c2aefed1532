#!/usr/bin/env bash
# The wasm-opt passes of a shipped module (scripts/build.sh), in one place: `optimize WASM` in
# place; with a second argument `names`, the function names are kept (scripts/size-profile.sh),
# and nothing else differs: the code is the shipped module's, byte for byte.
# -Oz, then flattened and re-relooped control flow optimized again, then -Oz twice more without
# producers or debug sections: 1.3 KB raw and about 0.9 KB gzip less than a single -Oz
# (npm run size), with the same parser throughput (bench/parser.mjs side by side).
FEATURES=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue)
optimize() {
  local wasm=$1 opts=("${FEATURES[@]}") strip=(--strip-debug)
  # -g keeps the names section through each pass; it changes no code.
  [ "${2:-}" = names ] && opts+=(-g) && strip=()
  node_modules/.bin/wasm-opt -Oz --flatten --rereloop -Oz "${opts[@]}" "$wasm" -o "$wasm"
  node_modules/.bin/wasm-opt -Oz "${strip[@]}" --strip-producers "${opts[@]}" "$wasm" -o "$wasm"
  node_modules/.bin/wasm-opt -Oz "${opts[@]}" "$wasm" -o "$wasm"
}
