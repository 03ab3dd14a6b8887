"""BERT-base shapes (hidden 768, 12 heads, FFN 3072), 2 layers, bf16, batch 8 x 512: GEMMs
of about one wave on 132 SMs. Random weights, no download."""
import torch
from transformers import BertConfig, BertModel
from _measure import measure

cfg = BertConfig(num_hidden_layers=2, attn_implementation="sdpa")
model = BertModel(cfg).cuda().to(torch.bfloat16).eval()
ids = torch.randint(0, cfg.vocab_size, (8, 512), device="cuda")
with torch.no_grad():
    measure(lambda: model(input_ids=ids))
