"""The rewrite of one file with LibCST: the only package that imports it."""
