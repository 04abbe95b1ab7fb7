from jax._src.lib.mlir.dialects import hlo

from pkg.channels import _get_channel


def psum_lowering(ctx, x, *, axes):
    return hlo.AllReduceOp(x, axes, channel_handle=_get_channel(ctx))


def pmax_lowering(ctx, x, *, axes):
    return hlo.AllReduceOp(x, axes, channel_handle=_get_channel(ctx.replace(primitive="pmax")))
