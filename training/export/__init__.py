"""A checkpoint as an ONNX strategy package: the graphs, their parity with torch, the strength card, install.

Imports :mod:`training.evaluation` (to measure a package) and :mod:`training.distributed`, never the trainer.
"""
