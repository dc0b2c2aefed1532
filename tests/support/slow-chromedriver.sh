#!/usr/bin/env bash
# A chromedriver slow to start: it binds its port DRIVER_DELAY_S (8) seconds late, as a nice-19
# driver did in a loaded fresh run (scripts/wasm-test-runner.sh). The Rust checks run the wasm
# tests once with it, so a runner that gives the driver a fixed few seconds fails every run.
sleep "${DRIVER_DELAY_S:-8}"
exec "${REAL_CHROMEDRIVER:-/usr/bin/chromedriver}" "$@"
