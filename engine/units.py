"""The one place that turns numbers in SI units into display text.

The engine computes in bytes, seconds, FLOP and dollars; only text shown to a
person (the CLI's readable report, the desktop's labels) goes through here.
Decimal prefixes (GB = 10^9 bytes) match the datasheets; KiB/GiB are used only
where a source states binary units (the seed's 320 KB per token is 320 KiB).
"""
from __future__ import annotations

import math
import re

KiB = 1024
MiB = 1024 ** 2
GiB = 1024 ** 3
KB = 1e3
MB = 1e6
GB = 1e9
TB = 1e12
TERA = 1e12

NO_BREAK_SPACE = "\u00a0"
_SPACE_AFTER_DIGIT = re.compile(r"(?<=\d) (?=\S)")
_DECIMAL_BYTE_UNITS = ((1e15, "PB"), (1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "KB"), (1.0, "B"))
_BINARY_BYTE_UNITS = ((GiB * 1024, "TiB"), (GiB, "GiB"), (MiB, "MiB"), (KiB, "KiB"), (1.0, "B"))


def _significant(value: float, digits: int = 3) -> str:
    """``value`` with about ``digits`` significant figures, no exponent, no trailing zeros."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def format_number(value: float, digits: int = 3) -> str:
    """A bare number with about ``digits`` significant figures, for texts that write the unit
    themselves in the reader's language ("295" in "295 FLOP/字节")."""
    return _significant(value, digits)


def format_about(value: float, digits: int = 3) -> str:
    """An estimate to about ``digits`` significant figures, thousands grouped as in a count: 305402.7 ->
    "305,000", 12.34 -> "12.3" (an "about" beside counts written with ``format_count``)."""
    if value == 0 or not math.isfinite(value):
        return _significant(value, digits)
    rounded = round(value, digits - 1 - math.floor(math.log10(abs(value))))
    return format_count(rounded) if abs(rounded) >= 10 ** digits else _significant(rounded, digits)


def _scaled(value: float, units: tuple[tuple[float, str], ...], digits: int) -> str:
    for scale, unit in units:
        if abs(value) >= scale:
            return f"{_significant(value / scale, digits)} {unit}"
    return f"{_significant(value / units[-1][0], digits)} {units[-1][1]}"


def format_bytes(n_bytes: float, digits: int = 3, binary: bool = False) -> str:
    """140e9 -> "140 GB"; 327680 with binary=True -> "320 KiB"."""
    return _scaled(n_bytes, _BINARY_BYTE_UNITS if binary else _DECIMAL_BYTE_UNITS, digits)


def format_bandwidth(bytes_per_second: float, digits: int = 3) -> str:
    """3.35e12 -> "3.35 TB/s"."""
    return format_bytes(bytes_per_second, digits) + "/s"


def format_flops(flops_per_second: float, digits: int = 3) -> str:
    """Peak compute in TFLOPS, the unit of every datasheet: 989e12 -> "989 TFLOPS"."""
    return f"{_significant(flops_per_second / TERA, digits)} TFLOPS"


def format_ops(ops_per_second: float, digits: int = 3) -> str:
    """Peak integer throughput in TOPS, as datasheets give INT8/INT4 peaks: 1979e12 -> "1979 TOPS"."""
    return f"{_significant(ops_per_second / TERA, digits)} TOPS"


def format_flop(flop: float, digits: int = 3) -> str:
    """An amount of work: 1.4e14 -> "140 TFLOP"; 1.4e11 -> "140 GFLOP"."""
    return _scaled(flop, ((1e15, "PFLOP"), (1e12, "TFLOP"), (1e9, "GFLOP"), (1e6, "MFLOP"), (1.0, "FLOP")), digits)


def format_seconds(seconds: float, digits: int = 3) -> str:
    """0.0421 -> "42.1 ms"; 7.5 -> "7.5 s"; 3.2e-5 -> "32 µs"; 0 -> "0 s" (no time yet has no unit to scale)."""
    if seconds == 0 or abs(seconds) >= 1:
        return f"{_significant(seconds, digits)} s"
    if abs(seconds) >= 1e-3:
        return f"{_significant(seconds * 1e3, digits)} ms"
    return f"{_significant(seconds * 1e6, digits)} µs"


def format_ratio(value: float, digits: int = 3) -> str:
    """295.2 -> "295×"."""
    return f"{_significant(value, digits)}×"


def format_percent(share: float, digits: int = 3) -> str:
    """0.953 -> "95.3%"; share is 0..1."""
    return f"{_significant(share * 100, digits)}%"


MAX_COUNT_DIGITS = 24      # a count with more digits is shown as "1.23e+30": no echo floods a line


def format_count(n: float) -> str:
    """131072 -> "131,072"; beyond ``MAX_COUNT_DIGITS`` digits, or not finite, in scientific notation."""
    if isinstance(n, float) and not math.isfinite(n):
        return str(n)
    if abs(n) < 10 ** MAX_COUNT_DIGITS:
        return f"{int(round(n)):,}"
    try:
        return f"{float(n):.3g}"
    except OverflowError:                      # an integer beyond the largest float
        return f"{'-' if n < 0 else ''}1e+{int(abs(int(n)).bit_length() * math.log10(2))}"


def format_value_size(bytes_per_value: float) -> str:
    """The size of one stored value, unit spelled out: 1 -> "1 byte"; 2 -> "2 bytes"; below a byte in
    bits, as 4-bit formats are named: 0.5 -> "4 bits"; 0.5625 -> "4.5 bits"."""
    if bytes_per_value < 1:
        return f"{_significant(bytes_per_value * 8)} bits"
    return f"{_significant(bytes_per_value)} {'byte' if bytes_per_value == 1 else 'bytes'}"


def format_tokens_per_second(tokens_per_second: float, digits: int = 3) -> str:
    """A generation speed: 24.13 -> "24.1 tokens/s"."""
    return f"{_significant(tokens_per_second, digits)} tokens/s"


def format_hex_byte(value: int) -> str:
    """One byte as programmers write it: 159 -> "0x9f"."""
    return f"0x{value:02x}"


def format_usd(dollars: float, digits: int = 3) -> str:
    """1.234 -> "$1.23"."""
    return f"${_significant(dollars, digits)}"


def format_intensity(flops_per_byte: float, digits: int = 3) -> str:
    """Arithmetic intensity: 295.3 -> "295 FLOP/byte"."""
    return f"{_significant(flops_per_byte, digits)} FLOP/byte"


def format_parameters(parameters: float, digits: int = 3) -> str:
    """A parameter count the way model names say it: 70.55e9 -> "70.6B"; 6.7e8 -> "670M"."""
    for scale, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(parameters) >= scale:
            return f"{_significant(parameters / scale, digits)}{unit}"
    return _significant(parameters, digits)


def glue_units(text: str) -> str:
    """``text`` with a no-break space for every space after a digit, so no line ends between a number and its
    unit: "42.1 ms" -> "42.1\u00a0ms" (and "Llama 3.1 70B" keeps "3.1\u00a070B" together)."""
    return _SPACE_AFTER_DIGIT.sub(NO_BREAK_SPACE, text)
