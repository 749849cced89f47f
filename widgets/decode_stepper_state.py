"""What the decode stepper draws: the context so far, the model pass that makes the next token, the counters.

Qt-free: plain frozen dataclasses the scene's model fills in and the widget
(``widgets.decode_stepper.DecodeStepper``) draws as handed. Every text arrives
translated and every number formatted; nothing here computes physics.

Two pictures:

- ``"pass"``: the context as a row of token tiles (wrapping), the tiles that
  enter the model this pass outlined, then the model box fed by a belt of
  weights from memory, and the token it produced. The produced token flies
  from the model's output into the context while ``progress`` (0..1 of the
  pass, handed to ``DecodeStepper.set_progress``) runs; the belt moves only
  then. Tiles with role ``"future"`` are the places of tokens that do not
  exist yet (drawn dashed, with ``"?"``).
- ``"compare"``: two rows, prefill and decode, each "inputs -> the same model
  -> one token", with their figures beside the model box.

A token tile is made of parts: whole characters (text), or the bytes of a
character the tokenizer cut, drawn as hex in a dashed box with the character
they belong to beneath when there is room (``TilePart.part_of``).
"""
from __future__ import annotations

from dataclasses import field

from engine.frozen import frozen

ROLES = ("prompt", "answer", "end", "future")


@frozen
class TilePart:
    text: str                  # characters, or the hex of a cut character's bytes ("E6 9D")
    partial: bool = False      # bytes of a character cut by the tokenizer
    part_of: str = ""          # for a partial part: the character it belongs to ("杭"), drawn beneath


@frozen
class TokenTile:
    parts: tuple[TilePart, ...]
    role: str = "prompt"       # one of ROLES
    enters: bool = False       # goes into the model in this pass (outlined)


@frozen
class Counter:
    key: str                   # "step", "bytes", "gpu_time", "screen_time", "kv"
    text: str                  # "Step 3 of 10"


@frozen
class PassRow:
    """One row of the compare picture: what goes in, the model box, what comes out."""
    key: str                   # "prefill" or "decode"
    title: str                 # "Prefill: 15 tokens at once"
    inputs: tuple[TokenTile, ...]
    output: TokenTile
    figures: str               # "139 GB read · 2.06 TFLOP · 31.4 ms"


@frozen
class DecodeStepperState:
    """One frozen picture. ``labels`` keys: ``context`` (the context's title), ``memory`` (the weights'
    warehouse), ``model`` (the model box), ``belt`` (this pass's bytes), ``input`` (what enters),
    ``output`` (what came out), ``banner`` (a misconception's one-line point); ``memory_short`` and
    ``belt_short``: shorter forms drawn where the full ones do not fit."""
    picture: str = "pass"                       # "pass" or "compare"
    tiles: tuple[TokenTile, ...] = ()           # the context, in order
    new_tile: int = -1                          # index in ``tiles`` of the token this pass produced, -1: none
    model_busy: bool = False                    # a pass happened at this build (the belt moves while progress runs)
    counters: tuple[Counter, ...] = ()
    rows: tuple[PassRow, ...] = ()              # the compare picture
    labels: dict[str, str] = field(default_factory=dict)

    def __hash__(self) -> int:                  # labels is a dict: hash what identifies the picture
        return hash((self.picture, self.tiles, self.new_tile, self.model_busy, self.counters, self.rows,
                     tuple(sorted(self.labels.items()))))


def answer_tiles_shown(state: DecodeStepperState) -> int:
    """How many generated answer tokens the context shows (the end marker not counted)."""
    return sum(1 for tile in state.tiles if tile.role == "answer")


def tile_text(tile: TokenTile) -> str:
    """The tile's parts as one line of text (tests and the handout)."""
    return " ".join(part.text for part in tile.parts)
