"""The machine's own description: CPU name, cores, memory, cache and BLAS, read from what the system reports."""
from __future__ import annotations

import sys
import types

import pytest

import engine.probe_machine as pm

# Two cores with two hyper-threads each, as /proc/cpuinfo lists them (fields cut to those read).
CPUINFO_X86 = "".join(
    f"processor\t: {n}\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Core(TM)  i7-8650U CPU @ 1.90GHz\n"
    f"physical id\t: 0\nsiblings\t: 4\ncore id\t\t: {n // 2}\ncpu cores\t: 2\n\n" for n in range(4))
CPUINFO_PI = "processor\t: 0\nBogoMIPS\t: 108.00\n\nHardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n"
MEMINFO = ("MemTotal:       16303412 kB\nMemFree:         1112200 kB\nMemAvailable:    9875432 kB\n"
           "HugePages_Total:       0\n")


@pytest.fixture
def linux_files(monkeypatch):
    """A Linux whose /proc files are the texts given."""
    files: dict[str, str] = {}
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(pm, "_read_text", lambda path: files.get(path, ""))
    return files


def test_the_cpu_name_and_cores_come_from_cpuinfo(linux_files):
    linux_files["/proc/cpuinfo"] = CPUINFO_X86
    assert pm.cpu_name() == "Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz"
    assert pm.physical_cores() == 2


def test_an_arm_board_names_its_model_and_an_empty_cpuinfo_falls_back_to_the_platform(linux_files, monkeypatch):
    linux_files["/proc/cpuinfo"] = CPUINFO_PI
    assert pm.cpu_name() == "Raspberry Pi 4 Model B Rev 1.4" and pm.physical_cores() is None
    linux_files["/proc/cpuinfo"] = ""
    monkeypatch.setattr(pm.platform, "processor", lambda: "")
    monkeypatch.setattr(pm.platform, "machine", lambda: "aarch64")
    assert pm.cpu_name() == "aarch64"


def test_memory_comes_from_meminfo_in_kibibytes(linux_files):
    linux_files["/proc/meminfo"] = MEMINFO
    assert pm.memory_bytes() == (16303412 * 1024, 9875432 * 1024)
    linux_files["/proc/meminfo"] = ""
    assert pm.memory_bytes() == (None, None)


@pytest.mark.parametrize("text, size", [("491520K", 480 * 1024 ** 2), ("32M\n", 32 * 1024 ** 2), ("512", 512),
                                        ("", None), ("big", None)])
def test_cache_sizes_are_read_as_sysfs_writes_them(text, size):
    assert pm._cache_size_bytes(text) == size


def test_without_threadpoolctl_the_thread_count_comes_from_the_environment_or_the_cores(monkeypatch):
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)
    for variable in pm._THREAD_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    name, version, threads, source = pm.blas_description()
    assert (threads, source) == (pm.usable_cores(), "cores") and name
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert pm.blas_description()[2:] == (3, "environment")
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "not a number")
    assert pm.blas_description()[2:] == (3, "environment")


def test_threadpoolctl_when_installed_asks_the_library_itself(monkeypatch):
    fake = types.ModuleType("threadpoolctl")
    fake.threadpool_info = lambda: [{"user_api": "openmp", "num_threads": 8},
                                    {"user_api": "blas", "internal_api": "mkl", "version": "2024.1", "num_threads": 6}]
    monkeypatch.setitem(sys.modules, "threadpoolctl", fake)
    assert pm.blas_description() == ("mkl", "2024.1", 6, "threadpoolctl")


def test_this_machine_describes_itself():
    machine = pm.describe_machine()
    assert machine.cpu_name and machine.logical_cores >= machine.usable_cores >= 1
    assert machine.blas_threads >= 1 and machine.blas_threads_from in {"threadpoolctl", "environment", "cores"}
    data = machine.to_json_dict()
    assert data["cpu"] == machine.cpu_name and data["blas"]["threads"] == machine.blas_threads
