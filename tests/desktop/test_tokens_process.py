"""Scene 6's tokenizer process: jobs run in a process of their own that imports no Qt, give the engine's
answers, stop when superseded; the process survives being killed, never outlives a killed app, and ends a while
after the scene was left (what it showed stays; the next count starts another)."""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.kit import tokenizer_process
from desktop.scenes.tokens import prepared
from desktop.scenes.tokens.cuts import Cancelled, count_in_chunks, playground_job
from engine.tokens import count_tokens
from tests.desktop.test_tokens import PLAYGROUND, make, played

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(tokenizer_process.in_process(), reason="no process can be started here")


def _exited(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` ends within ``seconds`` (waited for on a pidfd: no polling)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], seconds)[0])
    finally:
        os.close(fd)


def test_jobs_run_in_another_process_that_imports_no_qt_and_give_the_engines_counts():
    assert tokenizer_process.run(os.getpid) != os.getpid()
    qt = tokenizer_process.run(eval, "[m for m in __import__('sys').modules if m.split('.')[0] in "
                                     "('PySide6', 'shiboken6', 'pyqtgraph')]")
    assert qt == []
    text = "推理加速让大模型更快。Inference acceleration makes models faster."
    result = tokenizer_process.run(playground_job, text, ("qwen2.5", "gpt2"))
    assert [lane.count for lane in result.lanes] == [count_tokens(t, text) for t in ("qwen2.5", "gpt2")]


def test_a_superseded_job_stops_and_the_next_one_on_its_channel_runs():
    text = "推理加速让大模型更快。\nInference acceleration makes models faster.\n" * 200_000
    first = tokenizer_process.submit(count_in_chunks, "gpt2", text, channel="playground")
    second = tokenizer_process.submit(count_in_chunks, "gpt2", "short text", channel="playground")
    with pytest.raises(Cancelled):
        first.result(timeout=120)
    assert second.result(timeout=120) == count_tokens("gpt2", "short text")
    cancelled = tokenizer_process.submit(count_in_chunks, "gpt2", text, channel="corpus")
    tokenizer_process.cancel("corpus")
    with pytest.raises(Cancelled):
        cancelled.result(timeout=120)


def test_a_killed_process_is_said_once_and_the_next_job_starts_a_new_one():
    pid = tokenizer_process.run(os.getpid)
    os.kill(pid, signal.SIGKILL)
    assert _exited(pid, 30)
    try:
        again = tokenizer_process.run(os.getpid)
    except tokenizer_process.ProcessStopped:
        again = tokenizer_process.run(os.getpid)
    assert again not in (pid, os.getpid())
    assert prepared.profiles(("gpt2",))["gpt2"].corpus.zh_total > 0          # and it works as before


def test_the_process_ends_with_a_killed_app():
    program = ("import os, time\n"
               "from desktop.kit import tokenizer_process\n"
               "print(tokenizer_process.run(os.getpid), flush=True)\n"
               "time.sleep(120)\n")
    app = subprocess.Popen([sys.executable, "-c", program], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                           stderr=subprocess.DEVNULL,     # its resource tracker reports the killed pool's semaphores
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        child = int(app.stdout.readline())
        os.kill(app.pid, signal.SIGKILL)
        app.wait(timeout=30)
        assert _exited(child, 30)
    finally:
        app.kill()
        app.stdout.close()


def test_leaving_the_scene_ends_the_process_later_and_the_next_count_starts_another(qtbot):
    scene = make(qtbot)
    scene.go_to_build(PLAYGROUND)
    played(qtbot, scene, "推理 first")
    before = tokenizer_process.run(os.getpid)
    scene.hide()
    assert scene._release.isActive()
    scene._release.timeout.emit()                       # the scene has been left long enough
    assert _exited(before, 30)
    scene.show()
    assert scene.playground_result() is not None and not scene.play_worker.busy     # what it showed stays
    result = played(qtbot, scene, "推理 again")
    assert [lane.count for lane in result.lanes] == [count_tokens(lane.tokenizer, "推理 again") for lane in result.lanes]
    assert tokenizer_process.run(os.getpid) not in (before, os.getpid())


def test_quitting_stops_the_running_count_ends_the_process_and_takes_no_more_jobs():
    program = ("import os\n"
               "from desktop.kit import tokenizer_process\n"
               "from concurrent.futures import CancelledError\n"
               "from desktop.scenes.tokens.cuts import Cancelled, count_in_chunks\n"
               "child = tokenizer_process.run(os.getpid)\n"
               "long = tokenizer_process.submit(count_in_chunks, 'gpt2', '推理加速 tokens\\n' * 2_000_000,"
               " channel='playground')\n"
               "tokenizer_process.stop()\n"
               "try:\n"
               "    long.result()\n"
               "except (Cancelled, CancelledError):\n"          # stopped at its next chunk, or never started
               "    print('stopped', flush=True)\n"
               "try:\n"
               "    tokenizer_process.run(os.getpid)\n"
               "except tokenizer_process.ProcessStopped:\n"
               "    print('refused', flush=True)\n"
               "print(child, flush=True)\n")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0 and done.stderr == "", done.stderr[-2000:]
    lines = done.stdout.split()
    assert lines[:2] == ["stopped", "refused"] and _exited(int(lines[2]), 30)


def test_with_no_scene_holding_it_the_process_ends_after_its_jobs_and_a_holder_keeps_it():
    """Scene 8's corpus rates and scene 3's cut loaded vocabularies that stayed in a process of 140-160 MB behind
    every later scene (memory benchmark: 441 MB after visiting every scene, against 350)."""
    class Owner:
        pass
    owner = Owner()
    tokenizer_process.hold(owner)
    try:
        kept = tokenizer_process.run(os.getpid)
        assert kept != os.getpid() and tokenizer_process.run(os.getpid) == kept        # held: the same process
    finally:
        tokenizer_process.let_go(owner)
    tokenizer_process.release_if_idle()
    assert _exited(kept, 30)
    asked = tokenizer_process.run(os.getpid)                          # asked once, by a scene that holds nothing
    assert asked not in (kept, os.getpid()) and _exited(asked, 30)    # ends once its job is done


def test_a_count_dropped_by_quitting_ends_the_threads_waiting_for_it_with_process_stopped(monkeypatch):
    """Ctrl+C at 0.9 s of start-up: quitting cancelled the corpus count that scene 8's warm-up thread waited for,
    and the thread died printing a CancelledError traceback (clean-clone CI)."""
    from concurrent.futures import Future

    from desktop.scenes.one_token import cuts

    dropped: Future = Future()
    dropped.cancel()
    monkeypatch.setattr(prepared, "ask", lambda tokenizers: {t: dropped for t in tokenizers})
    first_asks = [dropped]                                         # then the real ask, which submits anew
    real_ask = cuts.ask
    monkeypatch.setattr(cuts, "ask", lambda source: first_asks.pop() if first_asks else real_ask(source))
    monkeypatch.setattr(tokenizer_process._process, "_pool", None)     # the app quit: no process, and no new one
    monkeypatch.setattr(tokenizer_process._process, "quitting", True)
    with pytest.raises(tokenizer_process.ProcessStopped):
        prepared.profiles(("gpt2",))
    with pytest.raises(tokenizer_process.ProcessStopped):
        cuts.cut(("gpt2", "推理", "加速"))
    monkeypatch.setattr(tokenizer_process, "submit", lambda job, *args, channel=None: dropped)
    with pytest.raises(tokenizer_process.ProcessStopped):
        tokenizer_process.run(os.getpid)
