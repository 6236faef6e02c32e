"""Benchmarks run by ``dw bench``: each prints its numbers next to a reference measured in the same run."""
