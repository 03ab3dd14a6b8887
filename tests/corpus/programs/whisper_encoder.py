"""Held out (issue 34): a Whisper-base-shaped audio encoder (two 1-D convolutions, 2
transformer layers, hidden 512), bf16, batch 8 x 3000 mel frames, eager attention."""
import torch
from transformers import WhisperConfig
from transformers.models.whisper.modeling_whisper import WhisperEncoder
from _measure import measure

cfg = WhisperConfig(d_model=512, encoder_layers=2, encoder_attention_heads=8,
                    encoder_ffn_dim=2048, num_mel_bins=80, attn_implementation="eager")
model = WhisperEncoder(cfg).cuda().to(torch.bfloat16).eval()
mel = torch.randn(8, 80, 3000, device="cuda", dtype=torch.bfloat16)
with torch.no_grad():
    measure(lambda: model(mel))
