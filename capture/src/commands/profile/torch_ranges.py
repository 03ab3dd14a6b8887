"""NVTX ranges for `capture profile --torch-modules`: where in a PyTorch program each kernel
was launched, without a change to the program.

`capture profile` writes this file as `sitecustomize.py` into a folder of its own and puts
that folder first on PYTHONPATH, so every Python process of the profiled program loads it
at start-up. It imports nothing heavy: it waits for the program to import torch (an import
hook), then registers PyTorch's global hooks:

- every `nn.Module` forward gets a start/end range named by the module's place in the
  model (`encoder`, `layer.3`, `attention`: its name under the module whose forward called
  it; the outermost module by its class), inside a range `forward` that the outermost call
  opens;
- its backward gets the same ranges, nested the same way (`backward/Model/encoder/
  layer.3/...`), inside a range `backward` around each `torch.autograd.backward` (and
  `torch.autograd.grad`): begun when the gradient of the module's output is ready (a
  pre-hook on its autograd node), ended when the gradients of its inputs are (tensor
  hooks), when a module outside it begins (a module none of whose inputs needs a gradient
  ends so, or with the backward call) (siblings that read the same input, such as attention's query, key and
  value, follow one another rather than nest);
- every optimizer step gets `optimizer` and the optimizer's class;
- with CAPTURE_TORCH_OPS=1 (`--torch-ops`), every aten op also gets a push/pop range
  (`torch.autograd.profiler.emit_nvtx`).

Start/end ranges (`torch.cuda.nvtx.range_start`) are process-wide: PyTorch runs the backward
pass on its autograd engine's thread, outside any push/pop range the main thread opened,
and a start/end range still holds those launches. ncu records the ranges with `--nvtx`,
which `capture profile` always passes; the artifact keeps each launch's ranges and
`capture table --by range` adds them up (docs/nvtx.md).

After installing its import hook this file loads any other `sitecustomize` on the path, so
an environment's own stays in force.
"""

import importlib.abc
import importlib.util
import os
import sys
import threading
import weakref

_HERE = os.path.dirname(os.path.abspath(__file__))
_OPS = os.environ.get("CAPTURE_TORCH_OPS") == "1"


def _tensors(value, depth=0):
    """The tensors in a module's inputs or outputs: a tensor, or tensors in tuples, lists,
    dicts (Hugging Face's ModelOutput is one) to three levels."""
    if depth > 3:
        return
    if _is_tensor(value):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _tensors(v, depth + 1)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v, depth + 1)


_is_tensor = None


class _Ranges:
    """Start/end ranges through torch.cuda.nvtx; off, with one line on stderr, where this
    torch has no NVTX (a CPU-only build)."""

    def __init__(self, nvtx):
        self.nvtx = nvtx
        self.on = True

    def start(self, name):
        if not self.on:
            return None
        try:
            return self.nvtx.range_start(name)
        except Exception as e:  # noqa: BLE001 - any failure turns the ranges off, once
            self.on = False
            sys.stderr.write(f"capture --torch-modules: no NVTX ranges ({e})\n")
            return None

    def end(self, rid):
        if rid is not None and self.on:
            self.nvtx.range_end(rid)


def _install(torch):
    global _is_tensor
    import torch.cuda.nvtx
    from torch.nn.modules import module as nn_module

    _is_tensor = torch.is_tensor
    ranges = _Ranges(torch.cuda.nvtx)
    names = weakref.WeakKeyDictionary()
    local = threading.local()
    lock = threading.Lock()

    def stack():
        s = getattr(local, "stack", None)
        if s is None:
            s = local.stack = []
        return s

    def name_of(module, parent):
        name = names.get(module)
        if name is None:
            if parent is not None:
                name = next(
                    (n for n, m in parent.named_modules() if m is module and n), None
                )
            if name is None:
                name = type(module).__name__
            names[module] = name
        return name

    def forward_pre(module, args):
        s = stack()
        ids = [] if s else [ranges.start("forward")]
        name = name_of(module, s[-1][0] if s else None)
        ids.append(ranges.start(name))
        s.append((module, ids, (s[-1][2] if s else ()) + (name,)))

    def forward_post(module, args, output):
        s = stack()
        # Down to this module's entry: a forward that raised left its children's open.
        while s:
            m, ids, path = s.pop()
            for rid in reversed(ids):
                ranges.end(rid)
            if m is module:
                break
        else:
            return
        if torch.is_grad_enabled():
            mark_backward(module, args, output, path)

    # The backward pass's module ranges, a stack of (path, range id) shared by every
    # thread (the autograd engine's runs the pass): a module's range begins when the
    # gradient of its output is ready, after ending every open range that is not one of
    # its ancestors (a sibling that shared its input) and beginning those of its ancestors
    # that are not open; it ends, with any range above it, when the gradients of its inputs
    # are ready. The ranges nest as the forward's do: backward/Model/encoder/layer.3/...
    back = []

    def back_end_above(keep):
        """Ends the open backward ranges from the top down while `keep(path)` is false."""
        while back and not keep(back[-1][0]):
            ranges.end(back.pop()[1])

    def back_begin(path):
        with lock:
            if any(p == path for p, _ in back):
                return  # begun by a module inside it whose output is also its own
            back_end_above(lambda p: p == path[: len(p)])
            for depth in range(len(back), len(path)):
                back.append((path[: depth + 1], ranges.start(path[depth])))

    def back_finish(path):
        with lock:
            if any(p == path for p, _ in back):
                back_end_above(lambda p: p == path[: len(p)] and p != path)

    def mark_backward(module, args, output, path):
        nodes = {id(t.grad_fn): t.grad_fn for t in _tensors(output) if t.grad_fn is not None}
        if not nodes:
            return
        inputs = [t for t in _tensors(args) if t.requires_grad]
        state = {"begun": False, "left": len(inputs)}

        def begin(grad_outputs):
            if not state["begun"]:
                state["begun"] = True
                back_begin(path)
            return None

        def input_ready(grad):
            state["left"] -= 1
            if state["left"] == 0 and state["begun"]:
                back_finish(path)
            return None

        for node in nodes.values():
            node.register_prehook(begin)
        for t in inputs:
            t.register_hook(input_ready)

    def around_backward(original):
        def backward(*args, **kwargs):
            rid = ranges.start("backward")
            try:
                return original(*args, **kwargs)
            finally:
                with lock:
                    back_end_above(lambda p: False)
                ranges.end(rid)

        backward.__wrapped__ = original
        return backward

    nn_module.register_module_forward_pre_hook(forward_pre)
    try:
        nn_module.register_module_forward_hook(forward_post, always_call=True)
    except TypeError:  # torch before 2.1 has no always_call
        nn_module.register_module_forward_hook(forward_post)
    torch.autograd.backward = around_backward(torch.autograd.backward)
    torch.autograd.grad = around_backward(torch.autograd.grad)

    optimizer_ranges = {}

    def step_pre(optimizer, args, kwargs):
        optimizer_ranges[id(optimizer)] = (
            ranges.start("optimizer"),
            ranges.start(type(optimizer).__name__),
        )

    def step_post(optimizer, args, kwargs):
        for rid in reversed(optimizer_ranges.pop(id(optimizer), ())):
            ranges.end(rid)

    from torch.optim import optimizer as optim_module

    optim_module.register_optimizer_step_pre_hook(step_pre)
    optim_module.register_optimizer_step_post_hook(step_post)

    if _OPS:
        torch.autograd.profiler.emit_nvtx().__enter__()


class _WhenTorchLoads(importlib.abc.MetaPathFinder):
    """Installs the hooks once torch's own import has run, whoever imports it."""

    def find_spec(self, name, path, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("torch")
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            try:
                _install(module)
            except Exception as e:  # noqa: BLE001 - the program runs on without ranges
                sys.stderr.write(f"capture --torch-modules: hooks not installed ({e})\n")

        spec.loader.exec_module = exec_module
        return spec


def _load_the_environments_own():
    """Any other sitecustomize on the path (Debian has one), as Python would have loaded."""
    ours = sys.modules.pop("sitecustomize", None)
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    try:
        import sitecustomize  # noqa: F401
    except ImportError:
        pass
    finally:
        sys.path[:] = saved
        if ours is not None:
            sys.modules["capture_torch_ranges"] = ours


if "torch" in sys.modules:
    _install(sys.modules["torch"])
else:
    sys.meta_path.insert(0, _WhenTorchLoads())
_load_the_environments_own()
