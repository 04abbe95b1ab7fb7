"""`prune-flags batch`: one cleanup campaign over many git repositories."""
