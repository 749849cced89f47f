"""What the ratio bars draw: labelled horizontal bars on one scale, with an optional reference line.

Qt-free. Scene 6 draws three charts with it: the Chinese/English token ratio
per tokenizer (reference line at 1, "as many tokens as English"), the price of
a million input against a million output tokens (``price_bars_state``; the
summary scene reuses it), and the cost of the same content in Chinese and in
English per tokenizer. Every value arrives computed and every text formatted
and translated; nothing here knows what a token is.

A bar's ``kind`` picks its pattern (``BAR_KINDS``: ``"solid"``, ``"hatched"``, ...), so two
series read apart without colour; ``legend`` names the kinds. Bars are grouped
by ``group_size`` (a gap after each group: Chinese and English of one
tokenizer together). Labels that do not fit at the floor size are dropped in
the order of ``LABEL_PRIORITY`` (last first), never shrunk below the floor.
"""
from __future__ import annotations


from engine.frozen import frozen

# Pattern names (``widgets.bar_paint.KINDS``): one meaning per kind within a picture.
BAR_KINDS = ("solid", "hatched", "crossed", "dotted", "striped", "ruled")
LABEL_PRIORITY = ("title", "label", "value", "reference", "legend", "footer")


@frozen
class Bar:
    label: str                 # left of the bar: what it is ("Qwen2.5", "Output")
    value: float               # its length on the chart's scale (>= 0)
    value_label: str = ""      # right of its end: the value as text ("1.44×", "$2.07")
    kind: str = "solid"        # pattern, one of BAR_KINDS
    role: str = "accent"       # theme colour role


@frozen
class RatioBarsState:
    bars: tuple[Bar, ...]
    title: str = ""
    reference: float | None = None     # a vertical line at this value (ratio 1: "same as English")
    reference_label: str = ""
    legend: tuple[tuple[str, str, str], ...] = ()   # (kind, what it means, colour role)
    footer: str = ""
    footer_role: str = "muted"
    scale_max: float = 0.0             # what the full width stands for; at least the longest bar and the reference
    group_size: int = 1                # bars drawn together before a gap
    max_label_scale: float = 1.3       # labels may grow up to this many times the floor when rows are roomy

    def drawn_max(self) -> float:
        longest = max((bar.value for bar in self.bars), default=0.0)
        return max(self.scale_max, longest, self.reference or 0.0, 1e-12)


def bar_share(state: RatioBarsState, bar: Bar) -> float:
    """How much of the bar area's width ``bar`` takes, 0..1."""
    return max(0.0, bar.value) / state.drawn_max()


def price_bars_state(input_name: str, output_name: str, usd_per_million_input: float,
                     usd_per_million_output: float, input_text: str, output_text: str,
                     title: str = "", footer: str = "", footer_role: str = "muted") -> RatioBarsState:
    """Two bars, the price of a million input tokens (solid) and of a million output tokens (hatched):
    the input/output price chart of scene 6 and of the summary. Texts come formatted ("$0.32")."""
    return RatioBarsState(
        bars=(Bar(input_name, usd_per_million_input, input_text, "solid", "memory"),
              Bar(output_name, usd_per_million_output, output_text, "hatched", "compute")),
        title=title, footer=footer, footer_role=footer_role)
