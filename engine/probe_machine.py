"""What the machine says about itself: its CPU, cores, memory, last-level cache and BLAS.

Everything here is read from what the operating system and numpy report, never
measured and never downloaded: ``/proc/cpuinfo``, ``/proc/meminfo`` and sysfs on
Linux; ``sysctl`` on macOS; the registry and ``GlobalMemoryStatusEx`` on Windows
(no ``wmic``, which newer Windows lacks). A figure the system does not report is
None, and the probe then assumes the cautious case (``engine.probe_sizes``).

The BLAS and its thread count come from ``threadpoolctl`` when it is installed
(it asks the loaded library itself), otherwise from ``numpy.show_config`` and
the usual environment variables; ``blas_threads_from`` says which. Neither
threadpoolctl nor anything else here is a dependency.
"""
from __future__ import annotations

import importlib
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

from engine.frozen import frozen

# The variables that fix a BLAS's thread count, in the order the libraries read them.
_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "OMP_NUM_THREADS")


@frozen
class MachineInfo:
    """The machine as its system describes it (None: not reported)."""
    cpu_name: str                         # "Intel(R) Xeon(R) Processor", "Apple M2"
    logical_cores: int                    # what os.cpu_count() reports
    usable_cores: int                     # the cores this process may run on (affinity)
    physical_cores: int | None
    system: str                           # "Linux x86_64"
    memory_bytes: int | None
    available_memory_bytes: int | None    # free for new programs without swapping
    last_level_cache_bytes: int | None
    blas_name: str                        # "openblas", "mkl", "accelerate", or numpy's name for it
    blas_version: str
    blas_threads: int
    blas_threads_from: str                # "threadpoolctl", "environment" or "cores" (the library's default)
    numpy_version: str

    def to_json_dict(self) -> dict:
        return {"cpu": self.cpu_name, "logical_cores": self.logical_cores, "usable_cores": self.usable_cores,
                "physical_cores": self.physical_cores, "system": self.system, "memory_bytes": self.memory_bytes,
                "available_memory_bytes": self.available_memory_bytes,
                "last_level_cache_bytes": self.last_level_cache_bytes,
                "blas": {"name": self.blas_name, "version": self.blas_version, "threads": self.blas_threads,
                         "threads_from": self.blas_threads_from},
                "numpy_version": self.numpy_version}


def describe_machine() -> MachineInfo:
    """This machine's description, read now."""
    blas_name, blas_version, threads, threads_from = blas_description()
    memory, available = memory_bytes()
    return MachineInfo(
        cpu_name=cpu_name(), logical_cores=os.cpu_count() or 1, usable_cores=usable_cores(),
        physical_cores=physical_cores(), system=f"{platform.system()} {platform.machine()}".strip(),
        memory_bytes=memory, available_memory_bytes=available, last_level_cache_bytes=last_level_cache_bytes(),
        blas_name=blas_name, blas_version=blas_version, blas_threads=threads, blas_threads_from=threads_from,
        numpy_version=np.__version__)


# ----------------------------------------------------------------------------- CPU and cores

def _read_text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _sysctl(name: str) -> str:
    """A macOS (or BSD) ``sysctl`` value, "" where there is none."""
    try:
        done = subprocess.run(["sysctl", "-n", name], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _windows_cpu_name() -> str:
    try:
        import winreg
        key = winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, r"HARDWARE\DESCRIPTION\System\CentralProcessor\0")
        return str(winreg.QueryValueEx(key, "ProcessorNameString")[0])
    except (ImportError, OSError):
        return ""


def cpu_name() -> str:
    """The CPU's model name as the system reports it (never empty)."""
    name = ""
    if sys.platform.startswith("linux"):
        fields = dict(re.findall(r"^([^\t:\n]+?)\s*:\s*(.+)$", _read_text("/proc/cpuinfo"), re.MULTILINE))
        name = fields.get("model name") or fields.get("Model") or fields.get("Hardware") or ""
    elif sys.platform == "darwin":
        name = _sysctl("machdep.cpu.brand_string")
    elif sys.platform == "win32":
        name = _windows_cpu_name()
    return " ".join(name.split()) or platform.processor() or platform.machine() or "unknown CPU"


def usable_cores() -> int:
    """How many cores this process may run on (its affinity where the system has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def physical_cores() -> int | None:
    """Physical cores (without hyper-threads), or None where the system does not say."""
    if sys.platform.startswith("linux"):
        pairs = set(re.findall(r"physical id\s*:\s*(\d+)\n(?:.*\n)*?core id\s*:\s*(\d+)", _read_text("/proc/cpuinfo")))
        return len(pairs) or None
    if sys.platform == "darwin":
        text = _sysctl("hw.physicalcpu")
        return int(text) if text.isdigit() else None
    return None


# ----------------------------------------------------------------------------- memory and cache

def memory_bytes() -> tuple[int | None, int | None]:
    """(total, available) bytes of main memory; either is None where the system does not say."""
    if sys.platform.startswith("linux"):
        # /proc/meminfo counts these two in kibibytes; an old kernel has no MemAvailable (then: MemFree)
        fields = dict(re.findall(r"^(\w+):\s+(\d+)", _read_text("/proc/meminfo"), re.MULTILINE))
        total, available = fields.get("MemTotal"), fields.get("MemAvailable", fields.get("MemFree"))
        return (int(total) * 1024 if total else None), (int(available) * 1024 if available else None)
    if sys.platform == "darwin":
        text = _sysctl("hw.memsize")
        return (int(text) if text.isdigit() else None), None
    if sys.platform == "win32":
        return _windows_memory()
    return None, None


def _windows_memory() -> tuple[int | None, int | None]:
    try:
        import ctypes

        class Status(ctypes.Structure):
            _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong), ("total", ctypes.c_ulonglong),
                        ("available", ctypes.c_ulonglong), ("page_total", ctypes.c_ulonglong),
                        ("page_available", ctypes.c_ulonglong), ("virtual_total", ctypes.c_ulonglong),
                        ("virtual_available", ctypes.c_ulonglong), ("extended", ctypes.c_ulonglong)]
        status = Status(length=ctypes.sizeof(Status))
        if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):
            return int(status.total), int(status.available)
    except (ImportError, AttributeError, OSError):
        pass
    return None, None


def available_memory_bytes() -> int | None:
    """Bytes of main memory free for the probe now (None: the system does not say)."""
    return memory_bytes()[1]


def _cache_size_bytes(text: str) -> int | None:
    match = re.fullmatch(r"\s*(\d+)\s*([KMG]?)\s*", text)
    if not match:
        return None
    return int(match.group(1)) * {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}[match.group(2)]


def last_level_cache_bytes() -> int | None:
    """Size of the largest CPU cache the system reports (in a virtual machine: often the host's whole one)."""
    if sys.platform.startswith("linux"):
        sizes = [_cache_size_bytes(_read_text(str(index / "size")))
                 for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")]
        return max((size for size in sizes if size), default=None)
    if sys.platform == "darwin":
        for name in ("hw.l3cachesize", "hw.l2cachesize"):
            text = _sysctl(name)
            if text.isdigit() and int(text) > 0:
                return int(text)
    return None


# ----------------------------------------------------------------------------- BLAS

def blas_description() -> tuple[str, str, int, str]:
    """(name, version, threads, where the thread count came from) of the BLAS numpy multiplies with."""
    found = _threadpoolctl_blas()
    if found:
        return found
    name, version = _numpy_blas()
    for variable in _THREAD_VARIABLES:
        value = os.environ.get(variable, "").strip()
        if value.isdigit() and int(value) > 0:
            return name, version, int(value), "environment"
    default = physical_cores() if "mkl" in name.lower() else None       # MKL leaves hyper-threads idle
    return name, version, default or usable_cores(), "cores"


def _threadpoolctl_blas() -> tuple[str, str, int, str] | None:
    try:
        threadpoolctl = importlib.import_module("threadpoolctl")
        pools = [pool for pool in threadpoolctl.threadpool_info() if pool.get("user_api") == "blas"]
    except Exception:          # absent, or a version that cannot read this BLAS: fall back to numpy's word
        return None
    if not pools:
        return None
    pool = pools[0]
    return (str(pool.get("internal_api", "unknown")), str(pool.get("version") or ""),
            int(pool.get("num_threads") or 1), "threadpoolctl")


def _numpy_blas() -> tuple[str, str]:
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return str(blas.get("name", "unknown")), str(blas.get("version", ""))
    except Exception:          # an older or unusual numpy build that keeps its configuration elsewhere
        return "unknown", ""
