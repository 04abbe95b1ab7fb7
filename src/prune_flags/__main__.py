"""`prune-flags` and `python -m prune_flags`: a rewriting command starts its LibCST process
first (see `warm`), then the command line is parsed."""

import sys

from prune_flags.workers import warm


def main() -> None:
    if sys.argv[1:2] in (["diff"], ["apply"]):
        warm.start()
    from prune_flags.cli import main as command_line

    command_line()


if __name__ == "__main__":
    main()
