"""What any visit of scene 6 can show at once: each tokenizer's cuts of the seed's examples and counts of the corpus.

A tokenizer's ``Profile`` (its cuts of the five examples, its counts of the
app's parallel corpus: a few KB) is worked out once per run of the app, in the
tokenizer process (``desktop.kit.tokenizer_process``), and kept here for every later
visit, export and speaker preview. ``prepare(model_id)`` starts that work for
the tokenizers the scene shows first and returns at once: called in idle time
after the app's first frame, it has the scene's first visit show its real cuts
and ratios at once. ``profiles(tokenizers)`` waits for those it is asked for (a
worker thread, an export); each tokenizer is asked of the process once,
however many ask for it meanwhile.

The vocabularies themselves stay in the tokenizer process, loaded once and
shared by every job; ``keep_only`` drops the ones the scene no longer counts
with, so memory follows what is shown.
"""
from __future__ import annotations

import threading
from concurrent.futures import Future
from functools import partial

from desktop.kit import tokenizer_process
from engine.frozen import frozen
from engine.tokens import forget_loaded

from .corpus import CorpusCounts, app_corpus, count_pairs, counted_tokenizers
from .cuts import DEFAULT_TOKENIZERS, SeedCut, seed_cuts


@frozen
class Profile:
    """One tokenizer's cuts of the seed's examples (in their order) and its counts of the app's corpus."""
    tokenizer: str
    seed_cuts: tuple[SeedCut, ...]
    corpus: CorpusCounts


def profile_job(tokenizer: str) -> Profile:
    """``tokenizer``'s profile (loads its vocabulary: run in the tokenizer process)."""
    return Profile(tokenizer, seed_cuts(tokenizer), count_pairs(tokenizer, app_corpus()))


def keep_only(tokenizers: tuple[str, ...]) -> None:
    """Drop every loaded vocabulary but those of ``tokenizers`` (run in the tokenizer process)."""
    forget_loaded(keep=tokenizers)


_lock = threading.Lock()
_known: dict[str, Profile] = {}
_asked: dict[str, Future] = {}


def known(tokenizers) -> dict[str, Profile]:
    """The profiles of ``tokenizers`` worked out so far (never waits)."""
    with _lock:
        return {t: _known[t] for t in tokenizers if t in _known}


def ask(tokenizers) -> dict[str, Future]:
    """Ask the tokenizer process for the profiles of ``tokenizers`` not known yet (once each); returns the
    futures of those still coming."""
    with _lock:
        wanted = [t for t in dict.fromkeys(tokenizers) if t not in _known and t not in _asked]
    futures = {t: tokenizer_process.submit(profile_job, t) for t in wanted}
    with _lock:
        for tokenizer, future in futures.items():
            _asked.setdefault(tokenizer, future)
        coming = {t: _asked[t] for t in tokenizers if t in _asked and t not in _known}
    for tokenizer, future in futures.items():
        future.add_done_callback(partial(_arrived, tokenizer))
    return coming


def profiles(tokenizers) -> dict[str, Profile]:
    """The profiles of ``tokenizers``, waited for (a worker thread, an export); a failed job's error is raised,
    and ``ProcessStopped`` once the app is quitting."""
    found = known(tokenizers)
    for tokenizer, future in ask(tokenizers).items():
        try:
            found[tokenizer] = tokenizer_process.wait(future)
        except tokenizer_process.ProcessStopped:  # died meanwhile: once more, in a new process (quitting: raises)
            with _lock:
                _asked.pop(tokenizer, None)
            found[tokenizer] = tokenizer_process.run(profile_job, tokenizer)
            _remember(found[tokenizer])
    return {t: found[t] for t in tokenizers}


def prepare(model_id: str) -> None:
    """Start working out what the scene's first visit shows (the default tokenizers and the model's); returns
    at once: the tokenizer process is started from a thread of its own (importing multiprocessing and starting a
    process take tens of ms). Nothing where the jobs would run in this process: loading there stalls the window."""
    threading.Thread(target=_prepare, args=(counted_tokenizers(DEFAULT_TOKENIZERS, model_id),), daemon=True,
                     name="inference-physics-prepare").start()


def _prepare(tokenizers: tuple[str, ...]) -> None:
    if not tokenizer_process.in_process():
        ask(tokenizers)


def _arrived(tokenizer: str, future: Future) -> None:
    with _lock:
        if _asked.get(tokenizer) is future:
            del _asked[tokenizer]
    if not future.cancelled() and future.exception() is None:
        _remember(future.result())


def _remember(profile: Profile) -> None:
    with _lock:
        _known[profile.tokenizer] = profile
