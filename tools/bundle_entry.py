"""The offline bundle's entry point (frozen by tools/bundle.py; not used by the installed app).

One program, two executables in the same folder:
- ``inference-physics``: the app, exactly ``desktop.__main__:run`` (the console script);
  ``inference-physics engine ARGS`` runs the engine's command line instead.
- ``inference-physics-engine ARGS``: the engine's command line (``report``, ``tokens``,
  ``catalog``); a console program, so that it prints on Windows too, where the app's
  executable is a windowed one without a console.
"""
from __future__ import annotations

import sys
from pathlib import Path

ENGINE_SUBCOMMAND = "engine"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if Path(sys.executable).stem.lower().endswith("-engine"):
        from engine.cli import main as engine_main
        return engine_main(argv)
    if argv[:1] == [ENGINE_SUBCOMMAND]:
        from engine.cli import main as engine_main
        return engine_main(argv[1:])
    from desktop.__main__ import run as app_main
    return app_main(argv)


if __name__ == "__main__":
    sys.exit(main())
