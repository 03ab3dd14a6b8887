"""Held out (issue 34): a 2-layer LSTM in FP32 (TF32 off), hidden 1024, batch 64 x 32
steps: cuDNN's recurrent kernels and FP32 GEMMs on the CUDA cores."""
import torch
from _measure import measure

torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
model = torch.nn.LSTM(1024, 1024, num_layers=2, batch_first=True).cuda().eval()
x = torch.randn(64, 32, 1024, device="cuda")
with torch.no_grad():
    measure(lambda: model(x))
