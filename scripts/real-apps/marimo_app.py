# A marimo 0.25 notebook, run as an app: mo.ui.chat over a model that is a generator, which
# marimo streams (each yield a delta), a token every TOKEN_MS ms (20), of a fixed answer
# (scripts/real-apps/answer.mjs). No model.
#   TOKENS_FILE=answer.json marimo run .../marimo_app.py --headless --host 127.0.0.1 --port 2718 --no-token
import marimo

app = marimo.App()


@app.cell
def _():
    import json
    import os
    import time

    import marimo as mo

    TOKENS = json.load(open(os.environ["TOKENS_FILE"]))
    TOKEN_MS = float(os.environ.get("TOKEN_MS", "20"))

    def model(messages, config):
        for tok in TOKENS:
            time.sleep(TOKEN_MS / 1000)
            yield tok

    chat = mo.ui.chat(model, prompts=[])
    chat
    return


if __name__ == "__main__":
    app.run()
