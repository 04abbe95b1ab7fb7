from train.precision import loss_scale


def train_step(model, batch, optimizer):
    hidden = model.encode(batch)
    loss = model.loss(hidden) * loss_scale()
    optimizer.step(loss)
    return loss
