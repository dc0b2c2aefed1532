#!/usr/bin/env bash
# cargo's runner for wasm32 test binaries (.cargo/config.toml): wasm-bindgen-test-runner, without
# the libtest flags it refuses (`cargo test -q` hands the runner `--quiet`).
#
# With CHROMEDRIVER set, the driver is started here, and the runner is pointed at it
# (CHROMEDRIVER_REMOTE) once it answers. The runner would start it itself, but gives it 5 s to
# bind its port (WASM_BINDGEN_TEST_DRIVER_TIMEOUT) and restarts it after 10 s whatever that is
# set to. The Rust checks run at nice 19 beside the page tests (scripts/test.sh), and a loaded
# fresh run's driver missed the 5 s ("driver failed to bind port during startup"); here, at
# nice 19, the bind takes 0.5 s alone and 3.1 s beside twelve busy processes, and grows with them.
args=()
for a in "$@"; do
  case "$a" in
    --quiet | -q) ;;
    *) args+=("$a") ;;
  esac
done
if [ -z "${CHROMEDRIVER:-}" ] || [ -n "${CHROMEDRIVER_REMOTE:-}" ]; then
  exec wasm-bindgen-test-runner "${args[@]}"
fi
# The runner makes the same choice: a port the system says is free.
port=$(node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
log="${TMPDIR:-/tmp}/chromedriver-$port.log"
"$CHROMEDRIVER" --port="$port" > "$log" 2>&1 &
driver=$!
trap 'kill "$driver" 2> /dev/null; wait "$driver" 2> /dev/null; rm -f "$log"' EXIT
# Up to DRIVER_WAIT_S (180) for the port: a machine that slow fails here, saying so.
deadline=$((SECONDS + ${DRIVER_WAIT_S:-180}))
until (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; do
  if ! kill -0 "$driver" 2> /dev/null; then
    echo "wasm-test-runner: $CHROMEDRIVER exited before binding port $port:" >&2
    cat "$log" >&2
    exit 1
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "wasm-test-runner: $CHROMEDRIVER did not bind port $port in ${DRIVER_WAIT_S:-180} s" >&2
    exit 1
  fi
  sleep 0.1
done
CHROMEDRIVER_REMOTE="http://127.0.0.1:$port" wasm-bindgen-test-runner "${args[@]}"
