"""A JAX/XLA MLP forward (jit, bf16, batch 8192, 1024 -> 4096 -> 1024, GELU, layer norm)."""
import os
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
import jax
import jax.numpy as jnp
from _measure import measure  # NVTX through torch's binding (no CUDA use from torch)

k = jax.random.split(jax.random.PRNGKey(0), 4)
d, h, n = 1024, 4096, 8192
w1 = jax.random.normal(k[0], (d, h), jnp.bfloat16) * 0.02
w2 = jax.random.normal(k[1], (h, d), jnp.bfloat16) * 0.02
x = jax.random.normal(k[2], (n, d), jnp.bfloat16)


@jax.jit
def mlp(x):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    y = (x - m) * jax.lax.rsqrt(v + 1e-5)
    return x + jax.nn.gelu(y @ w1) @ w2


measure(lambda: mlp(x).block_until_ready())
