"""Designer studies: sweeps over rule variants, their statistics and HTML report, and the exploit finder.

Imports :mod:`training.evaluation` and :mod:`training.distributed`, never the trainer or the exporter.
"""
