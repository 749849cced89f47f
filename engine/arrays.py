"""numpy only where an array is given: the report path stays plain Python, so a program that asks for one report
(the desktop app's first frame, ``python -m engine report``) never waits for numpy to load (about 100 ms).

The functions that also take arrays (a sweep's contexts, a plot's intensities) ask ``numpy_of(value)``: numpy
when ``value`` is one of its arrays (then numpy is loaded already: the caller made the array), else None.
"""
from __future__ import annotations

import numbers
import sys


def numpy_of(*values):
    """The numpy module when any of ``values`` is a numpy array, else None (never imports numpy)."""
    np = sys.modules.get("numpy")
    if np is not None and any(isinstance(value, np.ndarray) for value in values):
        return np
    return None


def is_real_number(value) -> bool:
    """True for an int or float, numpy's scalars included, but not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)
