"""Held out (issue 34): a Llama-style model, 2 layers, hidden 2048, bf16, decoding one token
for a batch of 4 after a 512-token prompt (KV cache): matrix-vector shaped GEMMs."""
import torch
from transformers import LlamaConfig, LlamaForCausalLM
from _measure import measure

cfg = LlamaConfig(hidden_size=2048, intermediate_size=5632, num_hidden_layers=2,
                  num_attention_heads=16, num_key_value_heads=4, vocab_size=32000,
                  attn_implementation="sdpa")
model = LlamaForCausalLM(cfg).cuda().to(torch.bfloat16).eval()
ids = torch.randint(0, cfg.vocab_size, (4, 512), device="cuda")
with torch.no_grad():
    out = model(input_ids=ids, use_cache=True)
    cache = out.past_key_values
    nxt = out.logits[:, -1:].argmax(-1)
    length = cache.get_seq_length()

    def step():
        # the same position each time: the cache is cut back to the prompt
        cache.crop(length)
        model(input_ids=nxt, past_key_values=cache, use_cache=True)

    measure(step)
