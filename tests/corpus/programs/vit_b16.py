"""ViT-B/16 shapes, 2 layers, bf16, batch 32 images of 224 x 224."""
import torch
from transformers import ViTConfig, ViTModel
from _measure import measure

cfg = ViTConfig(num_hidden_layers=2, attn_implementation="sdpa")
model = ViTModel(cfg).cuda().to(torch.bfloat16).eval()
x = torch.randn(32, 3, 224, 224, device="cuda", dtype=torch.bfloat16)
with torch.no_grad():
    measure(lambda: model(pixel_values=x))
