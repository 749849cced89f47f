"""Pictures and the handout: every scene at its last build, written as files, not blank."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QImage

from desktop.i18n import Language
from desktop.kit.scene import SceneKit, create_scene
from desktop.export import HANDOUT_FILE, export_scenes, handout_builds, print_theme, render_slide
from desktop.handout import MIN_PRINTED_PT, PICTURE_SHARE, PICTURE_SIZE, page_layout, printed_floor_pt
from desktop.scenario_store import ScenarioStore
from desktop.scenes.registry import scene_entries
from widgets.theme import THEMES, text_floor_px

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
    assert keep_units_whole("992 FLOP/byte") == "992\u00a0FLOP/byte"       # the number stays with its unit
    assert keep_units_whole(text).replace("\u2060", "").replace("\u00a0", " ") == text

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
    timed = "跨节点：每个 token 节点内的 all-reduce 要 3.62 ms，节点之间的交接要 40.7 µs。"
    assert not any(end[-1:].isdigit() for w in widths for end in line_ends(keep_units_whole(timed), w)[:-1])


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
    from desktop.handout import HANDOUT_CJK_FAMILIES
    from PySide6.QtGui import QFontDatabase
    if set(HANDOUT_CJK_FAMILIES) & set(QFontDatabase.families()):     # .ci/run installs fonts-wqy-zenhei
        radicals = [c for c in text if 0x2F00 <= ord(c) <= 0x2FDF]
        assert not radicals and "一" in text, radicals[:10]       # Chinese searchable as itself


# -- the handout: a picture of every build beside its caption and notes, readable on paper ------------------

def needs(tool: str) -> None:
    import shutil
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} (poppler-utils) is not installed; .ci/run installs it")


def run_tool(*arguments: str) -> str:
    return subprocess.run(arguments, capture_output=True, text=True, timeout=120, check=True).stdout


@pytest.fixture(scope="module")
def handouts(tmp_path_factory):
    """The handout of every scene as a user makes it, in both languages, on A4 (en) and Letter (zh)."""
    made = {}
    for code, paper in (("en", "a4"), ("zh", "letter")):
        folder = tmp_path_factory.mktemp(f"handout-{code}")
        done = subprocess.run([sys.executable, "-m", "desktop", "--export", str(folder), "--lang", code,
                               "--paper", paper, "--size", "640x480"], cwd=ROOT, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        made[code] = folder / HANDOUT_FILE
    return made


def build_count(entry, language, store) -> int:
    """The builds of ``entry``'s scene once loaded (a token scene's follow its tokenizer's cut)."""
    scene = create_scene(entry.load(), SceneKit(language, store, THEMES["light"]))
    scene.ensure_ready()
    count = scene.build_count
    scene.deleteLater()
    return count


def test_every_build_has_its_own_picture_with_its_caption_and_notes(qapp, language):
    store = ScenarioStore()
    for entry in scene_entries():
        cls = entry.load()
        builds = handout_builds(cls, language, store, THEMES["light"])
        count = build_count(entry, language, store)
        assert all(build.count == count and build.picture.size() == PICTURE_SIZE for build in builds)
        if entry.key == "summary":           # its handout is the recap with every answer: its last build
            assert [build.number for build in builds] == [count]
            continue
        assert [build.number for build in builds] == list(range(1, count + 1)), entry.key
        assert len({bytes(build.picture.constBits()) for build in builds}) == count, entry.key   # all different
        assert len({build.notes for build in builds}) == count and all(build.caption for build in builds)


def test_a_handout_picture_is_exactly_that_build_as_the_projector_shows_it(qapp, language):
    """Stepping one scene through its builds leaves nothing behind: each picture equals a fresh render."""
    store = ScenarioStore()
    cls = next(entry for entry in scene_entries() if entry.key == "kv_cache").load()
    builds = handout_builds(cls, language, store, THEMES["light"])
    for build in (builds[0], builds[3]):
        fresh = render_slide(cls, language, store, THEMES["light"], PICTURE_SIZE, build=build.number - 1).image
        assert build.picture == fresh, build.number


def test_a_dark_theme_prints_light(qapp):
    assert print_theme(THEMES["dark"]).id == "light"
    assert print_theme(THEMES["projector"]).id == "projector" and print_theme(THEMES["light"]).id == "light"


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_stage_takes_most_of_the_page_and_its_smallest_text_prints_above_7_points(paper):
    layout = page_layout(paper)
    page_width, page_height = layout.page
    assert layout.picture[2] >= 0.6 * page_width and PICTURE_SHARE >= 0.6
    for part in (layout.header, layout.picture, layout.column, layout.footer):     # all on the page, apart
        x, y, width, height = part
        assert x >= 0 and y >= 0 and x + width <= page_width and y + height <= page_height
    assert layout.picture[1] + layout.picture[3] <= layout.footer[1]
    assert layout.picture[0] + layout.picture[2] < layout.column[0]
    assert printed_floor_pt(layout) >= MIN_PRINTED_PT


def test_the_handouts_pages_are_a4_and_letter_landscape(handouts):
    sizes = {code: {tuple(round(float(v)) for v in box) for box in
                    re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", path.read_bytes())}
             for code, path in handouts.items()}
    assert sizes == {"en": {(842, 595)}, "zh": {(792, 612)}}          # A4 and US Letter, in points


def test_every_page_has_a_picture_at_60_percent_of_its_width_whose_text_prints_above_7_points(handouts):
    needs("pdfimages")
    for code, path in handouts.items():
        page_width_pt = 842 if code == "en" else 792
        rows = [line.split() for line in run_tool("pdfimages", "-list", str(path)).splitlines()[2:]]
        pages = {int(row[0]) for row in rows}
        assert pages == set(range(1, pdf_page_count(path.read_bytes()) + 1))       # a picture on every page
        total_builds = sum(build_count(entry, Language(code), ScenarioStore()) for entry in scene_entries()
                           if entry.key != "summary")
        assert len(rows) >= total_builds + 1
        floor_px = text_floor_px("light", PICTURE_SIZE.height())
        for row in rows:
            width_px, x_ppi = int(row[3]), float(row[12])
            assert width_px / x_ppi * 72 >= 0.6 * page_width_pt, row
            assert floor_px / x_ppi * 72 >= MIN_PRINTED_PT, row     # the stage's smallest text, on paper


def test_no_printed_text_is_smaller_than_7_points(handouts):
    needs("pdftohtml")
    for code, path in handouts.items():
        xml = run_tool("pdftohtml", "-xml", "-i", "-zoom", "10", "-stdout", str(path))
        page_height_px = float(re.search(r'<page [^>]*height="([\d.]+)"', xml).group(1))
        points_per_px = (595 if code == "en" else 612) / page_height_px
        sizes = [float(size) * points_per_px for size in re.findall(r'<fontspec [^>]*size="([\d.]+)"', xml)]
        assert sizes and min(sizes) >= MIN_PRINTED_PT - 0.2, (code, sorted(set(sizes)))    # pdftohtml rounds


def test_every_page_says_which_scenario_it_shows(handouts):
    needs("pdftotext")
    for code, path in handouts.items():
        pages = run_tool("pdftotext", "-layout", str(path), "-").split("\f")
        pages = [page for page in pages if page.strip()]
        assert len(pages) == pdf_page_count(path.read_bytes())
        label = "Scenario:" if code == "en" else "推理条件："
        for page in pages:
            assert label in page and "H800" in page and "Llama 3.1 70B" in page, page[-400:]
