# A Gradio ChatInterface over a generator that yields the growing answer: one word every
# TOKEN_MS ms (20), TOKENS words (40). No model: the answer is made up, as a model would stream it.
#   PORT=7860 python scripts/real-apps/gradio_app.py
import os
import time

import gradio as gr

TOKENS = int(os.environ.get("TOKENS", "40"))
TOKEN_MS = float(os.environ.get("TOKEN_MS", "20"))


def answer(message, history):
    out = ""
    for i in range(TOKENS):
        time.sleep(TOKEN_MS / 1000)
        out += f"word{i} "
        yield out


gr.ChatInterface(answer).launch(server_name="127.0.0.1", server_port=int(os.environ.get("PORT", "7860")))
