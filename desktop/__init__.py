"""The application: window, scenes, presenter, language, settings, export (``python -m desktop``)."""
import sys as _sys

if _sys.argv[:1] == ["-m"]:
    # ``python -m desktop``, while Python is still finding __main__: from here on Ctrl+C, SIGTERM and SIGHUP
    # are noted and acted on at safe points (desktop.stop_request), never raised inside an import.
    from desktop import stop_request as _stop_request
    _stop_request.install()
