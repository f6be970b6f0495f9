"""Host-side statistics shared by the games' summaries and the scorer (numpy only)."""

from __future__ import annotations

import math

import numpy as np


def se(x: np.ndarray) -> np.ndarray:
    """Standard error of the mean of each column of x float64[H, K] (zeros for one row)."""
    h = x.shape[0]
    return x.std(axis=0, ddof=1) / np.sqrt(h) if h > 1 else np.zeros(x.shape[1:])


def query_stats(samples: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per-query means and standard errors (float32[Q]) of rollout samples [Q, R]."""
    x64 = [np.asarray(x, np.float64) for x in samples]
    means = [x.mean(1).astype(np.float32) for x in x64]
    ses = [(x.std(1, ddof=1) / math.sqrt(x.shape[1])).astype(np.float32) for x in x64]
    return means, ses
