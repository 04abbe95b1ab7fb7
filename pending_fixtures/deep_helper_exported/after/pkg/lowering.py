from jax._src.lib.mlir.dialects import hlo

from pkg.channels import get_channel


def psum_lowering(ctx, x, *, axes):
    return hlo.AllReduceOp(x, axes, channel_handle=get_channel(ctx))
