#!/usr/bin/env bash
# The real chat apps, installed and checked (issues 47 and 58), outside `npm test`: `npm run real-apps`.
#
# 1. Installs, each in a virtualenv of its own under $APPS (default /opt/tokenpaint-apps), at
#    pinned versions from PyPI: Open WebUI 0.12.4 (about 4 minutes and 7.3 GB: torch and CUDA
#    wheels come along), Gradio 6.31.0, Chainlit 2.12.0, Streamlit 1.67.0, NiceGUI 3.18.0, Mesop
#    1.3.7, marimo 0.25.2 and Solara 1.64.1 (10 to 50 s each); Shiny 1.8.0 (with shinychat 0.7.2)
#    and Panel 1.10.0 (under Python 3.12, which Panel needs: pyenv's); Rio 0.12.3 and PyWebIO
#    1.8.4 (issue 71: wires unlike the others'); H2O Wave 1.8.16 and FastHTML 0.14.14 (issue 71's
#    trial on apps not developed against: operations keyed in a frame, HTML fragments swapped
#    out of band); Solara's frontend, which it fetches from a CDN
#    this machine does not reach, from npm (scripts/real-apps/cdn.mjs serves it). Idempotent.
# 2. Starts, offline and with no model: an OpenAI-compatible server streaming one token every
#    20 ms (scripts/real-apps/openai-server.mjs) that Open WebUI is pointed at
#    (scripts/real-apps/open-webui.sh); the others each stream a fixed answer a token every 20 ms
#    with their own streaming API (scripts/real-apps/*_app.py; the answer: answer.mjs).
# 3. Runs tests/realapps/check.mjs in Chromium: RUNS (10) answers per app with the apps' readers,
#    and RUNS with them off (learned from the page): one report per answer and none else, status
#    ok, matched >= 99%, its start and end as the app's traffic shows, perceived TTFT and lag p50
#    within two frames of the test's own truth, no buffering verdict; a table of the figures.
# 4. Builds llama.cpp's own llama-server from the llama-cpp-python 0.3.36 sdist, with a small
#    random-weight model (scripts/real-apps/build-llama-server.sh: about 8-16 minutes the first
#    time), and runs tests/realapps/llama.mjs: the queue it does not report, derived, against its
#    own log's waits (one slot, two ahead; two slots, three ahead; RUNS times each), and the
#    lab's concurrency sweep against it with two slots.
# 5. Installs Streamdown 2.5.0 with its KaTeX plugin, the AI SDK's useChat and React 19.3
#    (tests/realapps/streamdown/package.json, from npm into $APPS/streamdown: about 250 packages,
#    190 MB, 20 s) and runs tests/realapps/streamdown.mjs: RUNS answers full of formulas under a
#    4x CPU throttle in each case (deferred by useDeferredValue while the user types, direct,
#    and Streamdown's two modes), tokenpaint's freezes and verdicts against the page's own
#    (issue 49).
# 6. With `--record`: records each app again into tests/recordings/ (its wire both ways and its
#    page's DOM changes: scripts/record-app.mjs; for a newer version: change the pins below,
#    record, and the replays of `npm test` use it).
# With `llama` as the argument, only step 4; with `streamdown`, only step 5; with `apps`, only
# steps 1 to 3 (or `--record`); with `up`, steps 1 and 2, the apps kept up until it is stopped
# (then `node tests/realapps/check.mjs [--readers=off] [app…]` checks those named).
#
# Needs what `npm test` needs (scripts/setup.sh) and Python 3.11 with venv. Takes about 8 minutes
# the first time (installs), then about 30 minutes for 10 runs of each check.
set -euo pipefail
cd "$(dirname "$0")/.."
OPEN_WEBUI_VERSION=0.12.4
GRADIO_VERSION=6.31.0
CHAINLIT_VERSION=2.12.0
STREAMLIT_VERSION=1.67.0
NICEGUI_VERSION=3.18.0
MESOP_VERSION=1.3.7
MARIMO_VERSION=0.25.2
SOLARA_VERSION=1.64.1
SHINY_VERSION=1.8.0
PANEL_VERSION=1.10.0
RIO_VERSION=0.12.3
PYWEBIO_VERSION=1.8.4
# Issue 71's trial on apps not developed against: H2O Wave (its own server, waved, in the wheel)
# and FastHTML (htmx's WebSocket extension, from npm as the CDN would serve it).
WAVE_VERSION=1.8.16
FASTHTML_VERSION=0.14.14
FASTHTML_CDN_PACKAGES="htmx.org@2.0.7 htmx-ext-ws@2.0.3"
# Panel 1.10 needs Python 3.12 or newer: pyenv's, where there is one.
PYTHON312=${PYTHON312:-$(command -v pyenv >/dev/null && ls -d "$(pyenv root)"/versions/3.1[2-9]*/bin/python3 2>/dev/null | head -1 || true)}
# Solara's frontend at the versions it asks the CDN for.
SOLARA_CDN_PACKAGES="@widgetti/solara-vuetify3-app@5.2.0 font-awesome@4.5.0 requirejs@2.3.6 mermaid@10.8.0 katex@0.16.9"
APPS=${APPS:-/opt/tokenpaint-apps}
RUNS=${RUNS:-10}
export RUNS APPS
say() { echo "real-apps: $*" >&2; }

bash scripts/setup.sh
bash scripts/build.sh
node scripts/build-extension.mjs >/dev/null

install() { # name, package==version, executable that proves it is there[, python]
  local dir="$APPS/$1"
  local have=""
  [ -x "$dir/bin/$3" ] && have=$("$dir/bin/pip" show "${2%%==*}" 2>/dev/null || true)
  if grep -qx "Version: ${2##*==}" <<< "$have"; then return; fi
  say "installing $2 into $dir"
  mkdir -p "$APPS"
  "${4:-python3}" -m venv "$dir"
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
if [ "${1:-}" != "apps" ] && [ "${1:-}" != "up" ] && [ "${1:-}" != "--record" ]; then
  LLAMA_DIR=$(bash scripts/real-apps/build-llama-server.sh)
  export LLAMA_DIR
  if [ "${1:-}" = "llama" ]; then exec node tests/realapps/llama.mjs; fi
fi
install openwebui "open-webui==$OPEN_WEBUI_VERSION" open-webui
install gradio "gradio==$GRADIO_VERSION" gradio
install chainlit "chainlit==$CHAINLIT_VERSION" chainlit
install streamlit "streamlit==$STREAMLIT_VERSION" streamlit
install nicegui "nicegui==$NICEGUI_VERSION" python
install mesop "mesop==$MESOP_VERSION" mesop
install marimo "marimo==$MARIMO_VERSION" marimo
install solara "solara==$SOLARA_VERSION" solara
install shiny "shiny==$SHINY_VERSION" shiny
[ -n "$PYTHON312" ] || { say "Panel $PANEL_VERSION needs Python 3.12 or newer (set PYTHON312)"; exit 1; }
install panel "panel==$PANEL_VERSION" panel "$PYTHON312"
install rio "rio-ui==$RIO_VERSION" python
install pywebio "pywebio==$PYWEBIO_VERSION" python
install wave "h2o-wave==$WAVE_VERSION" wave
install fasthtml "python-fasthtml==$FASTHTML_VERSION" python
if [ ! -f "$APPS/fasthtml-cdn/node_modules/htmx-ext-ws/package.json" ]; then
  say "installing FastHTML's htmx from npm into $APPS/fasthtml-cdn"
  mkdir -p "$APPS/fasthtml-cdn"
  (cd "$APPS/fasthtml-cdn" && { [ -f package.json ] || echo '{"private":true}' > package.json; } && npm install --no-audit --no-fund --loglevel=error $FASTHTML_CDN_PACKAGES)
fi
if [ ! -f "$APPS/solara-cdn/node_modules/mermaid/package.json" ]; then
  say "installing Solara's frontend from npm into $APPS/solara-cdn"
  mkdir -p "$APPS/solara-cdn"
  (cd "$APPS/solara-cdn" && { [ -f package.json ] || echo '{"private":true}' > package.json; } && npm install --no-audit --no-fund --loglevel=error $SOLARA_CDN_PACKAGES)
fi

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
logs=$(mktemp -d /tmp/real-apps-XXXX)
wait_for() { # url, seconds
  for _ in $(seq "$2"); do curl -sf -o /dev/null "$1" && return 0; sleep 1; done
  say "$1 did not answer in $2 s (logs: $logs)"; return 1
}
export TOKENS_FILE="$logs/answer.json"
node scripts/real-apps/answer.mjs "$TOKENS_FILE"
node -e "console.log(JSON.stringify(Array.from({length: 40}, (_, i) => 'word' + i + ' ')))" > "$logs/gradio-answer.json"
node -e "import('./scripts/sim.mjs').then((m) => console.log(JSON.stringify(m.answerTokens(40, 1))))" > "$logs/owui-answer.json"
here=$(pwd)
# Each app in a fresh folder of its own (Chainlit writes .chainlit/ and .files/ where it runs).
run_app() { # name, command...
  local name=$1; shift
  mkdir -p "$logs/$name"
  (cd "$logs/$name" && exec "$@") > "$logs/$name.log" 2>&1 & pids+=($!)
}
PORT=8099 node scripts/real-apps/openai-server.mjs > "$logs/openai.log" 2>&1 & pids+=($!)
PORT=8766 CDN_DIR="$APPS/solara-cdn" node scripts/real-apps/cdn.mjs > "$logs/cdn.log" 2>&1 & pids+=($!)
PORT=8080 OPENAI_URL=http://127.0.0.1:8099/v1 bash scripts/real-apps/open-webui.sh > "$logs/open-webui.log" 2>&1 & pids+=($!)
run_app gradio env PORT=7860 "$APPS/gradio/bin/python" "$here/scripts/real-apps/gradio_app.py"
run_app chainlit "$APPS/chainlit/bin/chainlit" run "$here/scripts/real-apps/chainlit_app.py" --headless --host 127.0.0.1 --port 8000
run_app streamlit "$APPS/streamlit/bin/streamlit" run "$here/scripts/real-apps/streamlit_app.py" --server.headless true --server.address 127.0.0.1 --server.port 8501 --browser.gatherUsageStats false
run_app nicegui env PORT=8200 "$APPS/nicegui/bin/python" "$here/scripts/real-apps/nicegui_app.py"
run_app mesop "$APPS/mesop/bin/mesop" "$here/scripts/real-apps/mesop_app.py" --port 32123
run_app marimo "$APPS/marimo/bin/marimo" run "$here/scripts/real-apps/marimo_app.py" --headless --host 127.0.0.1 --port 2718 --no-token
run_app solara env SOLARA_ASSETS_CDN=http://127.0.0.1:8766/ "$APPS/solara/bin/solara" run "$here/scripts/real-apps/solara_app.py" --host 127.0.0.1 --port 8765 --production --no-open
run_app shiny "$APPS/shiny/bin/shiny" run "$here/scripts/real-apps/shiny_app.py" --host 127.0.0.1 --port 8300
run_app panel "$APPS/panel/bin/panel" serve "$here/scripts/real-apps/panel_app.py" --address 127.0.0.1 --port 5006 --allow-websocket-origin=127.0.0.1:5006
run_app rio env PORT=8400 "$APPS/rio/bin/python" "$here/scripts/real-apps/rio_app.py"
run_app pywebio env PORT=8500 "$APPS/pywebio/bin/python" "$here/scripts/real-apps/pywebio_app.py"
run_app waved bash -c "cd '$APPS/wave' && exec ./waved -listen 127.0.0.1:10101 -web-dir ./www"
run_app wave bash -c "sleep 2; cd '$here/scripts/real-apps' && H2O_WAVE_ADDRESS=http://127.0.0.1:10101 H2O_WAVE_APP_ADDRESS=http://127.0.0.1:8601 exec '$APPS/wave/bin/wave' run --no-reload wave_app"
run_app fasthtml env PORT=5001 "$APPS/fasthtml/bin/python" "$here/scripts/real-apps/fasthtml_app.py"
wait_for http://127.0.0.1:8099/v1/models 20
for port in 7860 8000 8501 8200 32123 2718 8765 8300 5006 8400 8500 10101 5001; do wait_for "http://127.0.0.1:$port/" 90; done
wait_for http://127.0.0.1:8080/api/version 120
say "apps up: Open WebUI $(curl -s http://127.0.0.1:8080/api/version), Gradio $GRADIO_VERSION, Chainlit $CHAINLIT_VERSION, Streamlit $STREAMLIT_VERSION, NiceGUI $NICEGUI_VERSION, Mesop $MESOP_VERSION, marimo $MARIMO_VERSION, Solara $SOLARA_VERSION, Shiny $SHINY_VERSION, Panel $PANEL_VERSION, Rio $RIO_VERSION, PyWebIO $PYWEBIO_VERSION, Wave $WAVE_VERSION, FastHTML $FASTHTML_VERSION"

if [ "${1:-}" = "up" ]; then
  say "logs in $logs; TOKENS_FILE=$TOKENS_FILE; stop with Ctrl-C"
  wait
fi

if [ "${1:-}" = "--record" ]; then
  R=tests/recordings
  node scripts/record-app.mjs gradio http://127.0.0.1:7860/ "$R/gradio-$GRADIO_VERSION.json" --version="$GRADIO_VERSION" --answer="$logs/gradio-answer.json"
  node scripts/record-app.mjs open-webui http://127.0.0.1:8080/ "$R/open-webui-$OPEN_WEBUI_VERSION.json" --version="$OPEN_WEBUI_VERSION" --answer="$logs/owui-answer.json"
  node scripts/record-app.mjs chainlit http://127.0.0.1:8000/ "$R/chainlit-$CHAINLIT_VERSION.json" --version="$CHAINLIT_VERSION" --answer="$TOKENS_FILE"
  node scripts/record-app.mjs streamlit http://127.0.0.1:8501/ "$R/streamlit-$STREAMLIT_VERSION.json" --version="$STREAMLIT_VERSION" --answer="$TOKENS_FILE"
  node scripts/record-app.mjs nicegui http://127.0.0.1:8200/ "$R/nicegui-$NICEGUI_VERSION.json" --version="$NICEGUI_VERSION" --answer="$TOKENS_FILE"
  node scripts/record-app.mjs mesop http://127.0.0.1:32123/ "$R/mesop-$MESOP_VERSION.json" --version="$MESOP_VERSION" --answer="$TOKENS_FILE"
  node scripts/record-app.mjs marimo http://127.0.0.1:2718/ "$R/marimo-$MARIMO_VERSION.json" --version="$MARIMO_VERSION" --answer="$TOKENS_FILE"
  node scripts/record-app.mjs solara http://127.0.0.1:8765/ "$R/solara-$SOLARA_VERSION.json" --version="$SOLARA_VERSION" --answer="$TOKENS_FILE"
  node scripts/record-app.mjs shiny http://127.0.0.1:8300/ "$R/shiny-$SHINY_VERSION.json" --version="$SHINY_VERSION" --answer="$TOKENS_FILE"
  node scripts/record-app.mjs panel http://127.0.0.1:5006/ "$R/panel-$PANEL_VERSION.json" --version="$PANEL_VERSION" --answer="$TOKENS_FILE"
  node scripts/record-app.mjs rio http://127.0.0.1:8400/ "$R/rio-$RIO_VERSION.json" --version="$RIO_VERSION" --answer="$TOKENS_FILE"
  node scripts/record-app.mjs pywebio http://127.0.0.1:8500/ "$R/pywebio-$PYWEBIO_VERSION.json" --version="$PYWEBIO_VERSION" --answer="$TOKENS_FILE"
  node scripts/record-app.mjs wave http://127.0.0.1:10101/ "$R/wave-$WAVE_VERSION.json" --version="$WAVE_VERSION" --answer="$TOKENS_FILE"
  node scripts/record-app.mjs fasthtml http://127.0.0.1:5001/ "$R/fasthtml-$FASTHTML_VERSION.json" --version="$FASTHTML_VERSION" --answer="$TOKENS_FILE"
  exit 0
fi

rc=0
node tests/realapps/check.mjs || rc=1
node tests/realapps/check.mjs --readers=off || rc=1
if [ "${1:-}" = "apps" ]; then exit $rc; fi
# The apps leave the cores to the real server.
cleanup
pids=()
node tests/realapps/llama.mjs || rc=1
streamdown || rc=1
exit $rc
