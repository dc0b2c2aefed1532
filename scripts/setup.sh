#!/usr/bin/env bash
# Idempotent set-up for a fresh machine: quiet when everything is already present.
# Installs: the wasm32 Rust target, wasm-bindgen-cli at the crate's pinned version, the npm
# dev dependencies, and Debian's Chromium + ChromeDriver, Firefox ESR, and WebKitGTK's
# WebKitWebDriver with its MiniBrowser and Xvfb (as root on Debian), nginx for proxy tests.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION="0.2.130"   # must equal the `wasm-bindgen = "=…"` pin in Cargo.toml
say() { echo "setup: $*" >&2; }

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown >/dev/null
fi

have_bindgen() { command -v wasm-bindgen >/dev/null && [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$WASM_BINDGEN_VERSION" ]; }
if ! have_bindgen || ! command -v wasm-bindgen-test-runner >/dev/null; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 1 minute)"
  # No --locked: the registry here lacks one locked dependency version, and the install fails.
  # Unoptimised: it compiles in 62 s instead of 135 s on two cores, and its output is the same
  # bytes; it runs 0.5 s instead of 0.15 s on a 2 MB app.
  CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256 CARGO_PROFILE_RELEASE_DEBUG=false \
    cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force >/dev/null
fi

need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
[ -x /usr/bin/chromedriver ] || need_apt+=(chromium-driver)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need_apt+=(nginx-light)
[ -x /usr/bin/firefox-esr ] || need_apt+=(firefox-esr)
# WebKitGTK with its recommended packages (GLib networking, GStreamer): the set the WebKit tests
# were written against.
need_webkit=()
[ -x /usr/bin/WebKitWebDriver ] || need_webkit+=(webkit2gtk-driver)
command -v Xvfb >/dev/null || need_webkit+=(xvfb)
if [ ${#need_apt[@]} -gt 0 ] || [ ${#need_webkit[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing ${need_apt[*]} with apt"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    if [ ${#need_apt[@]} -gt 0 ]; then
      apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
    fi
    if [ ${#need_webkit[@]} -gt 0 ]; then
      say "installing ${need_webkit[*]} with apt (WebKit tests)"
      apt-get install -y -qq "${need_webkit[@]}" >/dev/null
    fi
    # nginx's package starts a service on port 80; the tests start their own instances.
    (command -v systemctl >/dev/null && systemctl stop nginx 2>/dev/null) || true
    (command -v service >/dev/null && service nginx stop >/dev/null 2>&1) || true
  else
    say "missing: ${need_apt[*]} ${need_webkit[*]}. Install them (Debian: apt-get install chromium chromium-driver nginx-light firefox-esr webkit2gtk-driver xvfb) and run again."
    exit 1
  fi
fi

# The official OpenTelemetry protobuf classes, to validate the OTLP export in the tests.
if ! python3 -c "import opentelemetry.proto" 2>/dev/null; then
  say "installing opentelemetry-proto (PyPI)"
  python3 -m pip install -q --disable-pip-version-check opentelemetry-proto==1.45.2 >/dev/null 2>&1 \
    || python3 -m pip install -q --break-system-packages opentelemetry-proto==1.45.2 >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm dev dependencies"
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
