import logging

from jax.interpreters import mlir

logger = logging.getLogger(__name__)


def _get_channel(ctx):
    return mlir.next_channel_id()


def _get_groups(ctx):
    logger.debug("shardy groups")
    return mlir.DEFAULT_GROUPS
