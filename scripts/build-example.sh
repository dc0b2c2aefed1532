#!/usr/bin/env bash
# Builds the Leptos example (examples/leptos-chat) as a Rust app is built without a bundler:
# cargo (wasm32, release, its own Cargo.lock) → wasm-bindgen --target web → dist/, which the demo
# server serves at /examples/leptos-chat/dist/. Its own target directory keeps the app's
# dependencies apart from the core's; a second build with nothing changed takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
APP=examples/leptos-chat
export CARGO_TARGET_DIR="$PWD/target/example"
cargo build -q --release --locked --target wasm32-unknown-unknown --manifest-path "$APP/Cargo.toml"
rm -rf "$APP/dist" && mkdir -p "$APP/dist"
wasm-bindgen --target web --no-typescript --out-dir "$APP/dist/pkg" --out-name leptos_chat \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/leptos-chat.wasm"
cp "$APP/index.html" "$APP/dist/"
