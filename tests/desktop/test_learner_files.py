"""The learner's files and scenarios: save and open a scenario, presets, pins and compare, a model imported from its
config.json, the guide and About."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.compare_figures import FIGURES, MAX_PINS
from desktop.presets import PRESETS
from engine import InputError, Scenario, compute_report
from engine.catalog import user_catalog_path
from engine.units import format_seconds

CONFIGS = Path(__file__).resolve().parents[1] / "engine" / "fixtures"


# -- presets -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset_id", PRESETS)
def test_every_preset_is_accepted_by_the_engine_and_fits_its_gpus(preset_id):
    report = compute_report(PRESETS[preset_id])
    assert report.fits and report.free_bytes_per_gpu > 0


def test_the_presets_are_the_deployments_a_trainer_hands_out():
    shown = {(s.model, s.gpu, s.gpus) for s in PRESETS.values()}
    assert shown == {("llama-3.1-70b", "h800", 2), ("deepseek-v3", "h800", 16), ("llama-3.1-8b", "rtx-4090", 1),
                     ("qwen3-32b", "h20", 1)}


# -- in the window ---------------------------------------------------------------------------------
@pytest.fixture
def learner(make_window):
    window = make_window("en")
    window.resize(1366, 768)
    return window


def test_save_then_open_gives_back_the_scenario_and_says_so(learner, tmp_path):
    menus, store = learner.learner.menus, learner.store
    store.update(batch=7, model="llama-3.1-8b")
    assert menus.save_to(tmp_path / "mine.json")
    store.update(batch=2)
    assert menus.open_from(tmp_path / "mine.json")
    assert store.scenario.batch == 7 and store.scenario.model == "llama-3.1-8b"
    assert "mine.json" in learner.statusBar().currentMessage()


def test_a_bad_scenario_file_is_refused_at_the_top_of_the_controls_and_changes_nothing(learner, tmp_path):
    (tmp_path / "bad.json").write_text('{"gpu": "h900"}', "utf-8")
    before = learner.store.scenario
    assert not learner.learner.menus.open_from(tmp_path / "bad.json")
    assert learner.store.scenario == before
    assert "h900" in learner.controls.error_label.text() and learner.controls.error_label.isVisible()


def test_a_scenario_that_cannot_be_written_says_why_in_one_line(learner, tmp_path):
    (tmp_path / "a-file").write_text("not a folder", "utf-8")        # the folder chosen is a file
    assert not learner.learner.menus.save_to(tmp_path / "a-file" / "s.json")
    assert "a-file" in learner.statusBar().currentMessage()


def test_the_menus_offer_files_presets_pins_compare_and_help_in_both_languages(learner):
    menus = learner.learner.menus
    file_entries = [a.text() for a in learner.menus["file"].actions()]
    assert file_entries[:3] == ["Open scenario…", "Save scenario as…", "Import model from config.json…"]
    assert [a.text() for a in menus.menus["presets"].actions()][1] == "DeepSeek-V3 at FP8 on 16 H800s"
    learner.language.set_code("zh")
    assert menus.menus["scenario"].title() == "推理条件(&C)"
    assert "关于推理物理" in [a.text() for a in learner.menus["help"].actions()]


def test_a_preset_becomes_the_scenario_in_use(learner):
    assert learner.learner.menus.use_preset("llama8b_rtx4090")
    assert learner.store.scenario == PRESETS["llama8b_rtx4090"]
    assert learner.controls.choices["gpu"].currentData() == "rtx-4090"


def test_two_to_four_pins_compare_side_by_side_as_a_table_and_bars(learner, qtbot):
    menus = learner.learner.menus
    menus.pin_current()
    menus.use_preset("qwen3_32b_h20")
    menus.pin_current()
    menus.show_compare()
    compare = menus.compare
    assert compare.isVisible() and not compare.isModal()
    table = compare.table
    assert table.columnCount() == 2 and table.rowCount() == len(FIGURES)
    figures = [table.verticalHeaderItem(row).text() for row in range(table.rowCount())]
    assert figures[:3] == ["Fits in memory", "First-token time", "Time per token"]
    h800, h20 = compute_report(Scenario(gpus=2)), compute_report(PRESETS["qwen3_32b_h20"])
    assert h800.ttft_seconds < h20.ttft_seconds            # 1 x 1,000 prompt tokens against 8 x 2,000 on an H20
    row = list(FIGURES).index("ttft_seconds")
    assert table.item(row, 0).text() == format_seconds(h800.ttft_seconds)
    assert table.item(row, 1).text() == format_seconds(h20.ttft_seconds)
    assert table.item(row, 0).font().bold() and not table.item(row, 1).font().bold()   # the best in bold
    groups = compare.bars.state.groups
    assert len(groups) == len(FIGURES) - 1 and all(len(group.bars) == 2 for group in groups)
    ttft = groups[row - 1]                                  # "fits" has no bar
    assert ttft.bars[1].share == 1.0 and 0 < ttft.bars[0].share < 0.1 and ttft.bars[0].best
    rects = compare.bars.bar_rects()[row - 1]
    assert rects[0].width() < rects[1].width()


def test_pins_stop_at_four_and_a_pin_can_be_used_again_or_unpinned(learner):
    menus, store = learner.learner.menus, learner.store
    for batch in range(1, 6):
        store.update(batch=batch)
        menus.pin_current()
    compare = menus.compare
    assert len(compare.pins) == MAX_PINS and "unpin one first" in learner.statusBar().currentMessage()
    assert compare.use(0) and store.scenario.batch == 1
    compare.unpin(0)
    assert [s.batch for s in compare.pins] == [2, 3, 4] and compare.table.columnCount() == 3


def test_a_pinned_scenario_that_does_not_fit_has_its_times_marked_hypothetical(learner):
    menus = learner.learner.menus
    menus.pin_current()
    learner.store.update(gpus=1)                    # 141 GB of weights on one 80 GB card
    menus.pin_current()
    compare = menus.compare
    assert compare.table.item(0, 1).text() == "no"
    assert compare.table.item(list(FIGURES).index("ttft_seconds"), 1).text().endswith(" *")
    assert not compare.footnote.isHidden() and "hypothetical" in compare.footnote.text()


def test_compare_follows_the_language(learner):
    menus = learner.learner.menus
    menus.pin_current()
    menus.show_compare()
    learner.language.set_code("zh")
    assert menus.compare.windowTitle() == "对比推理条件"
    assert menus.compare.table.verticalHeaderItem(0).text() == "显存放得下"


# -- import a model ------------------------------------------------------------------------------------
def test_an_imported_model_appears_in_the_model_box_and_is_chosen(learner):
    menus, box = learner.learner.menus, learner.controls.choices["model"]
    assert box.findData("glm-4-9b-0414") < 0
    assert menus.import_from(CONFIGS / "glm-4-9b-0414.json")
    assert box.findData("glm-4-9b-0414") >= 0 and box.currentData() == "glm-4-9b-0414"
    assert learner.store.scenario.model == "glm-4-9b-0414"
    assert "glm-4-9b-0414" in user_catalog_path().read_text("utf-8")
    assert "in the model box now" in learner.statusBar().currentMessage()


def test_an_import_never_rewrites_the_users_entry_and_says_why_under_the_model_box(learner):
    path = user_catalog_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    mine = '# my own\n[models."glm-4-9b-0414"]\nname = "Mine"\n'
    path.write_text(mine, "utf-8")
    assert not learner.learner.menus.import_from(CONFIGS / "glm-4-9b-0414.json")
    assert path.read_text("utf-8") == mine
    note = learner.controls.refusal_notes["model"]
    assert note.isVisible() and "glm-4-9b-0414" in note.text() and note.text().count(";") <= 1
    assert learner.store.scenario.model == "llama-3.1-70b"


def test_a_config_the_engine_cannot_read_is_refused_under_the_model_box(learner, tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "rwkv"}', "utf-8")
    assert not learner.learner.menus.import_from(tmp_path / "config.json")
    assert "rwkv" in learner.controls.refusal_notes["model"].text()


# -- help ------------------------------------------------------------------------------------------------
def test_the_guide_names_every_scene_and_how_to_explore_in_both_languages(learner):
    menus = learner.learner.menus
    menus.show_help("guide")
    guide = menus.help_window("guide")
    assert guide.isVisible() and not guide.isModal()
    text = guide.plain_text()
    for position in range(len(learner.deck.entries)):
        assert learner.deck.title_of(position) in text
    assert "formula" in text and "Where the numbers come from" in text
    learner.language.set_code("zh")
    assert "数字从哪里来" in guide.plain_text() and guide.windowTitle() == "使用指南"


def test_about_gives_the_version_the_sources_and_the_licences_in_full(learner):
    menus = learner.learner.menus
    menus.show_help("about")
    text = menus.help_window("about").plain_text()
    assert "NVIDIA H800 SXM5" in text and "datasheet" in text            # a catalogue entry with its source
    assert "o200k_base" in text                                        # the tokenizer sources
    for licence in ("LICENSE-tiktoken.txt", "LICENSE-llama-3.txt", "NOTICE-llama-3.txt"):
        assert licence in text
    assert "Permission is hereby granted" in text                      # a licence in full, not only its name


def test_nothing_opens_while_presenting(learner):
    learner.presentation.start(from_start=False)
    menus = learner.learner.menus
    menus.show_help("about")
    menus.show_compare()
    assert menus.help_window("about") is None and menus.compare is None
    learner.presentation.stop()
