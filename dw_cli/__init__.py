"""The ``dw`` command line and its benchmarks: the top floor, importing every room below it."""
