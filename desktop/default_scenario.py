"""What the app shows before anyone changes it (DESIGN.md, presenter standard).

Llama 3.1 70B at FP16 on two H800s: a configuration that fits and runs, so no
scene quotes times for a model that cannot be loaded. That the same model does
not fit on one card is scene 2's what-if. Qt-free: settings read it before Qt starts.
"""
from __future__ import annotations

from engine import Scenario

DEFAULT_SCENARIO = Scenario(gpus=2)
