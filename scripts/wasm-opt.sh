#!/usr/bin/env bash
# The wasm-opt passes of a shipped module (scripts/build.sh), in one place: `optimize WASM` in
# place; with a second argument `names`, the function names are kept (scripts/size-profile.sh),
# and nothing else differs: the code is the shipped module's, byte for byte.
# -Oz, then flattened and re-relooped control flow optimized again, then -Oz three times more
# without producers, debug or target-features sections: 1.3 KB raw and about 0.9 KB gzip less
# than a single -Oz (npm run size), with the same parser throughput (bench/parser.mjs side by
# side). Issue 60: the target-features section and the fourth pass, 118 B gzip less (82,056 B
# to 81,938 B at 3979fd8; a fifth pass changes nothing).
FEATURES=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue)
optimize() {
  local wasm=$1 opts=("${FEATURES[@]}") strip=(--strip-debug)
  # -g keeps the names section through each pass; it changes no code.
  [ "${2:-}" = names ] && opts+=(-g) && strip=()
  node_modules/.bin/wasm-opt -Oz --flatten --rereloop -Oz "${opts[@]}" "$wasm" -o "$wasm"
  # The target_features section only tells tools which features the code uses (the flags
  # above say so here); browsers ignore it.
  node_modules/.bin/wasm-opt -Oz "${strip[@]}" --strip-producers --strip-target-features "${opts[@]}" "$wasm" -o "$wasm"
  node_modules/.bin/wasm-opt -Oz "${opts[@]}" "$wasm" -o "$wasm"
  node_modules/.bin/wasm-opt -Oz "${opts[@]}" "$wasm" -o "$wasm"
}
