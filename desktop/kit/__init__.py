"""The scene kit: what every scene is built from (``docs/scene-kit.md``).

``scene`` (the ``Scene`` view base and its ``SceneKit`` of services),
``story`` (the Qt-free ``Story`` base), ``answers`` and ``questions`` (the one
cached way to ask the engine), ``worker`` (slow work off the UI thread),
``tokenizer_process`` (every vocabulary read in a process of its own),
``engine_process`` (the engine's slow questions computed in another),
``idle`` (work after the first frame), ``signals`` (writing to a control
without hearing it back); ``job_process``, ``child_process`` and ``imports``
serve them. The transition and playback helpers are Qt-free and live beside
the widgets that use them (``widgets/transition.py``,
``widgets/playback.py``).
"""
