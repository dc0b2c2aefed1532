# A PyWebIO 1.8 chat: the question asked with `input`, then the answer's scope rewritten with
# the markdown so far a token every TOKEN_MS ms (20): `use_scope(clear=True)` + `put_markdown`,
# PyWebIO's way to update output in place (scripts/real-apps/answer.mjs). No model.
#   TOKENS_FILE=answer.json PORT=8500 python .../pywebio_app.py
import asyncio
import json
import os

from pywebio import start_server
from pywebio.input import input as ask
from pywebio.output import put_markdown, put_scope, use_scope

TOKENS = json.load(open(os.environ["TOKENS_FILE"]))
TOKEN_MS = float(os.environ.get("TOKEN_MS", "20"))


async def main():
    put_scope("chat")
    n = 0
    while True:
        question = await ask(placeholder="Say something")
        n += 1
        with use_scope("chat"):
            put_markdown(f"**You:** {question}")
            put_scope(f"answer{n}")
        text = ""
        for tok in TOKENS:
            await asyncio.sleep(TOKEN_MS / 1000)
            text += tok
            with use_scope(f"answer{n}", clear=True):
                put_markdown(text)


# cdn=False: PyWebIO serves its own frontend files (by default it points the page at a CDN).
start_server(main, host="127.0.0.1", port=int(os.environ.get("PORT", "8500")), cdn=False)
