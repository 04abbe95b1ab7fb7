"""A line now and then while one piece of work takes long, so that a run over a huge file is
seen to be alive, on a terminal or in a CI log alike."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

Say = Callable[[str], None]  # one line for the user, on stderr

FIRST_AFTER = 2.0  # seconds of one piece of work before the first line
THEN_EVERY = 10.0


@contextlib.contextmanager
def heartbeat(
    say: Say | None, what: str, first: float = FIRST_AFTER, every: float = THEN_EVERY
) -> Iterator[None]:
    """Say `what` and the time spent so far once the work inside has taken `first` seconds, then
    every `every` seconds until it ends; nothing for work that ends sooner."""
    if say is None:
        yield
        return
    done = threading.Event()
    start = time.monotonic()

    def beat() -> None:
        wait = first
        while not done.wait(wait):
            say(f"{what}: {time.monotonic() - start:.0f} s so far")
            wait = every

    thread = threading.Thread(target=beat, name="prune-flags heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
