"""What the scene knows about this machine's measurement: the session's last result and a probe in progress.

``ProbeState`` is the scene's one control value (``Scene.control_values``):
the last measurement (or None), whether a probe is running, its stage and
share done, and why the last probe stopped (an ``InputError``: one sentence).
The story reads nothing else about the probe.

The session's last measurement is kept here, in memory, for every scene made
in this process (the window's, an export's, the speaker view's preview), so
that "Measure again" replaces it everywhere and an export shows it; it is
never written to disk. Where this session has measured nothing, the file named
by ``INFERENCE_PHYSICS_PROBE_JSON`` (``python -m engine probe --json``'s
output, ``probe_file``) stands in, so that an export or a test can show the
measured builds deterministically without running the probe. Qt-free.
"""
from __future__ import annotations

import os
from dataclasses import replace

from engine.errors import InputError
from engine.frozen import frozen
from engine.probe import STAGES
from engine.probe_result import ProbeResult

PROBE_FILE_VARIABLE = "INFERENCE_PHYSICS_PROBE_JSON"

_latest: ProbeResult | None = None
_from_file: dict[str, ProbeResult | InputError] = {}      # path -> what it held, read once


@frozen
class ProbeState:
    """The probe as the stage shows it."""
    result: ProbeResult | None = None      # the session's last measurement
    running: bool = False
    stage: str = ""                        # the stage running now (one of ``engine.probe.STAGES``), "" before the first
    fraction: float = 0.0                  # of the whole probe done, 0..1
    error: InputError | None = None        # why the last probe stopped, shown in one sentence

    @property
    def measured(self) -> bool:
        return self.result is not None

    def started(self) -> "ProbeState":
        return replace(self, running=True, stage="", fraction=0.0, error=None)

    def progressed(self, stage: str, fraction: float) -> "ProbeState":
        """A progress report: stages come in ``STAGES`` order and the share never goes back."""
        if stage not in STAGES:
            return self
        return replace(self, stage=stage, fraction=max(self.fraction, min(1.0, max(0.0, float(fraction)))))

    def finished(self, result: ProbeResult) -> "ProbeState":
        return ProbeState(result=result)

    def failed(self, error: InputError) -> "ProbeState":
        """The probe stopped: its sentence shown; the earlier measurement (measured then) stays."""
        return ProbeState(result=self.result, error=error)

    def stopped(self) -> "ProbeState":
        """Cancelled (left, or stopped by hand): back to what was shown before it started."""
        return ProbeState(result=self.result)


def keep(result: ProbeResult) -> None:
    """``result`` is the session's measurement from now on."""
    global _latest
    _latest = result


def forget() -> None:
    """No measurement in this session (tests; a new session starts so)."""
    global _latest
    _latest = None


def session_result() -> ProbeResult | None:
    """The session's last measurement, else the one in the file ``INFERENCE_PHYSICS_PROBE_JSON`` names (None
    where there is none, or it cannot be read: ``file_problem`` says why)."""
    if _latest is not None:
        return _latest
    found = _file_result()
    return found if isinstance(found, ProbeResult) else None


def file_problem() -> InputError | None:
    """Why the file ``INFERENCE_PHYSICS_PROBE_JSON`` names cannot be shown (None: no file named, or it can)."""
    found = None if _latest is not None else _file_result()
    return found if isinstance(found, InputError) else None


def session_state() -> ProbeState:
    """The state a scene starts in: the session's measurement (or the file's), or the file's problem."""
    return ProbeState(result=session_result(), error=file_problem())


def _file_result() -> ProbeResult | InputError | None:
    path = os.environ.get(PROBE_FILE_VARIABLE, "").strip()
    if not path:
        return None
    if path not in _from_file:
        from .probe_file import read_probe_file
        try:
            _from_file[path] = read_probe_file(path)
        except InputError as problem:
            _from_file[path] = problem
    return _from_file[path]
