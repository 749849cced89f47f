"""The presenter standard (DESIGN.md), checked for every registered scene in both languages.

- A caption is at most two lines at 1024x768 and 1920x1080.
- No stage text below the floor (2.3% of the screen height), none overlapping another, none cut off:
  every widget that paints text reports what it drew (``drawn_texts``), and labels are measured.
- The stage's size after any sequence of steps is its size when the build is entered directly.
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QFontInfo, QFontMetricsF
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from desktop.i18n import LANGUAGES, Language
from desktop.scenario_store import ScenarioStore
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenes.registry import scene_classes
from desktop.slide import SlideFrame, keep_units_whole
from widgets.theme import THEMES, for_screen

SCENES = scene_classes()
SIZES = [QSize(1024, 768), QSize(1920, 1080), QSize(3840, 2160)]
# (screen, theme) pairs the type test renders: both projector sizes in the light and projector themes, and
# 4K in the dark theme, so every theme and every size is seen without rendering all nine pairs.
SCREENS_AND_THEMES = [(QSize(1024, 768), "light"), (QSize(1024, 768), "projector"), (QSize(1920, 1080), "light"),
                      (QSize(1920, 1080), "projector"), (QSize(3840, 2160), "dark")]
MAX_CAPTION_LINES = 2
TOLERANCE_PX = 1.0


def _presenting(cls, code: str, size: QSize, theme_id: str = "light"):
    theme = for_screen(THEMES[theme_id], size.height())
    frame = SlideFrame(theme)
    frame.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    language = Language(code)
    scene = create_scene(cls, SceneKit(language, ScenarioStore(), theme))
    scene.ensure_ready()                   # every build, as a presenter who waited for the vocabulary sees it
    frame.stage.addWidget(scene)
    frame.set_presenting_height(size.height())
    frame.resize(size)
    frame.show()
    scene.clock.stop()
    return frame, scene, language


def _caption_lines(frame: SlideFrame, caption: str) -> int:
    label = frame.caption_label
    metrics = QFontMetricsF(label.font())
    width = label.contentsRect().width()
    rect = metrics.boundingRect(QRectF(0, 0, width, 100_000), Qt.TextFlag.TextWordWrap, keep_units_whole(caption))
    return round(rect.height() / metrics.lineSpacing())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s.width()}x{s.height()}")
@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("cls", SCENES, ids=lambda cls: cls.key)
def test_every_caption_fits_in_two_lines(presenting, cls, code, size):
    frame, scene, language = presenting(cls, code, size)
    too_long = []
    for index in range(scene.build_count):
        scene.go_to_build(index, animate=False)
        frame.set_texts(scene.title(), scene.caption())
        frame.layout().activate()
        lines = _caption_lines(frame, scene.caption())
        if lines > MAX_CAPTION_LINES:
            too_long.append(f"build {index} ({scene.phase()}): {lines} lines: {scene.caption()}")
    assert not too_long, "\n".join(too_long)


def _stage_texts(stage: QWidget):
    """(widget, DrawnText-like (key, text, px, rect)) for every text visible on the stage."""
    found = []
    for widget in [stage, *stage.findChildren(QWidget)]:
        if not widget.isVisibleTo(stage.window()):
            continue
        if hasattr(widget, "drawn_texts"):
            found.extend((widget, drawn) for drawn in widget.drawn_texts())
        elif isinstance(widget, QLabel) and widget.text():
            found.append((widget, ("label", widget.text(), QFontInfo(widget.font()).pixelSize(),
                                   QRectF(widget.contentsRect()))))
    return found


def _painting_widgets_without_report(stage: QWidget) -> list[str]:
    """Widgets of ``widgets/`` that paint themselves but do not report their texts."""
    missing = []
    for widget in stage.findChildren(QWidget):
        module = type(widget).__module__
        if module.startswith("widgets.") and "paintEvent" in vars(type(widget)) \
                and not hasattr(widget, "drawn_texts") and widget.isVisibleTo(stage.window()):
            missing.append(type(widget).__name__)
    return sorted(set(missing))


@pytest.mark.parametrize("size, theme_id", SCREENS_AND_THEMES,
                         ids=[f"{s.width()}x{s.height()}-{t}" for s, t in SCREENS_AND_THEMES])
@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("cls", SCENES, ids=lambda cls: cls.key)
def test_no_stage_text_is_below_the_floor_overlapping_or_cut(presenting, cls, code, size, theme_id):
    frame, scene, _ = presenting(cls, code, size, theme_id)
    floor = for_screen(THEMES[theme_id], size.height()).text_floor_px
    problems = []
    builds = sorted({0, scene.build_count // 2, scene.build_count - 1})
    for index in builds:
        scene.go_to_build(index, animate=False)
        scene.clock.set_seconds(scene.clock.seconds() + 1.0)       # transitions finished
        frame.set_texts(scene.title(), scene.caption())
        frame.layout().activate()
        QApplication.processEvents()
        frame.grab()                                                 # paint: widgets report what they drew
        problems += [f"build {index}: {name} paints text it does not report"
                     for name in _painting_widgets_without_report(frame.stage)]
        texts = _stage_texts(frame.stage)
        for widget, (key, text, px, rect) in [(w, (d.key, d.text, d.px, d.rect) if hasattr(d, "key") else d)
                                               for w, d in texts]:
            if px < floor - 0.5:
                problems.append(f"build {index}: {type(widget).__name__} {key!r} {text!r} at {px} px < {floor}")
            bounds = QRectF(widget.rect()).adjusted(-TOLERANCE_PX, -TOLERANCE_PX, TOLERANCE_PX, TOLERANCE_PX)
            if not bounds.contains(rect):
                problems.append(f"build {index}: {type(widget).__name__} {key!r} {text!r} cut off: {rect} "
                                f"outside {widget.rect()}")
        by_widget: dict[int, list] = {}
        for widget, drawn in texts:
            if hasattr(drawn, "key"):
                by_widget.setdefault(id(widget), []).append((type(widget).__name__, drawn))
        for entries in by_widget.values():
            for i, (name, a) in enumerate(entries):
                for _, b in entries[i + 1:]:
                    overlap = a.rect.intersected(b.rect)
                    if overlap.width() > TOLERANCE_PX and overlap.height() > TOLERANCE_PX:
                        problems.append(f"build {index}: {name} {a.key!r} overlaps {b.key!r}")
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("cls", SCENES, ids=lambda cls: cls.key)
def test_the_stage_keeps_its_size_however_a_build_is_reached(qtbot, make_window, cls):
    window = make_window("zh")
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.width() == 1024)
    deck = window.deck
    position = deck.position_of(cls.key)

    def stage_size():
        window.slide.layout().activate()
        QApplication.processEvents()
        return window.slide.stage.size()

    direct = []
    for index in range(deck.scene(position).build_count):
        deck.show(position)
        deck.current.go_to_build(index, animate=False)
        direct.append(stage_size())
    deck.show(position)
    stepped = [stage_size()]
    for _ in range(deck.current.build_count - 1):
        deck.next()
        stepped.append(stage_size())
    assert stepped == direct
    for index in reversed(range(deck.current.build_count - 1)):       # and back again (Left)
        deck.previous()
        assert stage_size() == direct[index]


def test_the_clock_never_covers_the_corner_that_names_what_the_stage_shows(qtbot, make_window):
    window = make_window("zh")
    window.presentation.start(from_start=True)
    if not window.presenter.clock.isVisible():
        window.run_command("clock")
    qtbot.waitUntil(lambda: window.presenter.clock.isVisible())
    window.slide.layout().activate()
    clock = window.presenter.clock.geometry()
    label = window.slide.subject_label
    corner = label.geometry().translated(label.parentWidget().mapTo(window.slide, label.pos()) - label.pos())
    assert not clock.intersects(corner), (clock, corner)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s.width()}x{s.height()}")
@pytest.mark.parametrize("code", LANGUAGES)
def test_every_title_stays_on_one_line_beside_the_corner(presenting, code, size):
    from desktop.stage_subject import subject_texts
    long = []
    for cls in SCENES:
        frame, scene, _ = presenting(cls, code, size)
        frame.set_texts(scene.title(), scene.caption())
        frame.set_subject(*subject_texts(scene.kit.language, scene))     # the default scenario's corner
        frame.layout().activate()
        label = frame.title_label
        metrics = QFontMetricsF(label.font())
        if metrics.horizontalAdvance(scene.title()) > label.contentsRect().width():
            long.append(f"{cls.key}: {scene.title()!r} needs {metrics.horizontalAdvance(scene.title()):.0f} px, "
                        f"has {label.contentsRect().width()}")
    assert not long, "\n".join(long)
