# A Rio 0.12 chat: the question and the answer as `rio.Markdown` components in a column, the
# answer's text grown a token every TOKEN_MS ms (20) inside the confirm handler, each step sent
# with `force_refresh` (Rio's way to update while a handler runs; scripts/real-apps/answer.mjs).
# No model.
#   TOKENS_FILE=answer.json PORT=8400 python .../rio_app.py
import asyncio
import json
import os

import rio

TOKENS = json.load(open(os.environ["TOKENS_FILE"]))
TOKEN_MS = float(os.environ.get("TOKEN_MS", "20"))


class Chat(rio.Component):
    turns: list = []
    draft: str = ""

    async def on_confirm(self, ev: rio.TextInputConfirmEvent) -> None:
        question = ev.text
        self.draft = ""
        self.turns = self.turns + [("You", question), ("Bot", "")]
        text = ""
        for tok in TOKENS:
            await asyncio.sleep(TOKEN_MS / 1000)
            text += tok
            self.turns = self.turns[:-1] + [("Bot", text)]
            await self.force_refresh()

    def build(self) -> rio.Component:
        return rio.Column(
            *[rio.Markdown(f"**{who}:** {text}" if who == "You" else text) for who, text in self.turns],
            rio.TextInput(self.bind().draft, label="Say something", on_confirm=self.on_confirm),
            spacing=1,
            margin=2,
        )


app = rio.App(build=Chat)
app.run_as_web_server(host="127.0.0.1", port=int(os.environ.get("PORT", "8400")), quiet=False)
