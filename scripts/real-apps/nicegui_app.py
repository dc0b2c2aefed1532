# A NiceGUI 3.18 chat: ui.chat_message bubbles, the answer a ui.markdown inside one, its content
# grown a token every TOKEN_MS ms (20) as NiceGUI's chat examples stream (scripts/real-apps/
# answer.mjs). No model.
#   TOKENS_FILE=answer.json PORT=8200 python .../nicegui_app.py
import asyncio
import json
import os

from nicegui import ui

TOKENS = json.load(open(os.environ["TOKENS_FILE"]))
TOKEN_MS = float(os.environ.get("TOKEN_MS", "20"))


@ui.page("/")
def index():
    messages = ui.column().classes("w-full max-w-2xl mx-auto")

    async def send():
        question = text.value
        text.value = ""
        with messages:
            ui.chat_message(question, name="You", sent=True)
            with ui.chat_message(name="Bot"):
                answer = ui.markdown("")
        for tok in TOKENS:
            await asyncio.sleep(TOKEN_MS / 1000)
            answer.content += tok

    with ui.footer().classes("bg-white"):
        text = ui.input(placeholder="Say something").props("outlined").classes("w-full").on("keydown.enter", send)


ui.run(host="127.0.0.1", port=int(os.environ.get("PORT", "8200")), reload=False, show=False)
