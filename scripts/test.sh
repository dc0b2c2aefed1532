#!/usr/bin/env bash
# Every test: formatting, lints (host and wasm32), native core tests, the wasm binding in
# headless Chromium, and page tests of the library and the demo in headless Chromium.
# The Rust checks (scripts/rust-checks.sh) run beside the page tests at nice 19: the page tests
# keep the CPU they ask for, and the Rust checks take the rest. The Rust examples' page test runs
# last, once the checks (which build the examples) have passed.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { echo; echo "== $* (at ${SECONDS} s)"; }

step setup
bash scripts/setup.sh
step build
bash scripts/build.sh
node scripts/size.mjs

log=target/rust-checks.log
step "Rust checks, beside the page tests (nice 19; their log follows the page tests: $log)"
mkdir -p target
setsid nice -n 19 bash scripts/rust-checks.sh > "$log" 2>&1 &
checks=$!
trap 'kill -- "-$checks" 2>/dev/null || true; echo; echo "== the Rust checks so far ($log)"; cat "$log"' EXIT

step "page tests in headless Chromium, Firefox and WebKit"
# No --test-force-exit: with it, Node 20's runner exits a file's process before the reports of its
# last tests are out, and drops them without a failure (tests/repo/harness.test.mjs). The set-ups
# close what they started when a browser does not start (tests/engines/launch.test.mjs).
mapfile -t pages < <(find tests -name node_modules -prune -o -name '*.test.mjs' ! -name rust.test.mjs -print | sort)
node --test --test-concurrency=1 "${pages[@]}"

step "waiting for the Rust checks"
rc=0; wait "$checks" || rc=$?
trap - EXIT
cat "$log"
[ "$rc" = 0 ] || { echo "the Rust checks failed (exit $rc)"; exit "$rc"; }

step "the Rust example chats in headless Chromium"
node --test --test-concurrency=1 tests/browser/rust.test.mjs
echo; echo "== all passed in ${SECONDS} s"
