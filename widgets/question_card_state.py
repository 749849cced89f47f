"""What a question card draws: the question, its answer (a picture and one or two lines), a link to its scene.

Qt-free. The card shows one of the summary's questions: alone on the stage
("focus": the question large and centred until its answer is revealed, then at
the top, the picture under it and the answer's lines below), or small among
the others ("compact": the recap, question, picture and link). ``reveal_phases``
splits one reveal's progress (0..1, eased by the scene's transition) into the
three steps a room sees: the question moves up, the picture grows in, then the
words appear. Every text arrives formatted and translated.
"""
from __future__ import annotations


from engine.frozen import frozen

# Where in a reveal's progress each step ends: the question's move, then the picture, then the words.
MOVE_END = 0.25
PICTURE_END = 0.7


@frozen
class QuestionCardState:
    question: str                 # "1 · Why is an LLM slow?"
    answer: str = ""              # one or two lines under the picture
    link: str = ""                # "→ Scene 1: Why the GPU waits"; "" when no scene is linked
    link_scene: str = ""          # the key of the scene a click jumps to; "": none
    compact: bool = False         # the recap: small type, framed, no answer lines


@frozen
class RevealPhases:
    move: float        # 0: the question centred on the card; 1: at its top
    picture: float     # how far the picture has grown in
    text: float        # the answer's lines and the link: their opacity


def _share(value: float) -> float:
    return 0.0 if not value == value else max(0.0, min(1.0, value))


def reveal_phases(progress: float) -> RevealPhases:
    """The three steps of a reveal at ``progress`` (0: the bare question, 1: everything shown)."""
    p = _share(progress)
    return RevealPhases(move=_share(p / MOVE_END), picture=_share((p - MOVE_END) / (PICTURE_END - MOVE_END)),
                        text=_share((p - PICTURE_END) / (1.0 - PICTURE_END)))
