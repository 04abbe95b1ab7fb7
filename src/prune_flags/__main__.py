from prune_flags.cli import main

main()
