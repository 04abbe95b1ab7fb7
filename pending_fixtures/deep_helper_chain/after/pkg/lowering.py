from jax._src.lib.mlir.dialects import hlo
from jax.interpreters import mlir


def psum_lowering(ctx, x, *, axes):
    return hlo.AllReduceOp(x, axes, channel_handle=mlir.COLLECTIVE_CHANNEL_ID)
