"""Editors the passes share: statement lists, and expressions where they stand."""
