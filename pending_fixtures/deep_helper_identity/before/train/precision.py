from train import settings


def _maybe_cast(tensor, dtype=None):
    """Cast to fp8 when it is on."""
    if settings.enable_fp8:
        tensor = tensor.to(dtype or "float8")
    return tensor


def loss_scale():
    return 1.0
