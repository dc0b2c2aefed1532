# A Chainlit 2.12 chat that streams a fixed answer (scripts/real-apps/answer.mjs), one token every
# TOKEN_MS ms (20), with Chainlit's own streaming API: an empty message, `stream_token` per token,
# then `send`. No model.
#   cd $(mktemp -d) && TOKENS_FILE=answer.json chainlit run .../chainlit_app.py --headless --port 8000
import asyncio
import json
import os

import chainlit as cl

TOKENS = json.load(open(os.environ["TOKENS_FILE"]))
TOKEN_MS = float(os.environ.get("TOKEN_MS", "20"))


@cl.on_message
async def main(message: cl.Message):
    msg = cl.Message(content="")
    for tok in TOKENS:
        await asyncio.sleep(TOKEN_MS / 1000)
        await msg.stream_token(tok)
    await msg.send()
