"""``twsrt test``: probes derived from the policy, run in the real sandboxes, judged.

Modules, in pipeline order (only ``engines`` and ``run`` start processes or touch the disk):

- ``model``: the values (Probe, Attack, Plan, Fixtures, Observation, Result, ProbeReport,
  verdicts)
- ``globs``: the fixture-tree layout, glob matching and the canonical (srt) path semantics
- ``domains``: srt's domain matcher and the hosts probed for a domain rule
- ``derive``: every probe the policy implies and the fixture tree they need
- ``inputs``: each engine's input built inside the fixture tree
- ``commands``: the shell text of one probe and the parsing of its output
- ``attacks``, ``attack_scripts``: the adversarial probes per rule (each rule's target, then
  the attacks on it); ``batches``: attacks grouped, staged, run and judged on the host
- ``gaps``: the documented engine gaps: srt's, the gap-rule type each engine's table uses, and
  ``static_gaps`` for ``check`` (cheap to import: ``check`` loads nothing else of this package)
- ``verdicts``: PASS/FAIL/... for one probe, and the gap from the engine's table that explains a
  mismatch
- ``engines``: what every sandbox shares (the ``Engine`` protocol: availability, install hint,
  gap table), fixtures, processes, upstream stub; one ``engine_<name>`` module per sandbox
- ``run``: lanes of probes per engine, and ``run_tests``, the ProbeReport of a run context
  (``twsrt.commands.test`` renders it with ``twsrt.reports.probes``)

Fixture tree. Every run works in a fresh temporary directory ROOT, and every policy path is
probed at its image in that tree, never at the real path:

- ``~`` and ``~/x``   -> ``ROOT/home`` and ``ROOT/home/x`` (the temporary HOME of every run)
- relative ``x``      -> ``ROOT/work/x`` (the working directory of every run, Codex's workspace)
- absolute ``/x``     -> ``ROOT/fs/x`` (a mirror of ``/``; the real ``/x`` is never touched)

The engines get the policy with the same mapping applied (srt: every path made absolute;
Codex: absolute paths re-rooted, ``~`` and relative paths left to Codex's own HOME and
workspace), so a rule and its probe always name the same file. ``ROOT/outside`` is a directory
that no rule names. The one exception is the ``write-tmp`` probe, which creates and removes a
file in the real ``/tmp`` when no rule allows it: engines are known to open the system temp
directory on their own, and only the real one shows it.

Non-glob paths are created as directories with a file inside (read probes read that file); a
``denyWrite`` path is a file (the probe append-opens it) unless another probe needs it as a
directory, in which case a file inside it is used. Glob paths are probed at one concrete path
that matches the glob (``**`` -> one directory level, ``*`` -> ``twsrt-probe``).
"""
