"""The summary: the seed's four questions as a self-check, each answer linked back to its scene.

``story`` decides, ``view`` shows.
"""
