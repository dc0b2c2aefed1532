# A Solara 1.64 chat (solara.lab.ChatBox, ChatMessage, ChatInput) as Solara's own chatbot example
# streams: a task appends each token to the last message, a token every TOKEN_MS ms (20), of a
# fixed answer (scripts/real-apps/answer.mjs). No model.
#   TOKENS_FILE=answer.json solara run .../solara_app.py --host 127.0.0.1 --port 8765 --production
import asyncio
import json
import os
from typing import List

from typing_extensions import TypedDict

import solara
import solara.lab

TOKENS = json.load(open(os.environ["TOKENS_FILE"]))
TOKEN_MS = float(os.environ.get("TOKEN_MS", "20"))


class MessageDict(TypedDict):
    role: str
    content: str


messages: solara.Reactive[List[MessageDict]] = solara.reactive([])


@solara.lab.task
async def answer(message: str):
    messages.value = [*messages.value, {"role": "user", "content": message}]
    messages.value = [*messages.value, {"role": "assistant", "content": ""}]
    for tok in TOKENS:
        await asyncio.sleep(TOKEN_MS / 1000)
        last = messages.value[-1]
        messages.value = [*messages.value[:-1], {"role": "assistant", "content": last["content"] + tok}]


@solara.component
def Page():
    with solara.Column(style={"width": "100%", "height": "50vh"}):
        with solara.lab.ChatBox():
            for item in messages.value:
                with solara.lab.ChatMessage(user=item["role"] == "user", avatar=False, name="Bot" if item["role"] == "assistant" else "User"):
                    solara.Markdown(item["content"])
        solara.lab.ChatInput(send_callback=answer, disabled_send=answer.pending, autofocus=True).key("input")
