"""Test configuration shared by all tests.

GUI tests run offscreen: no display is needed, and nothing pops up on a
developer's screen. Set before any Qt import so that the platform plugin
is chosen correctly.
"""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
