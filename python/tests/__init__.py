"""Tests of the qa_shard package (python -m unittest discover -s python/tests -t python)."""
