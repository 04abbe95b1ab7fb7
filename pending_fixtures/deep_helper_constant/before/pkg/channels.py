"""Channels of the collective lowerings."""

from jax.interpreters import mlir

from pkg.flags import USE_SHARDY


def _get_channel(ctx):
    """The channel a collective lowers with."""
    if USE_SHARDY:
        return mlir.COLLECTIVE_CHANNEL_ID
    return ctx.module_context.new_channel()


def all_gather_lowering(ctx, x, *, axis):
    channel = _get_channel(ctx)
    return mlir.all_gather(x, axis, channel=channel)
