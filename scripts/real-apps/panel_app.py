# A Panel 1.10 chat (`pn.chat.ChatInterface`): the callback yields the answer so far, a token
# every TOKEN_MS ms (20), as Panel's chat examples stream (scripts/real-apps/answer.mjs). No model.
#   TOKENS_FILE=answer.json panel serve .../panel_app.py --port 5006
import asyncio
import json
import os

import panel as pn

pn.extension()

TOKENS = json.load(open(os.environ["TOKENS_FILE"]))
TOKEN_MS = float(os.environ.get("TOKEN_MS", "20"))


async def callback(contents, user, instance):
    text = ""
    for tok in TOKENS:
        await asyncio.sleep(TOKEN_MS / 1000)
        text += tok
        yield text


pn.chat.ChatInterface(callback=callback).servable()
