# An H2O Wave 1.8 chat (`ui.chatbot_card`): the question appended to the card's data, an empty
# row for the answer, then the last row set to the answer so far a token every TOKEN_MS ms (20),
# as Wave's chatbot examples stream (scripts/real-apps/answer.mjs). No model. Wave's own server
# (waved, shipped in the h2o-wave wheel) serves the page; this app talks to it.
#   TOKENS_FILE=answer.json H2O_WAVE_ADDRESS=http://127.0.0.1:10101 wave run --no-reload .../wave_app.py
import asyncio
import json
import os

from h2o_wave import Q, app, data, main, ui  # noqa: F401 (main: the app's ASGI entry)

TOKENS = json.load(open(os.environ["TOKENS_FILE"]))
TOKEN_MS = float(os.environ.get("TOKEN_MS", "20"))


@app("/")
async def serve(q: Q):
    if not q.client.initialized:
        q.page["chat"] = ui.chatbot_card(box="1 1 6 8", data=data(fields="content from_user", t="list"), name="chatbot", placeholder="Say something")
        q.client.initialized = True
    if q.args.chatbot:
        q.page["chat"].data += [q.args.chatbot, True]
        q.page["chat"].data += ["", False]
        text = ""
        for tok in TOKENS:
            await asyncio.sleep(TOKEN_MS / 1000)
            text += tok
            q.page["chat"].data[-1] = [text, False]
            await q.page.save()
    await q.page.save()
