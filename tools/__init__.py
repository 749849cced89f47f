"""Developer tools that are not part of the installed app (tools/bundle.py: the offline bundle)."""
