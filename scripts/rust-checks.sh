#!/usr/bin/env bash
# The Rust half of `npm test`: the example chats' build, formatting, lints (host and wasm32), the
# docs, the native core tests and the wasm binding's tests in headless Chromium. scripts/test.sh
# runs it beside the page tests, at low priority: they leave most of the two cores idle (they
# wait on streams), and these are CPU-bound with no timing to disturb.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { echo; echo "== $* (at ${SECONDS} s)"; }

step "build the Rust example chats: Leptos, Dioxus, Yew (Rust API)"
bash scripts/build-example.sh
step "cargo fmt --check"
cargo fmt --all --check
cargo fmt --all --check --manifest-path examples/Cargo.toml
step "clippy (host)"
cargo clippy -q --workspace --all-targets --features serde,schema -- -D warnings
step "clippy (wasm32)"
cargo clippy -q --workspace --target wasm32-unknown-unknown --all-targets -- -D warnings
cargo clippy -q --target wasm32-unknown-unknown --lib --features web -- -D warnings
cargo clippy -q --target wasm32-unknown-unknown --lib --features module -- -D warnings
cargo clippy -q --target wasm32-unknown-unknown --lib --features analyse -- -D warnings
# npm run size:floor's measurement builds (scripts/floor.mjs): their cuts compile, lint-free.
cargo clippy -q --target wasm32-unknown-unknown --lib --features floor-live,floor-one-format -- -D warnings
step "cargo doc (feature web): no missing docs, no broken links"
RUSTDOCFLAGS="-D warnings" cargo doc -q --no-deps --target wasm32-unknown-unknown --features web
step "native tests"
cargo test -q --workspace --features serde,schema
# The wasm binding's tests in headless Chromium, with the driver given (scripts/wasm-test-runner.sh).
wasm_tests() { CHROMEDRIVER="$1" WASM_BINDGEN_TEST_TIMEOUT=60 cargo test -q --target wasm32-unknown-unknown --test web; }
driver="${CHROMEDRIVER:-/usr/bin/chromedriver}"
step "wasm tests in headless Chromium"
wasm_tests "$driver"
step "wasm tests again, with a driver that binds its port 8 s late (over the runner's own 5 s)"
REAL_CHROMEDRIVER="$driver" wasm_tests "$PWD/tests/support/slow-chromedriver.sh"
step "Rust checks passed"
