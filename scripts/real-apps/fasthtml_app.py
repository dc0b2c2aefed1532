# A FastHTML 0.14 chat over htmx's WebSocket extension: the form sends the question over the
# socket; the server swaps the question's bubble, a fresh input and the answer's empty bubble into
# the page out of band, then one fragment per token into the bubble (`hx-swap-oob="beforeend"`),
# a token every TOKEN_MS ms (20), as FastHTML's WebSocket chat example streams
# (scripts/real-apps/answer.mjs). No model.
#   TOKENS_FILE=answer.json PORT=5001 python .../fasthtml_app.py
import asyncio
import json
import os

from fasthtml.common import Div, Form, Input, Span, fast_app, serve

TOKENS = json.load(open(os.environ["TOKENS_FILE"]))
TOKEN_MS = float(os.environ.get("TOKEN_MS", "20"))

app, rt = fast_app(exts="ws")
turns = {"n": 0}


def field():
    return Input(id="msg", name="msg", placeholder="Say something", autofocus=True)


@rt("/")
def get():
    return Div(
        Div(id="chatlist"),
        Form(field(), ws_send=True, hx_ext="ws", ws_connect="/wscon"),
    )


@app.ws("/wscon")
async def ws(msg: str, send):
    turns["n"] += 1
    n = turns["n"]
    await send(Div(Div(f"You: {msg}", cls="user"), hx_swap_oob="beforeend", id="chatlist"))
    await send(field())
    await send(Div(Div("", id=f"reply-{n}", cls="bot"), hx_swap_oob="beforeend", id="chatlist"))
    for tok in TOKENS:
        await asyncio.sleep(TOKEN_MS / 1000)
        await send(Span(tok, id=f"reply-{n}", hx_swap_oob="beforeend"))


serve(host="127.0.0.1", port=int(os.environ.get("PORT", "5001")), reload=False)
