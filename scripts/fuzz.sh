#!/usr/bin/env bash
# A fuzzing campaign with cargo-fuzz (libFuzzer) on every target in fuzz/: the framers, the
# adapters, a whole session and the alignment. SECONDS per target (default 60).
# cargo-fuzz passes nightly-only flags; RUSTC_BOOTSTRAP=1 lets the stable toolchain accept them.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-fuzz >/dev/null || cargo install -q cargo-fuzz
secs="${1:-60}"
for t in sse lines session adapters align servertiming; do
  echo "== $t (${secs}s)"
  RUSTC_BOOTSTRAP=1 cargo fuzz run "$t" -- -max_total_time="$secs" -print_final_stats=1 2>&1 \
    | grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss|==[0-9]+== ERROR|SUMMARY)|panicked" || true
done
