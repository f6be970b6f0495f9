"""Measurement building blocks of the strategy study (``examples/strategy_study.py``).

Each measurement is a function that returns plain Python numbers (dicts and lists of floats and
ints) with 95% confidence intervals, so the script can write them as JSON and the tests can
check them on tiny runs.
"""
