"""Scene "Your machine waits too": the computer at hand measured and put on the roofline beside the H800.

Importing this package (or its story) imports no Qt; the view is ``view.py``.
"""
