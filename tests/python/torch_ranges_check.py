"""Checks `capture profile --torch-modules`'s hooks (capture/src/commands/profile/
torch_ranges.py) on the CPU: a small BERT-shaped model's training step runs with the hooks
installed over a recording NVTX, and every aten op is put under the ranges open when it
ran (a TorchDispatchMode). Checked: each nn.Linear's range holds one matrix multiply in the
forward and two in the backward (its input's and its weight's gradients), under the same
path both ways (backward/Model/layer.1/attention/query mirrors forward/...); attention's
query, key and value follow one another in the backward rather than nest; the optimizer's
ops are under optimizer/AdamW; every range begun is ended.

    python3 tests/python/torch_ranges_check.py   # needs torch (any build; no GPU)

Exits 0 with "ok" and the counts, 1 with what failed; 77 (skipped) where torch is missing.
"""
import collections
import importlib.util
import os
import sys

try:
    import torch
except ImportError:
    print("skipped: no torch")
    sys.exit(77)
from torch.utils._python_dispatch import TorchDispatchMode

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "capture", "src", "commands", "profile", "torch_ranges.py")

# A recording NVTX: the open start/end ranges, in the order begun.
open_ranges = {}
next_id = [0]
ended = set()


def range_start(name):
    next_id[0] += 1
    open_ranges[next_id[0]] = name
    return next_id[0]


def range_end(rid):
    assert rid in open_ranges, f"range {rid} ended twice or never begun"
    ended.add(rid)
    del open_ranges[rid]


import torch.cuda.nvtx  # noqa: E402

torch.cuda.nvtx.range_start = range_start
torch.cuda.nvtx.range_end = range_end
spec = importlib.util.spec_from_file_location("torch_ranges", SRC)
hooks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hooks)  # torch is loaded: the hooks install at once


class Attention(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.query = torch.nn.Linear(d, d)
        self.key = torch.nn.Linear(d, d)
        self.value = torch.nn.Linear(d, d)
        self.dense = torch.nn.Linear(d, d)
        self.norm = torch.nn.LayerNorm(d)

    def forward(self, x):
        b, t, d = x.shape
        split = lambda y: y.view(b, t, self.heads, d // self.heads).transpose(1, 2)  # noqa: E731
        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        a = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, -1) @ v
        return self.norm(x + self.dense(a.transpose(1, 2).reshape(b, t, d)))


class Layer(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.attention = Attention(d, heads)
        self.up = torch.nn.Linear(d, 4 * d)
        self.down = torch.nn.Linear(4 * d, d)
        self.norm = torch.nn.LayerNorm(d)

    def forward(self, x):
        x = self.attention(x)
        return self.norm(x + self.down(torch.nn.functional.gelu(self.up(x))))


class Model(torch.nn.Module):
    def __init__(self, vocab=100, d=32, heads=4, layers=2):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, d)
        self.layer = torch.nn.ModuleList(Layer(d, heads) for _ in range(layers))
        self.decoder = torch.nn.Linear(d, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        for layer in self.layer:
            x = layer(x)
        return self.decoder(x)


MATMULS = {"aten.mm.default", "aten.addmm.default", "aten.bmm.default"}


class Record(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []  # (op name, the open ranges' names in order begun)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append((str(func), tuple(open_ranges[k] for k in sorted(open_ranges))))
        return func(*args, **(kwargs or {}))


torch.manual_seed(0)
model = Model()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
ids = torch.randint(0, 100, (2, 8))
loss_fn = torch.nn.CrossEntropyLoss()
with Record() as rec:
    rid = torch.cuda.nvtx.range_start("step")
    loss = loss_fn(model(ids).flatten(0, 1), ids.flatten())
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    torch.cuda.nvtx.range_end(rid)

failures = []
linears = [n for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)]
# Linear ranges by path: forward/Model/layer.0/attention/query and backward/Model/...
matmuls = collections.Counter()
for op, stack in rec.ops:
    if op in MATMULS and len(stack) >= 3 and stack[1] in ("forward", "backward"):
        matmuls[(stack[1], stack[2:])] += 1
for name in linears:
    # a ModuleList's children are named by the module whose forward calls them: layer.0
    parts = name.split(".")
    joined = []
    i = 0
    while i < len(parts):
        if parts[i] == "layer":
            joined.append(f"layer.{parts[i + 1]}")
            i += 2
        else:
            joined.append(parts[i])
            i += 1
    path = ("Model",) + tuple(joined)
    fwd, bwd = matmuls[("forward", path)], matmuls[("backward", path)]
    if fwd != 1 or bwd != 2:
        failures.append(f"{'/'.join(path)}: {fwd} forward and {bwd} backward matrix multiplies (want 1 and 2)")
# query, key and value follow one another in the backward: no stack holds two of them.
for op, stack in rec.ops:
    if stack[1:2] == ("backward",) and sum(s in ("query", "key", "value") for s in stack) > 1:
        failures.append(f"{op} under {'/'.join(stack)}: siblings nested")
        break
opt_ops = [s for op, s in rec.ops if s[1:2] == ("optimizer",)]
if not opt_ops or any(s[:3] != ("step", "optimizer", "AdamW") for s in opt_ops):
    failures.append(f"optimizer ops: {sorted(set(opt_ops))[:3]}")
outside = [op for op, s in rec.ops if s[1:2] == ("backward",) and len(s) == 2]
if open_ranges:
    failures.append(f"ranges left open: {sorted(open_ranges.values())}")
if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"ok: {len(linears)} Linear ranges with 1 forward and 2 backward matrix multiplies each; "
      f"{len(rec.ops)} ops, {len(opt_ops)} in optimizer/AdamW, {len(outside)} backward ops "
      f"outside every module range; {len(ended)} ranges begun and ended")
