"""A small llama-architecture model for a real llama-server: random weights (it writes nonsense,
at the speed of a real model of its size), the tokenizer of llama.cpp's own vocabulary test file
(models/ggml-vocab-llama-spm.gguf in its sources) and a ChatML template. No model can be
downloaded here; the timing of a server is what the real-server checks need, not its words.

Usage: tiny_model.py VOCAB.gguf OUT.gguf [n_embd n_layer]
"""
import sys

import gguf
import numpy as np


def main():
    vocab_path, out = sys.argv[1], sys.argv[2]
    n_embd = int(sys.argv[3]) if len(sys.argv) > 3 else 768
    n_layer = int(sys.argv[4]) if len(sys.argv) > 4 else 12
    n_head, n_ff, ctx = 12, n_embd * 8 // 3 // 64 * 64, 4096
    vocab = gguf.GGUFReader(vocab_path)

    def field(name):
        return vocab.fields[name].contents()

    tokens = field("tokenizer.ggml.tokens")
    w = gguf.GGUFWriter(out, "llama")
    w.add_name("tokenpaint-tiny")
    w.add_context_length(ctx)
    w.add_embedding_length(n_embd)
    w.add_block_count(n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_dimension_count(n_embd // n_head)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    w.add_vocab_size(len(tokens))
    w.add_tokenizer_model(field("tokenizer.ggml.model"))
    w.add_tokenizer_pre(field("tokenizer.ggml.pre"))
    w.add_token_list(tokens)
    w.add_token_scores(field("tokenizer.ggml.scores"))
    w.add_token_types(field("tokenizer.ggml.token_type"))
    w.add_bos_token_id(field("tokenizer.ggml.bos_token_id"))
    w.add_eos_token_id(field("tokenizer.ggml.eos_token_id"))
    w.add_unk_token_id(field("tokenizer.ggml.unknown_token_id"))
    w.add_add_bos_token(True)
    w.add_chat_template(
        "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
        "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    rng = np.random.default_rng(48)

    def mat(rows, cols):
        return (rng.standard_normal((rows, cols), dtype=np.float32) * 0.02).astype(np.float16)

    ones = np.ones(n_embd, dtype=np.float32)
    w.add_tensor("token_embd.weight", mat(len(tokens), n_embd))
    for i in range(n_layer):
        b = f"blk.{i}."
        w.add_tensor(b + "attn_norm.weight", ones)
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.add_tensor(b + name + ".weight", mat(n_embd, n_embd))
        w.add_tensor(b + "ffn_norm.weight", ones)
        w.add_tensor(b + "ffn_gate.weight", mat(n_ff, n_embd))
        w.add_tensor(b + "ffn_up.weight", mat(n_ff, n_embd))
        w.add_tensor(b + "ffn_down.weight", mat(n_embd, n_ff))
    w.add_tensor("output_norm.weight", ones)
    w.add_tensor("output.weight", mat(len(tokens), n_embd))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main()
