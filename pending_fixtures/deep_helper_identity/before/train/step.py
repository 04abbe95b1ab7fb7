from train.precision import _maybe_cast, loss_scale


def train_step(model, batch, optimizer):
    hidden = model.encode(batch)
    hidden = _maybe_cast(hidden)
    loss = model.loss(_maybe_cast(hidden, dtype="float8_e4m3")) * loss_scale()
    optimizer.step(loss)
    return loss
