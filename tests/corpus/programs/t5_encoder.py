"""A T5-base encoder, 1 layer, bf16, batch 8 x 512."""
import torch
from transformers import T5Config, T5EncoderModel
from _measure import measure

cfg = T5Config(d_model=768, d_ff=3072, num_layers=1, num_heads=12)
model = T5EncoderModel(cfg).cuda().to(torch.bfloat16).eval()
ids = torch.randint(0, cfg.vocab_size, (8, 512), device="cuda")
with torch.no_grad():
    measure(lambda: model(input_ids=ids))
