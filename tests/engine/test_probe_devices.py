"""GPUs through CuPy or PyTorch, faked here (numpy behind a CUDA-shaped face), and devices that fail.

No real GPU or library is needed: a fake module in ``sys.modules`` is what
``engine.probe_backends`` finds, so these tests run the very code a machine
with a GPU runs, up to the library's own calls.
"""
from __future__ import annotations

import sys
import types
from dataclasses import replace

import numpy as np
import pytest

from engine.errors import InputError, display_values, english
from engine.probe import ProbeError, device_stages, probe_device
from engine.probe_backends import cpu_backend, close_backend, find_accelerator
from engine.probe_sizes import probe_sizes
from tests.engine.probe_fixtures import QWEN3_SHAPES, quick_probe

FAKE_FREE_BYTES = 80_000_000       # the fake GPU's free memory: a quarter of it is the probe's working set


class _Calls:
    def __init__(self):
        self.synchronized = 0
        self.released = 0


def fake_cupy(calls: _Calls) -> types.ModuleType:
    runtime = types.SimpleNamespace(
        getDeviceCount=lambda: 1, getDeviceProperties=lambda index: {"name": b"NVIDIA Fake GPU"},
        memGetInfo=lambda: (FAKE_FREE_BYTES, 4 * FAKE_FREE_BYTES),
        deviceSynchronize=lambda: setattr(calls, "synchronized", calls.synchronized + 1))
    module = types.ModuleType("cupy")
    module.cuda = types.SimpleNamespace(runtime=runtime)
    module.float32, module.float64 = np.float32, np.float64
    module.ones, module.empty, module.matmul = np.ones, np.empty, np.matmul
    module.random = types.SimpleNamespace(random=lambda shape, dtype: np.random.random(shape).astype(dtype))
    module.get_default_memory_pool = lambda: types.SimpleNamespace(
        free_all_blocks=lambda: setattr(calls, "released", calls.released + 1))
    return module


def fake_torch(calls: _Calls, matmul=None) -> types.ModuleType:
    def on_device(make):
        def made(shape, dtype, device):
            assert device == "cuda:0"
            return make(shape, dtype)
        return made

    module = types.ModuleType("torch")
    module.float32, module.float64 = np.float32, np.float64
    module.ones = on_device(lambda n, dtype: np.ones(n, dtype=dtype))
    module.empty = on_device(lambda shape, dtype: np.empty(shape, dtype=dtype))
    module.rand = on_device(lambda shape, dtype: np.random.random(shape).astype(dtype))
    module.matmul = matmul or np.matmul
    module.cuda = types.SimpleNamespace(
        is_available=lambda: True, get_device_name=lambda index: "NVIDIA Fake Torch GPU",
        mem_get_info=lambda index: (FAKE_FREE_BYTES, 4 * FAKE_FREE_BYTES),
        synchronize=lambda: setattr(calls, "synchronized", calls.synchronized + 1),
        empty_cache=lambda: setattr(calls, "released", calls.released + 1))
    return module


@pytest.fixture
def no_gpu_library(monkeypatch):
    """Neither library importable (a None in sys.modules refuses the import), whatever this machine has."""
    monkeypatch.setitem(sys.modules, "cupy", None)
    monkeypatch.setitem(sys.modules, "torch", None)


def test_without_cupy_or_torch_there_is_no_accelerator(no_gpu_library):
    assert find_accelerator() is None


def test_a_library_that_fails_to_start_means_no_accelerator(no_gpu_library, monkeypatch):
    broken = types.ModuleType("torch")
    broken.cuda = types.SimpleNamespace(is_available=lambda: (_ for _ in ()).throw(RuntimeError("no driver")))
    monkeypatch.setitem(sys.modules, "torch", broken)
    assert find_accelerator() is None


@pytest.mark.parametrize("library", ["cupy", "torch"])
def test_a_gpu_is_measured_too_and_says_which_device(no_gpu_library, monkeypatch, library):
    calls = _Calls()
    monkeypatch.setitem(sys.modules, library, (fake_cupy if library == "cupy" else fake_torch)(calls))
    heard = []
    result = quick_probe(accelerators=True, progress=lambda stage, fraction: heard.append(fraction))
    gpu = result.accelerator
    assert gpu is not None and result.accelerator_error is None
    assert (gpu.device, gpu.library) == ("cuda:0", library) and "Fake" in gpu.device_name
    assert gpu.sizes.working_set_bytes == min(result.cpu.sizes.working_set_bytes, FAKE_FREE_BYTES // 4)
    assert gpu.decode.measured_seconds > 0 and gpu.prefill.measured_seconds > 0
    assert calls.synchronized >= 2 * (gpu.decode.runs + gpu.prefill.runs) and calls.released >= 1
    data = result.to_json_dict()
    assert data["device"]["kind"] == "cpu" and data["accelerator"]["device"]["kind"] == "cuda:0"
    assert data["accelerator"]["memory_bandwidth_bytes_per_second"] == gpu.memory_bandwidth_bytes_per_second
    assert heard == sorted(heard) and heard[-1] == pytest.approx(1.0)
    assert max(f for f in heard if f <= 0.7 + 1e-9) == pytest.approx(0.7)        # the CPU's share ends at 0.7


@pytest.mark.parametrize("where", ["matmul", "free memory"])
def test_a_gpu_that_fails_leaves_the_cpus_figures_and_says_why(no_gpu_library, monkeypatch, where):
    def failing(*args, **kwargs):
        raise RuntimeError("CUDA error: an illegal memory access was encountered")
    torch = fake_torch(_Calls(), matmul=failing if where == "matmul" else None)
    if where == "free memory":
        torch.cuda.mem_get_info = failing
    monkeypatch.setitem(sys.modules, "torch", torch)
    result = quick_probe(accelerators=True)
    assert result.accelerator is None and result.cpu.decode.measured_seconds > 0
    error = result.accelerator_error
    assert isinstance(error, ProbeError) and error.code == "probe.failed"
    assert str(error) == ("The measurement on NVIDIA Fake Torch GPU failed (CUDA error: an illegal memory access "
                          "was encountered); no figure from it is shown.")
    assert result.to_json_dict()["accelerator_problem"] == str(error)


def _failing_cpu(**replaced):
    backend = cpu_backend("Test CPU", 1, lambda: 10_000_000)
    return replace(backend, **replaced)


@pytest.mark.parametrize("problem, code, words", [
    (RuntimeError("BLAS : Program is Terminated. Because you tried to allocate too many memory regions."),
     "probe.failed", "The measurement on Test CPU failed (BLAS : Program is Terminated."),
    (MemoryError(), "probe.out_of_memory", "Test CPU ran out of memory for the probe's 16 MB of arrays"),
])
def test_a_failing_blas_or_too_little_memory_is_one_sentence_and_no_figures(problem, code, words):
    def fails(*args, **kwargs):
        raise problem
    backend = _failing_cpu(matmul=fails)
    try:
        with pytest.raises(ProbeError) as caught:
            probe_device(backend, probe_sizes(QWEN3_SHAPES, 16_000_000), device_stages())
    finally:
        close_backend(backend)
    error = caught.value
    assert isinstance(error, InputError) and error.code == code and str(error).startswith(words)
    assert str(error) == english(f"errors.{code}", **display_values(code, error.values, english))
    assert "\n" not in str(error)
