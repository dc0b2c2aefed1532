# A Shiny 1.8 chat (shinychat 0.7.2's `ui.Chat`): the answer streamed with
# `append_message_stream`, a token every TOKEN_MS ms (20), as Shiny's chat examples stream
# (scripts/real-apps/answer.mjs). No model.
#   TOKENS_FILE=answer.json shiny run .../shiny_app.py --port 8300
import asyncio
import json
import os

from shiny import App, ui

TOKENS = json.load(open(os.environ["TOKENS_FILE"]))
TOKEN_MS = float(os.environ.get("TOKEN_MS", "20"))

app_ui = ui.page_fillable(ui.chat_ui("chat", placeholder="Say something"))


def server(input, output, session):
    chat = ui.Chat(id="chat")

    @chat.on_user_submit
    async def _(user_input: str):
        async def tokens():
            for tok in TOKENS:
                await asyncio.sleep(TOKEN_MS / 1000)
                yield tok

        await chat.append_message_stream(tokens())


app = App(app_ui, server)
