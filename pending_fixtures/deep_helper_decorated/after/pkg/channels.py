from jax.interpreters import mlir

from pkg.registry import register


@register("channel")
def _get_channel(ctx):
    return mlir.COLLECTIVE_CHANNEL_ID
