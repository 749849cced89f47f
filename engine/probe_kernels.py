"""The probe's four measurements on one ``Backend``, each the best of several timed runs.

- ``measure_bandwidth``: a streaming read of one array and a copy between two,
  bytes per second (the copy counts what it reads and what it writes);
- ``measure_compute``: an n x n float32 matrix product, n doubled from 256 until
  one product takes ``SLOW_ENOUGH_SECONDS`` (where the BLAS has left its start-up
  behind) or the memory budget stops it; FLOP per second;
- ``time_matrices``: the products of a decode step or a prefill pass, each
  weight matrix against the same tokens (a vector for one token).

Best of several, not the mean: other programs, the first touch of fresh memory
and a clock that has not yet sped up can only make a run slower, never faster.
Every measurement spreads its runs over ``WINDOW_SECONDS`` (at least three
runs), so that one burst of another program's work cannot spoil all of them.
``Stage`` carries the progress report and the cancellation check that each run
passes through.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from engine.frozen import frozen
from engine.probe_backends import Backend
from engine.probe_sizes import FLOAT32_BYTES, READ_VALUE_BYTES, ProbeSizes, WeightMatrix

SLOW_ENOUGH_SECONDS = 0.05
RUNS = 50                  # the most runs of one measurement
WINDOW_SECONDS = 0.6       # ... and how long they are spread over, at least three runs


class ProbeCancelled(Exception):
    """The caller asked the probe to stop; nothing it measured is kept."""


@dataclass
class Stage:
    """One stage's slice [start, end) of the whole probe's progress, and how to report and cancel."""
    name: str                                          # "bandwidth", "compute", "decode", "prefill"
    start: float
    end: float
    progress: Callable[[str, float], None] | None = None
    cancelled: Callable[[], bool] | None = None

    def report(self, fraction: float) -> None:
        """Say how far this stage has come (0..1), after checking whether the caller wants to stop."""
        if self.cancelled is not None and self.cancelled():
            raise ProbeCancelled()
        if self.progress is not None:
            self.progress(self.name, self.start + (self.end - self.start) * min(1.0, max(0.0, fraction)))


@frozen
class Timing:
    seconds: float                 # the best run
    runs: int
    core_share: float | None       # CPU time over (wall time x the BLAS's threads) of all runs (None: not counted)


def best_of(run: Callable[[], None], backend: Backend, stage: Stage, *, fewest: int = 3, most: int = RUNS,
            seconds: float = WINDOW_SECONDS, done: float = 0.0, share: float = 1.0) -> Timing:
    """The best time of ``run`` over ``fewest`` to ``most`` runs, stopping after ``seconds`` once ``fewest``
    are done; progress goes from ``done`` to ``done + share`` of the stage.

    On a CPU it also counts the process's CPU time: a BLAS whose threads all kept their cores
    spends ``threads`` CPU-seconds per second; less means other programs took cores."""
    times: list[float] = []
    cpu_seconds = 0.0
    started = time.perf_counter()
    while len(times) < most:
        elapsed = time.perf_counter() - started
        stage.report(done + share * max(len(times) / most, min(1.0, elapsed / seconds) if seconds else 0.0))
        backend.synchronize()
        cpu_before, before = time.process_time(), time.perf_counter()
        run()
        backend.synchronize()
        times.append(time.perf_counter() - before)
        cpu_seconds += time.process_time() - cpu_before
        if len(times) >= fewest and time.perf_counter() - started >= seconds:
            break
    threads = backend.blas_threads
    return Timing(min(times), len(times), min(1.0, cpu_seconds / sum(times) / threads) if threads else None)


@frozen
class Bandwidth:
    read_bytes_per_second: float
    copy_bytes_per_second: float


def measure_bandwidth(backend: Backend, sizes: ProbeSizes, stage: Stage) -> Bandwidth:
    """The streaming read and the copy (module docstring)."""
    array = backend.ones(sizes.read_values)
    read = best_of(lambda: backend.read(array), backend, stage, share=0.5)
    del array
    backend.release()
    source, destination = backend.ones(sizes.copy_values), backend.ones(sizes.copy_values)
    copy = best_of(lambda: backend.copy(destination, source), backend, stage, done=0.5, share=0.5)
    del source, destination
    backend.release()
    stage.report(1.0)
    return Bandwidth(read_bytes_per_second=sizes.read_values * READ_VALUE_BYTES / read.seconds,
                     copy_bytes_per_second=2 * sizes.copy_values * READ_VALUE_BYTES / copy.seconds)


@frozen
class Compute:
    flops_per_second: float
    matmul_size: int
    runs: int
    core_share: float | None


def measure_compute(backend: Backend, sizes: ProbeSizes, stage: Stage) -> Compute:
    """The float32 matrix product's rate at the size where the BLAS reaches its peak (module docstring)."""
    n = 256
    while True:
        a, b, out = backend.random_matrix(n, n), backend.random_matrix(n, n), backend.empty_matrix(n, n)
        backend.matmul(a, b, out)                      # the BLAS starts its threads and warms its buffers
        trial = best_of(lambda: backend.matmul(a, b, out), backend, stage, fewest=1, most=1, seconds=0.0,
                        done=0.3 * n / sizes.largest_matmul_size, share=0.0)
        if trial.seconds >= SLOW_ENOUGH_SECONDS or 2 * n > sizes.largest_matmul_size:
            break
        del a, b, out
        n *= 2
    timing = best_of(lambda: backend.matmul(a, b, out), backend, stage, done=0.3, share=0.7)
    del a, b, out
    backend.release()
    stage.report(1.0)
    best = min(timing.seconds, trial.seconds)
    return Compute(flops_per_second=2.0 * n ** 3 / best, matmul_size=n, runs=timing.runs + 1,
                   core_share=timing.core_share)


@frozen
class MatricesWork:
    """What the products of one pass do: FLOPs, and bytes read and written (weights, inputs, outputs)."""
    tokens: int
    flops: float
    bytes: float


def matrices_work(matrices: tuple[WeightMatrix, ...], tokens: int) -> MatricesWork:
    """The FLOPs and bytes of multiplying every matrix by ``tokens`` tokens, each read and written once."""
    flops = sum(2.0 * m.rows * m.columns * tokens for m in matrices)
    moved = sum(m.bytes + tokens * (m.rows + m.columns) * FLOAT32_BYTES for m in matrices)
    return MatricesWork(tokens=tokens, flops=flops, bytes=float(moved))


def time_matrices(backend: Backend, weights: list, matrices: tuple[WeightMatrix, ...], tokens: int,
                  stage: Stage) -> Timing:
    """The best time of multiplying every weight by ``tokens`` tokens' activations (one token: a vector)."""
    inputs, outputs = {}, {}
    for m in matrices:
        if m.columns not in inputs:
            matrix = backend.random_matrix(tokens, m.columns)
            inputs[m.columns] = matrix[0] if tokens == 1 else matrix
        if m.rows not in outputs:
            matrix = backend.empty_matrix(tokens, m.rows)
            outputs[m.rows] = matrix[0] if tokens == 1 else matrix
    if tokens == 1:
        calls = [(weight, inputs[m.columns], outputs[m.rows]) for weight, m in zip(weights, matrices)]
    else:
        calls = [(inputs[m.columns], weight.T, outputs[m.rows]) for weight, m in zip(weights, matrices)]
    matmul = backend.matmul

    def run() -> None:
        for a, b, out in calls:
            matmul(a, b, out)

    run()                                              # warm-up: first touch of the outputs, the BLAS's threads
    stage.report(0.1)
    timing = best_of(run, backend, stage, done=0.1, share=0.9)
    stage.report(1.0)
    return timing
