#!/usr/bin/env bash
# Starts Open WebUI (installed by scripts/real-apps.sh in $APPS/openwebui) offline on $PORT, with
# no login and no model of its own, pointed at an OpenAI-compatible server ($OPENAI_URL); the
# title, tag and follow-up generation (extra requests to the model) switched off.
set -euo pipefail
APPS=${APPS:-/opt/tokenpaint-apps}
PORT=${PORT:-8080}
DATA=$(mktemp -d /tmp/owui-data-XXXX)
export DATA_DIR=$DATA OFFLINE_MODE=true HF_HUB_OFFLINE=1 WEBUI_AUTH=False ENABLE_OLLAMA_API=False \
  OPENAI_API_BASE_URL=${OPENAI_URL:-http://127.0.0.1:8099/v1} OPENAI_API_KEY=x \
  RAG_EMBEDDING_ENGINE=openai BYPASS_EMBEDDING_AND_RETRIEVAL=true ENABLE_TITLE_GENERATION=False \
  ENABLE_TAGS_GENERATION=False ENABLE_FOLLOW_UP_GENERATION=False ENABLE_AUTOCOMPLETE_GENERATION=False \
  ENABLE_VERSION_UPDATE_CHECK=False ENABLE_WEBSOCKET_SUPPORT=true WEBUI_SECRET_KEY=tokenpaint
exec "$APPS/openwebui/bin/open-webui" serve --host 127.0.0.1 --port "$PORT"
