#!/usr/bin/env bash
# The real chat apps, installed and checked (issue 47), outside `npm test`: `npm run real-apps`.
#
# 1. Installs, each in a virtualenv of its own under $APPS (default /opt/tokenpaint-apps), at
#    pinned versions from PyPI: Open WebUI 0.12.4 (about 4 minutes and 7.3 GB: torch and CUDA
#    wheels come along) and Gradio 6.31.0 (about 2 minutes, 370 MB). Idempotent.
# 2. Starts, offline and with no model: an OpenAI-compatible server streaming one token every
#    20 ms (scripts/real-apps/openai-server.mjs); Open WebUI pointed at it, with no login and no
#    title, tag or follow-up generation (scripts/real-apps/open-webui.sh); a Gradio ChatInterface
#    over a generator that yields the growing answer, a word every 20 ms
#    (scripts/real-apps/gradio_app.py).
# 3. Runs tests/realapps/check.mjs in Chromium: RUNS (10) answers per app with the apps' readers,
#    and RUNS with them off (learned from the page). Each run: one report per answer and none
#    else, status ok, matched ≥ 99%, perceived TTFT and lag p50 within a frame of the test's own
#    truth, no buffering verdict.
# 4. Builds llama.cpp's own llama-server from the llama-cpp-python 0.3.36 sdist, with a small
#    random-weight model (scripts/real-apps/build-llama-server.sh: about 8–16 minutes the first
#    time), and runs tests/realapps/llama.mjs: the queue it does not report, derived, against its
#    own log's waits (one slot, two ahead; two slots, three ahead; RUNS times each), and the
#    lab's concurrency sweep against it with two slots.
# 5. Installs Streamdown 2.5.0 with its KaTeX plugin, the AI SDK's useChat and React 19.3
#    (tests/realapps/streamdown/package.json, from npm into $APPS/streamdown: about 250 packages,
#    190 MB, 20 s) and runs tests/realapps/streamdown.mjs: RUNS answers full of formulas under a
#    4× CPU throttle in each case (deferred by useDeferredValue while the user types, direct,
#    and Streamdown's two modes), tokenpaint's freezes and verdicts against the page's own
#    (issue 49).
# 6. With `--record`: records each app's traffic again into tests/recordings/ (for a newer
#    version: change the pins below, record, and the replay tests of `npm test` use it).
# With `llama` as the argument, only step 4; with `streamdown`, only step 5.
#
# Needs what `npm test` needs (scripts/setup.sh) and Python 3.11 with venv. Takes about 7 minutes
# the first time (installs), then about 3 minutes for 10 runs of each check.
set -euo pipefail
cd "$(dirname "$0")/.."
OPEN_WEBUI_VERSION=0.12.4
GRADIO_VERSION=6.31.0
APPS=${APPS:-/opt/tokenpaint-apps}
RUNS=${RUNS:-10}
export RUNS APPS
say() { echo "real-apps: $*" >&2; }

bash scripts/setup.sh
bash scripts/build.sh
node scripts/build-extension.mjs >/dev/null

install() { # name, package==version, executable that proves it is there
  local dir="$APPS/$1"
  local have=""
  [ -x "$dir/bin/$3" ] && have=$("$dir/bin/pip" show "${2%%==*}" 2>/dev/null || true)
  if grep -qx "Version: ${2##*==}" <<< "$have"; then return; fi
  say "installing $2 into $dir"
  mkdir -p "$APPS"
  python3 -m venv "$dir"
  "$dir/bin/pip" install -q --disable-pip-version-check "$2"
}
streamdown() {
  local dir="$APPS/streamdown"
  mkdir -p "$dir"
  if ! cmp -s tests/realapps/streamdown/package-lock.json "$dir/package-lock.json" || [ ! -d "$dir/node_modules/streamdown" ]; then
    say "installing Streamdown 2.5.0 and its company into $dir"
    cp tests/realapps/streamdown/package.json tests/realapps/streamdown/package-lock.json "$dir/"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
  node tests/realapps/streamdown.mjs
}
if [ "${1:-}" = "streamdown" ]; then streamdown; exit $?; fi
LLAMA_DIR=$(bash scripts/real-apps/build-llama-server.sh)
export LLAMA_DIR
if [ "${1:-}" = "llama" ]; then exec node tests/realapps/llama.mjs; fi
install openwebui "open-webui==$OPEN_WEBUI_VERSION" open-webui
install gradio "gradio==$GRADIO_VERSION" gradio

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
logs=$(mktemp -d /tmp/real-apps-XXXX)
wait_for() { # url, seconds
  for _ in $(seq "$2"); do curl -sf -o /dev/null "$1" && return 0; sleep 1; done
  say "$1 did not answer in $2 s (logs: $logs)"; return 1
}

PORT=8099 node scripts/real-apps/openai-server.mjs > "$logs/openai.log" 2>&1 & pids+=($!)
PORT=8080 OPENAI_URL=http://127.0.0.1:8099/v1 bash scripts/real-apps/open-webui.sh > "$logs/open-webui.log" 2>&1 & pids+=($!)
PORT=7860 "$APPS/gradio/bin/python" scripts/real-apps/gradio_app.py > "$logs/gradio.log" 2>&1 & pids+=($!)
wait_for http://127.0.0.1:8099/v1/models 20
wait_for http://127.0.0.1:7860/ 60
wait_for http://127.0.0.1:8080/api/version 120
say "apps up: Open WebUI $(curl -s http://127.0.0.1:8080/api/version), Gradio $GRADIO_VERSION"

if [ "${1:-}" = "--record" ]; then
  node scripts/record-app.mjs gradio http://127.0.0.1:7860/ "tests/recordings/gradio-$GRADIO_VERSION.json" --version="$GRADIO_VERSION"
  node scripts/record-app.mjs open-webui http://127.0.0.1:8080/ "tests/recordings/open-webui-$OPEN_WEBUI_VERSION.json" --version="$OPEN_WEBUI_VERSION"
  exit 0
fi

rc=0
node tests/realapps/check.mjs gradio open-webui || rc=1
node tests/realapps/check.mjs gradio open-webui --readers=off || rc=1
# The apps leave the cores to the real server.
cleanup
pids=()
node tests/realapps/llama.mjs || rc=1
streamdown || rc=1
exit $rc
