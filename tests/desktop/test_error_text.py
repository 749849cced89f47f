"""The engine's refusals in the app's language, with the English sentence as the fallback."""
from __future__ import annotations

import errno
import re
from pathlib import Path

import pytest

from desktop.error_text import error_text, write_problem
from engine.errors import shown_value
from desktop.i18n import Language
from desktop.scenario_store import ScenarioStore
from engine import InputError
from engine.scenario import MAX_GPUS
from engine.units import format_count

HAN = re.compile(r"[\u4e00-\u9fff]")


def test_the_stores_error_in_chinese_is_chinese_and_names_the_value(qtbot):
    store = ScenarioStore(language=Language("zh"))
    with qtbot.waitSignal(store.error) as signal:
        assert not store.update(gpus=MAX_GPUS + 1)          # one more than a deployment may have (1,024)
    message = signal.args[0]
    assert HAN.search(message) and "GPU 数量" in message and format_count(MAX_GPUS + 1) in message
    assert format_count(MAX_GPUS) in message
    assert "must" not in message


def test_an_unknown_gpu_in_chinese_names_it_and_its_close_matches(qtbot):
    store = ScenarioStore(language=Language("zh"))
    with qtbot.waitSignal(store.error) as signal:
        store.update(gpu="h900")
    assert "'h900'" in signal.args[0] and "h800" in signal.args[0] and "不在目录里" in signal.args[0]


def test_the_english_store_writes_the_same_facts_in_english(qtbot):
    store = ScenarioStore(language=Language("en"))
    with qtbot.waitSignal(store.error) as signal:       # inside one node the GPUs form one tensor group
        store.update(model="llama-3.1-8b", gpus=3)
    assert signal.args[0] == ("Llama 3.1 8B's 32 attention heads cannot be split evenly over 3 GPUs; "
                              "tensor parallelism allows 1, 2, 4, 8, 16 or 32 GPUs.")
    assert not HAN.search(signal.args[0])


def test_a_store_without_a_language_emits_the_engines_sentence(qtbot):
    store = ScenarioStore()
    with qtbot.waitSignal(store.error) as signal:
        store.update(batch=5000)
    assert signal.args[0] == "The batch must be a whole number from 1 to 4,096 sequences; got 5,000."


def test_unknown_codes_and_values_that_do_not_fit_fall_back_to_the_english_sentence():
    language = Language("zh")
    assert error_text(language, InputError("Plain sentence.")) == "Plain sentence."
    assert error_text(language, InputError("No such code.", "nowhere.at_all", {"got": 1})) == "No such code."
    assert error_text(language, InputError("Values missing.", "scenario.whole_number", {"got": 1})) \
        == "Values missing."


def test_values_are_shown_as_a_reader_expects():
    assert shown_value(4096) == "4,096"
    assert shown_value(10_000.0) == "10,000"
    assert shown_value(0.5) == "0.5"
    assert shown_value(2.555) == "2.555"           # a typed price is shown as typed, not rounded
    assert shown_value(1234.5) == "1234.5"
    assert shown_value("h900", quoted=True) == "'h900'"
    assert shown_value(["h800", "h200"]) == "h800, h200"


def test_the_inline_error_follows_a_language_switch(make_window, qtbot):
    window = make_window("en")
    window.store.update(gpus=MAX_GPUS + 1)
    assert "must be a whole number" in window.controls.error_text()
    window.language.set_code("zh")
    assert HAN.search(window.controls.error_text()) and format_count(MAX_GPUS + 1) in window.controls.error_text()


ROOT = Path(__file__).resolve().parents[2]
# number formats in f-strings (",", ".3g", ".2f", "%"): numbers for display are formatted by engine.units only
NUMBER_FORMAT = re.compile(r"\{[^{}]*:[^{}]*?(,|\.\d+[a-zA-Z%]?|\d*[fgeE%])\}")
FORMATTING_FREE = ["desktop/error_text.py", "desktop/scenes/summary/view.py", "desktop/scenario_controls.py",
                   "desktop/presenter.py", "desktop/window.py", "desktop/__main__.py", "widgets/help_overlay.py"]


def f_strings(source: str) -> list[str]:
    """Every f-string of ``source`` as written, in order. Up to Python 3.11 the tokenizer gives one STRING token
    for each; from 3.12 (PEP 701) FSTRING_START ... FSTRING_END, whose text is read back from the source."""
    import io
    import tokenize
    lines = source.splitlines(keepends=True)

    def between(start, end) -> str:
        (row, col), (end_row, end_col) = start, end
        if row == end_row:
            return lines[row - 1][col:end_col]
        return lines[row - 1][col:] + "".join(lines[row:end_row - 1]) + lines[end_row - 1][:end_col]

    found, starts = [], []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING and "f" in token.string.split("'")[0].split('"')[0].lower():
            found.append((token.start, token.string))
        elif token.type == getattr(tokenize, "FSTRING_START", None):
            starts.append(token.start)
        elif token.type == getattr(tokenize, "FSTRING_END", None):
            start = starts.pop()
            found.append((start, between(start, token.end)))
    return [text for _, text in sorted(found)]


@pytest.mark.parametrize("module", FORMATTING_FREE)
def test_these_modules_format_no_number_themselves(module):
    found = [text for text in f_strings((ROOT / module).read_text(encoding="utf-8")) if NUMBER_FORMAT.search(text)]
    assert not found, found


def test_the_number_format_check_does_find_one():
    source = ('a = f"{float(value):,.6g}"\nb = f"{x:.2f} s" + f"{n:,}"\n'
              'c = f"{cls.number:02d}-{cls.key}"\nd = {"x": 1}\n')
    assert [text for text in f_strings(source) if NUMBER_FORMAT.search(text)] == \
        ['f"{float(value):,.6g}"', 'f"{x:.2f} s"', 'f"{n:,}"']


# -- files that cannot be written -----------------------------------------------------------------

@pytest.fixture(params=["en", "zh"])
def any_language(request):
    return Language(request.param)


def test_a_folder_wanted_where_a_file_is_says_the_path_is_a_file(tmp_path, any_language):
    blocker = tmp_path / "passwd"
    blocker.write_text("x")
    with pytest.raises(OSError) as raised:
        blocker.mkdir(parents=True, exist_ok=True)
    problem = write_problem(raised.value, blocker, is_folder=True)
    assert problem.reason == "is_file" and problem.bad_path
    sentence = problem.sentence(any_language)
    assert str(blocker) in sentence and "Errno" not in sentence and "\n" not in sentence
    assert bool(HAN.search(sentence)) == (any_language.code == "zh")


def test_a_file_in_the_way_of_a_new_folder_is_named(tmp_path, any_language):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("x")
    with pytest.raises(OSError) as raised:
        (blocker / "pictures").mkdir(parents=True, exist_ok=True)
    problem = write_problem(raised.value, blocker / "pictures", is_folder=True)
    assert problem.reason == "file_in_the_way" and problem.values["blocker"] == str(blocker)
    assert str(blocker) in problem.sentence(any_language)


def test_a_parent_that_is_a_file_when_writing_a_file_says_so(tmp_path):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("x")
    with pytest.raises(OSError) as raised:
        (blocker / "handout.pdf").parent.mkdir(parents=True, exist_ok=True)
    assert write_problem(raised.value, blocker / "handout.pdf").reason == "is_file"


@pytest.mark.parametrize("number, reason, bad_path", [
    (errno.EACCES, "no_permission", True), (errno.EPERM, "no_permission", True),
    (errno.EROFS, "read_only", True), (errno.ENOSPC, "disk_full", False)])
def test_the_errno_says_why(tmp_path, any_language, number, reason, bad_path):
    target = tmp_path / "scene.png"
    problem = write_problem(OSError(number, "raw text", str(target)), target)
    assert (problem.reason, problem.bad_path) == (reason, bad_path)
    sentence = problem.sentence(any_language)
    assert str(target) in sentence and "raw text" not in sentence


def test_a_write_that_failed_without_a_reason_is_judged_from_the_disk(tmp_path):
    assert write_problem(None, tmp_path).reason == "is_folder"                  # a file was wanted here
    assert write_problem(None, tmp_path / "absent" / "scene.png").reason == "no_folder"
    assert write_problem(OSError("could not write x"), tmp_path, is_folder=True).reason == "other"
    assert write_problem(OSError(errno.EIO, "I/O error", "x"), tmp_path / "x").values["reason"]


def test_a_skipped_catalogue_entry_is_named_in_chinese():
    error = InputError("Model 'mine' in ~/catalog.toml was skipped: layers must be a whole number.",
                       "catalog.skipped", {"kind": "model", "got": "mine", "file": "~/catalog.toml",
                                           "reason": "layers must be a whole number", "known": ["llama-3.1-70b"]})
    sentence = error_text(Language("zh"), error)
    assert HAN.search(sentence) and "'mine'" in sentence and "~/catalog.toml" in sentence


def test_catalogue_warnings_at_start_up_lead_with_a_chinese_sentence(qapp, tmp_path, monkeypatch, capsys):
    from desktop import app as app_module
    from engine.catalog import default_catalog
    user_file = tmp_path / "catalog.toml"
    user_file.write_text('[gpus.broken]\nname = "Broken"\n', encoding="utf-8")
    monkeypatch.setenv("INFERENCE_PHYSICS_CATALOG", str(user_file))
    default_catalog.cache_clear()
    try:
        warnings = default_catalog().warnings
        assert warnings, "the broken entry should be reported by the engine"
        notes = app_module._startup_notes(qapp, Language("zh"), None)
    finally:
        default_catalog.cache_clear()        # later tests read the built-in catalogue again
    catalogue_notes = [note for note in notes if "broken" in note]
    assert len(catalogue_notes) == len(warnings)
    assert all(note.startswith("你的 GPU/模型目录文件") and warning in note
               for note, warning in zip(catalogue_notes, warnings))
    assert "你的 GPU/模型目录文件" in capsys.readouterr().err


@pytest.mark.parametrize("fields", [
    {"batch": 5000}, {"batch": 2.5}, {"gpu": " "}, {"usd_per_gpu_hour": -1.0}, {"mode": "fast"},
    {"prompt_tokens": 10_000_000, "output_tokens": 1}, {"model": "llama-3.1-8b", "gpus": 3},
    {"model": "qwen2.5-7b", "gpus": 29}, {"model": "llama-2-13b", "gpus": 5}, {"gpu": "h900"}, {"gpu": 42},
    {"model": "qwen2.5-7b", "gpus": 16, "tp": 3}, {"model": "llama-3.1-8b", "gpus": 16, "ep": 2},
    {"model": "llama-3.1-8b", "prompt_tokens": 200_000}, {"gpu": "x" * 100_000},
])
def test_the_apps_english_is_the_engines_sentence_word_for_word(fields):
    """One English source: errors.toml's en text is what the engine prints and what the app shows."""
    from engine import Scenario, compute_report
    with pytest.raises(InputError) as caught:
        compute_report(Scenario(**fields))
    error = caught.value
    assert error.code and error_text(Language("en"), error) == str(error)
    assert HAN.search(error_text(Language("zh"), error))


def test_a_nul_in_a_catalogue_id_reaches_no_refusal_raw():
    from engine.catalog import default_catalog
    with pytest.raises(InputError) as raised:
        default_catalog().gpu("h8\x0000")
    for code in ("en", "zh"):
        sentence = error_text(Language(code), raised.value)
        assert "\x00" not in sentence and "\\x00" in sentence


@pytest.mark.parametrize("value, shown", [(["zh"], "['zh']"), ([], "[]")])
def test_a_setting_that_is_a_list_is_shown_as_written(tmp_path, value, shown):
    import json
    from desktop import settings as store
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"language": value}), encoding="utf-8")
    [note] = store.load(path).notes(Language("en"))
    assert shown in note


def test_a_folder_where_the_handout_goes_is_not_answered_with_a_picture_name(tmp_path):
    target = tmp_path / "handout.pdf"
    target.mkdir()
    problem = write_problem(IsADirectoryError(21, "Is a directory", str(target)), target)
    for code in ("en", "zh"):
        sentence = problem.sentence(Language(code))
        assert "scene.png" not in sentence and str(target) in sentence
