"""One module per command (generate, diff, edit, check, show, test, init, explain, schema):
each reads its request (or an invocation opened from it) and returns the ``Outcome`` the CLI
prints. No command imports another; what several share stands below them (``run``, ``checking``).
"""
