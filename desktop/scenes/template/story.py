"""The template scene's story (Qt-free): where one request's time goes, and what the GPU does meanwhile.

In: the shared scenario's report, the build. Out: the share bars' state, the
caption and note values. Every number is the engine's (``Report``); this module
only picks, formats and arranges them. Tested without Qt in
``tests/desktop/test_template_scene.py``.
"""
from __future__ import annotations

from functools import cached_property

from desktop.kit.story import Story
from engine.units import format_percent, format_seconds
from widgets.share_bars_state import BarPart, BarRow, ShareBarsState


class TemplateStory(Story):
    builds = ("time", "compute")          # one name per build; captions and notes are keyed by them

    def caption_values(self) -> dict[str, str]:
        return self._values

    @cached_property
    def _values(self) -> dict[str, str]:          # worked out once per story: once per change
        report = self.report
        return {
            "decode_share": format_percent(report.decode_share),
            "idle": format_percent(1.0 - report.decode.utilisation),
            "ttft": format_seconds(report.ttft_seconds),
            "decode": format_seconds(report.decode_seconds),
        }

    def bars(self, grow: float = 1.0) -> ShareBarsState:
        """The request's time split into its two phases; from the second build, decode's compute busy and idle."""
        report, values, text = self.report, self._values, self.text
        rows = [BarRow("time", text("label.time"), (
            BarPart("prefill", 1.0 - report.decode_share, text("label.prefill", seconds=values["ttft"]), "compute"),
            BarPart("decode", report.decode_share, text("label.decode", seconds=values["decode"]), "memory",
                    "hatched"),
        ))]
        if self.build_name == "compute":
            rows.append(BarRow("compute", text("label.compute"), (
                BarPart("busy", report.decode.utilisation, text("label.busy"), "compute"),
                BarPart("idle", 1.0 - report.decode.utilisation, text("label.idle", share=values["idle"]), "muted",
                        "dotted"),
            )))
        headline = text("label.headline_" + self.build_name, **values)
        return ShareBarsState(tuple(rows), headline=headline, headline_role="accent", grow=grow)
