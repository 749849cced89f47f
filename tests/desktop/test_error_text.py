"""The engine's refusals in the app's language, with the English sentence as the fallback."""
from __future__ import annotations

import re

from desktop.error_text import error_text, shown_value
from desktop.i18n import Language
from desktop.scenario_store import ScenarioStore
from engine import InputError

HAN = re.compile(r"[\u4e00-\u9fff]")


def test_the_stores_error_in_chinese_is_chinese_and_names_the_value(qtbot):
    store = ScenarioStore(language=Language("zh"))
    with qtbot.waitSignal(store.error) as signal:
        assert not store.update(gpus=65)
    message = signal.args[0]
    assert HAN.search(message) and "GPU 数量" in message and "65" in message and "64" in message
    assert "must" not in message


def test_an_unknown_gpu_in_chinese_names_it_and_its_close_matches(qtbot):
    store = ScenarioStore(language=Language("zh"))
    with qtbot.waitSignal(store.error) as signal:
        store.update(gpu="h900")
    assert "'h900'" in signal.args[0] and "h800" in signal.args[0] and "不在目录里" in signal.args[0]


def test_the_english_store_writes_the_same_facts_in_english(qtbot):
    store = ScenarioStore(language=Language("en"))
    with qtbot.waitSignal(store.error) as signal:
        store.update(model="llama-3.1-8b", gpus=64)
    assert signal.args[0] == ("Llama 3.1 8B's 32 attention heads cannot be split evenly over 64 GPUs; "
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
    assert shown_value("h900", quoted=True) == "'h900'"
    assert shown_value(["h800", "h200"]) == "h800, h200"


def test_the_inline_error_follows_a_language_switch(make_window, qtbot):
    window = make_window("en")
    window.store.update(gpus=65)
    assert "must be a whole number" in window.controls.error_text()
    window.language.set_code("zh")
    assert HAN.search(window.controls.error_text()) and "65" in window.controls.error_text()
