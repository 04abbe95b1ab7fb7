"""Feature switches of the lowering."""

LOG_LOWERING = False
