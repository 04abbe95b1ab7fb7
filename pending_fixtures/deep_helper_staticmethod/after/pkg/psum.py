from pkg.lowering import Lowering


def psum_lowering(ctx, x):
    return Lowering().emit(x, channel=0)
