"""Passes: the registry (names -> classes), textual pipelines, the pass manager."""
