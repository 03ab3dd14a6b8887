"""A Llama-style decoder (RMSNorm, SwiGLU, rotary), 1 layer, hidden 2048, bf16, batch 4 x 512."""
import torch
from transformers import LlamaConfig, LlamaModel
from _measure import measure

cfg = LlamaConfig(hidden_size=2048, intermediate_size=5632, num_hidden_layers=1,
                  num_attention_heads=16, num_key_value_heads=16, vocab_size=32000,
                  attn_implementation="sdpa")
model = LlamaModel(cfg).cuda().to(torch.bfloat16).eval()
ids = torch.randint(0, cfg.vocab_size, (4, 512), device="cuda")
with torch.no_grad():
    measure(lambda: model(input_ids=ids))
