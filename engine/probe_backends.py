"""Where the probe's arrays live: numpy on the CPU, or CuPy or PyTorch on a GPU if one is installed.

A ``Backend`` is the handful of operations the probe times, written once for
any array library that speaks numpy's language (``@``, ``.T``, ``.sum()``,
``a[...] = b``); each library adds only how it makes arrays, waits for its
device and says how much memory is free. CuPy and PyTorch are never
dependencies: they are imported only when asked for (``find_accelerator``),
and a library that is missing, broken or finds no GPU means no accelerator.

On the CPU, numpy's sum and copy run on one core, so the streaming read and
the copy split their arrays into one slice per usable core and run the
slices on threads (numpy lets go of the interpreter lock in both); the
matrix products run on the BLAS's own threads. The CPU's read takes the
maximum of float64 ones: numpy's maximum runs on the core's vector unit,
while its sum adds pairwise and, on data a cache holds, is limited by its
additions rather than by memory (a GPU's sum is not).
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import field
from typing import Any, Callable

import numpy as np

from engine.frozen import frozen

_RANDOM_BLOCK_VALUES = 1 << 18        # weights are tiles of one random block: memory speed, not generator speed


def _sum(array) -> None:
    array.sum()


def _copy(destination, source) -> None:
    destination[...] = source


def _nothing() -> None:
    return None


@frozen
class Backend:
    """The operations the probe times on one device."""
    device: str                                     # "cpu", "cuda:0"
    device_name: str                                # "Intel(R) Xeon(R) Processor", "NVIDIA H200"
    library: str                                    # "numpy", "cupy", "torch"
    ones: Callable[[int], Any]                      # n float64 ones (the bandwidth arrays)
    random_matrix: Callable[[int, int], Any]        # float32 (rows, columns), values in [0, 1)
    empty_matrix: Callable[[int, int], Any]         # float32 (rows, columns), for results
    matmul: Callable[[Any, Any, Any], Any]          # matmul(a, b, out)
    free_memory_bytes: Callable[[], int | None]
    synchronize: Callable[[], None] = _nothing      # wait until the device has finished
    release: Callable[[], None] = _nothing          # hand freed memory back (a GPU's memory pool)
    read: Callable[[Any], None] = _sum              # stream every value of an array once
    copy: Callable[[Any, Any], None] = _copy        # copy(destination, source)
    blas_threads: int = 0                           # the CPU's BLAS threads (0: a GPU, whose cores are not counted)
    extra: dict = field(default_factory=dict)       # what the backend keeps alive (the CPU's thread pool)


# ----------------------------------------------------------------------------- the CPU

def cpu_backend(device_name: str, cores: int, free_memory_bytes: Callable[[], int | None],
                blas_threads: int | None = None) -> Backend:
    """numpy on ``cores`` cores: the read and the copy sliced over threads, products on the BLAS's
    ``blas_threads`` threads (default: ``cores``)."""
    pool = ThreadPoolExecutor(max_workers=cores, thread_name_prefix="probe")
    generator = np.random.default_rng(2024)
    block = generator.random(_RANDOM_BLOCK_VALUES, dtype=np.float32)

    def read(array) -> None:
        list(pool.map(np.max, np.array_split(array, cores)))

    def copy(destination, source) -> None:
        list(pool.map(np.copyto, np.array_split(destination, cores), np.array_split(source, cores)))

    def random_matrix(rows: int, columns: int):
        matrix = np.empty((rows, columns), dtype=np.float32)
        flat = matrix.reshape(-1)
        for start in range(0, flat.size, block.size):
            piece = flat[start:start + block.size]
            piece[...] = block[:piece.size]
        return matrix

    return Backend(device="cpu", device_name=device_name, library="numpy",
                   ones=lambda n: np.ones(n, dtype=np.float64), random_matrix=random_matrix,
                   empty_matrix=lambda rows, columns: np.empty((rows, columns), dtype=np.float32),
                   matmul=lambda a, b, out: np.matmul(a, b, out=out), free_memory_bytes=free_memory_bytes,
                   read=read, copy=copy, blas_threads=blas_threads or cores, extra={"pool": pool})


def close_backend(backend: Backend) -> None:
    """Stop the backend's threads, if it has any, and give its memory back."""
    pool = backend.extra.get("pool")
    if pool is not None:
        pool.shutdown(wait=True)
    backend.release()


# ----------------------------------------------------------------------------- GPUs

def _installed(name: str):
    """The module ``name`` if it is installed (imported now, only then), else None."""
    if name in sys.modules:
        return sys.modules[name]
    try:
        if importlib.util.find_spec(name) is None:
            return None
    except (ImportError, ValueError):
        return None
    return importlib.import_module(name)


def _cupy_backend() -> Backend | None:
    cupy = _installed("cupy")
    if cupy is None or cupy.cuda.runtime.getDeviceCount() < 1:
        return None
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    name = name.decode("utf-8", "replace") if isinstance(name, bytes) else str(name)
    return Backend(
        device="cuda:0", device_name=name, library="cupy",
        ones=lambda n: cupy.ones(n, dtype=cupy.float64),
        random_matrix=lambda rows, columns: cupy.random.random((rows, columns), dtype=cupy.float32),
        empty_matrix=lambda rows, columns: cupy.empty((rows, columns), dtype=cupy.float32),
        matmul=lambda a, b, out: cupy.matmul(a, b, out=out),
        free_memory_bytes=lambda: int(cupy.cuda.runtime.memGetInfo()[0]),
        synchronize=cupy.cuda.runtime.deviceSynchronize,
        release=lambda: cupy.get_default_memory_pool().free_all_blocks())


def _torch_backend() -> Backend | None:
    torch = _installed("torch")
    if torch is None or not torch.cuda.is_available():
        return None
    device = "cuda:0"
    return Backend(
        device=device, device_name=str(torch.cuda.get_device_name(0)), library="torch",
        ones=lambda n: torch.ones(n, dtype=torch.float64, device=device),
        random_matrix=lambda rows, columns: torch.rand((rows, columns), dtype=torch.float32, device=device),
        empty_matrix=lambda rows, columns: torch.empty((rows, columns), dtype=torch.float32, device=device),
        matmul=lambda a, b, out: torch.matmul(a, b, out=out),
        free_memory_bytes=lambda: int(torch.cuda.mem_get_info(0)[0]),
        synchronize=torch.cuda.synchronize, release=torch.cuda.empty_cache)


def find_accelerator() -> Backend | None:
    """A GPU backend through CuPy, else PyTorch, if either is installed and sees a GPU; else None."""
    for make in (_cupy_backend, _torch_backend):
        try:
            backend = make()
        except Exception:          # a broken install or a missing driver: this machine has no usable GPU
            backend = None
        if backend is not None:
            return backend
    return None
