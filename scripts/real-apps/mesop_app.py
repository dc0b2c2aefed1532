# A Mesop 1.3 chat (mesop.labs.chat) whose transform streams a fixed answer (scripts/real-apps/
# answer.mjs), a token every TOKEN_MS ms (20), as Mesop's chat example does. No model.
#   TOKENS_FILE=answer.json mesop .../mesop_app.py --port 32123
import json
import os
import time

import mesop as me
import mesop.labs as mel

TOKENS = json.load(open(os.environ["TOKENS_FILE"]))
TOKEN_MS = float(os.environ.get("TOKEN_MS", "20"))


@me.page(path="/", title="Mesop chat")
def page():
    mel.chat(transform, title="Mesop chat", bot_user="Bot")


def transform(prompt: str, history: list[mel.ChatMessage]):
    for tok in TOKENS:
        time.sleep(TOKEN_MS / 1000)
        yield tok
