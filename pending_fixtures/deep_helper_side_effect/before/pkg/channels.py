import logging

from jax.interpreters import mlir

logger = logging.getLogger(__name__)
USE_SHARDY = True


def _get_channel(ctx):
    if USE_SHARDY:
        return mlir.next_channel_id()
    return ctx.module_context.new_channel()


def _get_groups(ctx):
    if USE_SHARDY:
        logger.debug("shardy groups")
        return mlir.DEFAULT_GROUPS
    return ctx.replica_groups
