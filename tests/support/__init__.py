"""Helpers shared by the test modules; ``conftest.py`` holds only fixtures and hooks.

Test modules import from here (``from support.sandbox import Sandbox``), never from ``conftest``
or from another test module.
"""
