#!/usr/bin/env bash
# Builds llama.cpp's native server (`llama-server`) from the C++ sources vendored in the
# llama-cpp-python sdist on PyPI (the only registry that carries them here), and writes a small
# model for it (scripts/real-apps/tiny_model.py). Idempotent; about 16 minutes on 2 cores the
# first time. Prints the directory that holds `llama-server` and `model.gguf`.
#   APPS (default /opt/tokenpaint-apps): where it goes, under llama/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
LLAMA_CPP_PYTHON_VERSION=0.3.36
dir=${APPS:-/opt/tokenpaint-apps}/llama
src="$dir/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp"
say() { echo "llama-server: $*" >&2; }
command -v cmake >/dev/null || { say "installing cmake"; apt-get install -y -q cmake >/dev/null; }
mkdir -p "$dir"
[ -x "$dir/venv/bin/python" ] || python3 -m venv "$dir/venv"
"$dir/venv/bin/python" -c 'import gguf, numpy' 2>/dev/null \
  || "$dir/venv/bin/pip" install -q --disable-pip-version-check gguf==0.19.0 numpy
if [ ! -d "$src" ]; then
  say "fetching the llama-cpp-python $LLAMA_CPP_PYTHON_VERSION sdist"
  "$dir/venv/bin/pip" download -q --disable-pip-version-check --no-binary llama-cpp-python \
    --no-deps "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" -d "$dir"
  tar xzf "$dir/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz" -C "$dir"
fi
if [ ! -x "$dir/build/bin/llama-server" ]; then
  say "building (about 16 minutes on 2 cores)"
  cmake -S "$src" -B "$dir/build" -DLLAMA_BUILD_SERVER=ON -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DGGML_NATIVE=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$dir/build" --target llama-server -j2 >/dev/null
fi
[ -f "$dir/model.gguf" ] || "$dir/venv/bin/python" "$here/tiny_model.py" \
  "$src/models/ggml-vocab-llama-spm.gguf" "$dir/model.gguf"
echo "$dir"
