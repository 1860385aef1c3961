"""twsrt: one canonical sandbox policy, compiled into every AI coding agent's config."""

__version__ = "0.1.0"
