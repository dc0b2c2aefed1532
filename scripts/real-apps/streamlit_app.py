# A Streamlit 1.67 chat (st.chat_input, st.chat_message, st.write_stream) that streams a fixed
# answer (scripts/real-apps/answer.mjs), one token every TOKEN_MS ms (20), as Streamlit's chat
# tutorial does. The conversation is kept in the session, as apps keep it. No model.
#   TOKENS_FILE=answer.json streamlit run .../streamlit_app.py --server.headless true --server.port 8501
import json
import os
import time

import streamlit as st

TOKENS = json.load(open(os.environ["TOKENS_FILE"]))
TOKEN_MS = float(os.environ.get("TOKEN_MS", "20"))

if "messages" not in st.session_state:
    st.session_state.messages = []
for m in st.session_state.messages:
    with st.chat_message(m["role"]):
        st.markdown(m["content"])

if prompt := st.chat_input("Say something"):
    st.session_state.messages.append({"role": "user", "content": prompt})
    with st.chat_message("user"):
        st.markdown(prompt)

    def answer():
        for tok in TOKENS:
            time.sleep(TOKEN_MS / 1000)
            yield tok

    with st.chat_message("assistant"):
        text = st.write_stream(answer())
    st.session_state.messages.append({"role": "assistant", "content": text})
