"""Feature switches of the lowering."""

# Lower collectives with the Shardy partitioner.
USE_SHARDY = True

LOG_LOWERING = False
