"""The template scene: the smallest scene the kit makes, to copy (``docs/scene-kit.md``).

Not registered, so the app never shows it. A new scene is a copy of this folder
as ``desktop/scenes/<key>/``, of ``resources/text/template.toml`` as
``resources/text/<key>.toml``, and its key in ``desktop/scenes/registry.py``'s
``SCENES``. Nothing in these files names the key: it comes from the folder.
"""
