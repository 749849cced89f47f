"""The handout's paper: A4 or US Letter, chosen on the command line (``--paper``) or from the locale.

Qt-free, so the command line can name the choices before Qt starts. The
default follows the locale's paper (``LC_ALL``, else ``LC_PAPER``, else
``LANG``, as the C library reads them): Letter where it is the usual paper
(the United States, Canada, Mexico, the Philippines, Chile, Colombia and
Venezuela: the territories whose glibc locales set a 279 mm Letter page), A4
everywhere else, and A4 when no locale is set.
"""
from __future__ import annotations

import os
from typing import Mapping

PAPERS = ("a4", "letter")
LETTER_TERRITORIES = frozenset({"US", "CA", "MX", "PH", "CL", "CO", "VE"})


def default_paper(environ: Mapping[str, str] | None = None) -> str:
    """"letter" for a locale of a Letter territory ("en_US.UTF-8", "fr_CA"), else "a4"."""
    environ = os.environ if environ is None else environ
    locale = next((environ[name] for name in ("LC_ALL", "LC_PAPER", "LANG") if environ.get(name)), "")
    territory = locale.split(".")[0].split("@")[0].partition("_")[2].upper()
    return "letter" if territory in LETTER_TERRITORIES else "a4"
