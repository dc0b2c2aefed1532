#!/usr/bin/env bash
# Builds the Rust example chats (examples/{leptos,dioxus,yew}-chat) as a Rust app is built without a
# bundler: cargo (wasm32, release) → wasm-bindgen --target web → <app>/dist/, which the demo
# server serves at /examples/<app>/dist/. The three are one workspace (examples/Cargo.toml, one
# Cargo.lock) built by one cargo call into one target directory, so that what they share is
# compiled once. A second build with nothing changed takes seconds.
# `EXAMPLES="leptos-chat"` builds only those.
set -euo pipefail
cd "$(dirname "$0")/.."
APPS=(${EXAMPLES:-leptos-chat dioxus-chat yew-chat})
export CARGO_TARGET_DIR="$PWD/target/example"
cargo build -q --release --locked --target wasm32-unknown-unknown --manifest-path examples/Cargo.toml \
  $(printf -- '-p %s ' "${APPS[@]}")
for app in "${APPS[@]}"; do
  dir="examples/$app"
  rm -rf "$dir/dist" && mkdir -p "$dir/dist"
  wasm-bindgen --target web --no-typescript --out-dir "$dir/dist/pkg" --out-name "${app//-/_}" \
    "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/$app.wasm"
  cp "$dir/index.html" "$dir/dist/"
done
