"""The rewrite passes: each a LibCST transformer in its own module, composed by rewriter.py."""
