"""Pictures and the handout: every scene at its last build, written as files, not blank."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QImage

from desktop.export import HANDOUT_FILE, export_scenes, render_slide
from desktop.scenario_store import ScenarioStore
from desktop.scenes.registry import scene_entries
from widgets.theme import THEMES

ROOT = Path(__file__).resolve().parents[2]


def distinct_colours(image: QImage, step: int = 7) -> int:
    return len({image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)})


def dark_share(image: QImage, step: int = 5) -> float:
    """Share of sampled pixels darker than mid-grey: text and lines on a light theme."""
    samples = [image.pixelColor(x, y).lightness() < 128
               for x in range(0, image.width(), step) for y in range(0, image.height(), step)]
    return sum(samples) / len(samples)


def pdf_page_count(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf))


def test_a_slide_is_exactly_the_size_asked_for_and_shows_its_last_caption(qapp, language):
    store = ScenarioStore()
    cls = scene_entries()[0].load()
    slide = render_slide(cls, language, store, THEMES["projector"], QSize(1024, 768))
    assert slide.image.size() == QSize(1024, 768)
    assert len(slide.captions) == len(slide.notes) == len(cls.Story.builds)      # a phase per build here
    assert slide.title == language.text(f"{cls.key}.title")
    assert distinct_colours(slide.image) > 8 and dark_share(slide.image) > 0.005
    assert slide.stage_rect.height() > 768 / 2


def test_export_writes_every_scene_and_the_handout(qapp, language, tmp_path):
    store = ScenarioStore()
    written = list(export_scenes(scene_entries(), language, store, THEMES["light"], QSize(800, 600),
                                 png_dir=tmp_path, pdf_path=tmp_path / HANDOUT_FILE))
    expected = [tmp_path / f"{entry.export_name}.png" for entry in scene_entries()] + [tmp_path / HANDOUT_FILE]
    assert written == expected
    for path in expected[:-1]:
        image = QImage(str(path))
        assert image.size() == QSize(800, 600) and distinct_colours(image) > 8, path
    pdf = expected[-1].read_bytes()
    assert pdf.startswith(b"%PDF") and pdf.rstrip().endswith(b"%%EOF")
    assert pdf_page_count(pdf) >= len(scene_entries())     # a page per scene; long notes continue overleaf


def test_export_to_a_place_it_cannot_write_is_an_oserror(qapp, language, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError):
        list(export_scenes(scene_entries(), language, ScenarioStore(), THEMES["light"], QSize(640, 480),
                           png_dir=blocker / "pictures"))


def test_the_window_exports_the_current_scene_and_the_handout(qtbot, window, tmp_path):
    png = tmp_path / "scene.png"
    assert window.exports.current_scene(png)
    assert QImage(str(png)).size() == QSize(1920, 1080)
    window.exports.handout(tmp_path / "handout.pdf")
    qtbot.waitUntil(lambda: not window.exports.running(), timeout=30_000)
    assert (tmp_path / "handout.pdf").read_bytes().startswith(b"%PDF")
    assert "handout.pdf" in window.statusBar().currentMessage()


def test_python_m_desktop_export_writes_pictures_that_are_not_blank(tmp_path):
    """As a user runs it: a separate process, no display, Chinese, a small projector size."""
    result = subprocess.run(
        [sys.executable, "-m", "desktop", "--export", str(tmp_path / "out"), "--lang", "zh", "--size", "1024x768"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    for entry in scene_entries():
        image = QImage(str(tmp_path / "out" / f"{entry.export_name}.png"))
        assert image.size() == QSize(1024, 768), entry.key
        assert distinct_colours(image) > 8 and dark_share(image) > 0.005, entry.key
    assert (tmp_path / "out" / HANDOUT_FILE).read_bytes().startswith(b"%PDF")
    assert "Traceback" not in result.stderr


def test_the_menu_export_writes_the_build_on_screen_and_the_cli_the_last(window, tmp_path, monkeypatch):
    from desktop import export
    asked: list[int | None] = []
    original = export.render_slide

    def spy(*args, build=None, **kwargs):
        asked.append(build)
        return original(*args, build=build, **kwargs)

    monkeypatch.setattr(export, "render_slide", spy)
    summary = window.deck.position_of("summary")
    window.deck.show(summary, "first")
    window.deck.next()                                   # the first answer revealed, three still hidden
    on_screen = window.deck.current.build_index
    assert 0 < on_screen < window.deck.current.build_count - 1
    assert window.exports.current_scene(tmp_path / "scene.png")
    assert asked == [on_screen]
    written = QImage(str(tmp_path / "scene.png"))
    at_build = original(window.deck.entries[summary].load(), window.language, window.store, window.theme, build=on_screen)
    at_last = original(window.deck.entries[summary].load(), window.language, window.store, window.theme)
    assert written.convertToFormat(at_build.image.format()) == at_build.image
    assert written.convertToFormat(at_last.image.format()) != at_last.image


@pytest.mark.parametrize("code", ["en", "zh"])
def test_a_picture_the_window_cannot_write_says_why(make_window, tmp_path, code):
    window = make_window(language=code)
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine")
    for target, named, reason in ((tmp_path, tmp_path, "is_folder"),
                                  (blocker / "scene.png", blocker, "is_file")):
        assert not window.exports.current_scene(target)
        note = window.statusBar().currentMessage()
        assert str(named) in note and "Errno" not in note and "\n" not in note
        expected = window.language.text(f"errors.write.{reason}", path=str(named), folder=str(named.parent))
        assert expected in note, note
    assert blocker.read_text() == "mine"


def test_a_handout_the_window_cannot_write_says_why(qtbot, window, tmp_path):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine")
    window.exports.handout(blocker / "handout.pdf")
    qtbot.waitUntil(lambda: not window.exports.running(), timeout=30_000)
    assert window.language.text("errors.write.is_file", path=str(blocker), folder=str(tmp_path)) \
        in window.statusBar().currentMessage()


def test_a_chinese_unit_is_never_split_after_its_slash():
    """Chinese may break anywhere; "FLOP/字节" must not end a line at "FLOP/". A word joiner keeps it whole
    (and draws as nothing); English units are left as they are."""
    from PySide6.QtGui import QFont, QTextLayout, QTextOption

    from desktop.slide import keep_units_whole
    text = "约 1.02 FLOP/字节；1000 个 token 的 prefill 约 992 FLOP/字节，在屋顶上。"
    assert keep_units_whole("992 FLOP/byte") == "992 FLOP/byte"
    assert keep_units_whole(text).replace("\u2060", "") == text

    def line_ends(sample: str, width: int) -> list[str]:
        layout = QTextLayout(sample, QFont("Noto Sans CJK SC", 20))
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout.setTextOption(option)
        layout.beginLayout()
        ends = []
        while (line := layout.createLine()).isValid():
            line.setLineWidth(width)
            ends.append(sample[line.textStart():line.textStart() + line.textLength()].rstrip("\u2060 "))
        layout.endLayout()
        return ends

    widths = range(250, 700, 3)
    assert any(end.endswith("FLOP/") for w in widths for end in line_ends(text, w))       # the problem is real
    assert not any(end.endswith("FLOP/") for w in widths for end in line_ends(keep_units_whole(text), w))


def test_the_handout_is_real_text_with_every_number_and_the_notes(qapp, tmp_path):
    """pdftotext gets back the digits (a CJK font first loses them) and the speaker notes of each build."""
    import shutil
    import subprocess
    import sys

    if shutil.which("pdftotext") is None:
        import pytest
        pytest.skip("pdftotext (poppler-utils) is not installed; .ci/run installs it")
    done = subprocess.run([sys.executable, "-m", "desktop", "--export", str(tmp_path), "--lang", "zh",
                           "--scene", "kv_cache"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    text = subprocess.run(["pdftotext", str(tmp_path / "handout.pdf"), "-"], capture_output=True,
                          text=True, timeout=60).stdout
    # Llama 3.1 70B's config.json: 80 layers, 8 KV heads of 128 values; at FP16 (2 bytes) 327,680 bytes a token.
    # The seed's N = 500 tokens: 1 + 2 + ... + 500 = 125,250 computations without a cache. (Not a bare "80":
    # every page's "H800" has one.)
    formula = "2 × 80 × 8 × 128 × 2"
    assert 2 * 80 * 8 * 128 * 2 == 320 * 1024 and 500 * 501 // 2 == 125_250
    for number in ("320 KiB", formula, "80 层", "125,250", "32,768"):
        assert number in text, number
    assert "N(N+1)/2" in text                 # a formula from the notes, not only the captions
    from desktop.export import HANDOUT_CJK_FAMILIES
    from PySide6.QtGui import QFontDatabase
    if set(HANDOUT_CJK_FAMILIES) & set(QFontDatabase.families()):     # .ci/run installs fonts-wqy-zenhei
        radicals = [c for c in text if 0x2F00 <= ord(c) <= 0x2FDF]
        assert not radicals and "一" in text, radicals[:10]       # Chinese searchable as itself
