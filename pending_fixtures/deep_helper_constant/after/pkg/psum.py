"""Lowering of psum."""

from jax.interpreters import mlir


def psum_lowering(ctx, x, *, axes):
    return mlir.all_reduce(x, axes, channel=mlir.COLLECTIVE_CHANNEL_ID)
