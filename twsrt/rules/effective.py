"""Effective configuration rules (TWS6xx): a user-owned key or another config layer that the
agent loads grants more than the policy. Reported at the key's own line; twsrt never edits it."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

USER_UNSANDBOXED_COMMAND = Rule(
    "TWS601",
    "user-unsandboxed-command",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A user key lets commands run outside the agent's sandbox.",
    "`sandbox.excludedCommands` (Claude Code, DeepCode) runs the named commands without the "
    "sandbox, and `sandbox.allowUnsandboxedCommands: true` (Claude Code) lets the model "
    "retry any command outside it, so the policy's filesystem and network rules do not "
    "apply to them. twsrt does not own these keys, so it reports them where they are "
    "written. To keep a command outside Claude's sandbox as a policy decision, set "
    "`excludedCommands` in `[sandbox_overrides.full]`/`[sandbox_overrides.yolo]` of "
    "twsrt.toml (twsrt then owns the key); otherwise remove it, or suppress the finding with "
    "a reason in `[[check.ignore]]`.",
)

USER_ALLOW_RULE = Rule(
    "TWS602",
    "user-allow-rule",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A user allow entry reaches what the policy denies.",
    "An allow entry that the agent honours over the policy's deny: `sandbox.filesystem."
    "allowRead` in a Claude settings layer re-opens reads inside a denyRead region (srt "
    "lets allowRead win). Remove the entry; if the policy really should allow the path, "
    "narrow `filesystem.denyRead` or add `filesystem.allowRead` in the srt settings and run "
    "`twsrt generate -w`.",
)

USER_SKIPS_APPROVAL = Rule(
    "TWS603",
    "user-skips-approval",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A user key answers the policy's approvals without asking the user.",
    '`permissions.defaultMode: "bypassPermissions"` in a full-mode Claude Code file '
    "answers every ask rule of the policy with yes and lets WebFetch and WebSearch (outside "
    "the sandbox) reach any host no rule names (use the yolo target for that, which drops the "
    "ask rules on purpose and denies both web tools, TWS638); in DeepCode it skips the "
    "permission rules entirely, deny rules included. A Codex profile file that sets "
    '`approvals_reviewer` to a model reviewer, or `approval_policy = "never"` beside a '
    "sandbox that is not twsrt's, lets "
    "commands run outside the policy without the user seeing them. Remove the key; choose "
    "the approval mode with `twsrt generate --yolo` instead.",
)

USER_WRITE_ROOT = Rule(
    "TWS604",
    "user-write-root",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A user key makes a directory writable that the policy does not.",
    "Claude Code and DeepCode add `permissions.additionalDirectories` to the sandbox's "
    "write roots; Claude also adds the paths of `Edit(...)` allow rules and the "
    "`sandbox.filesystem.allowWrite` entries of every settings layer. A directory outside "
    "the policy's `filesystem.allowWrite` roots becomes writable for sandboxed commands. "
    "Add the directory to `filesystem.allowWrite` in the srt settings (and run `twsrt "
    "generate -w`), or remove the entry.",
)

USER_NETWORK_GRANT = Rule(
    "TWS605",
    "user-network-grant",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A user key lets the agent reach a host outside the policy's allowlist.",
    "Claude Code merges `WebFetch(domain:...)` allow rules and the "
    "`sandbox.network.allowedDomains` of every settings layer into its sandbox's allowed "
    "hosts. A host that the policy's `network.allowedDomains` does not list becomes "
    "reachable. Add it to `network.allowedDomains` in the srt settings, or remove the entry.",
)

USER_SANDBOX_GRANT = Rule(
    "TWS606",
    "user-sandbox-grant",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A user sandbox switch grants what the policy does not.",
    "A switch such as `allowLocalBinding`, `allowAllUnixSockets`, `allowUnixSockets`, "
    "`enableWeakerNetworkIsolation`, `enableWeakerNestedSandbox`, `allowAppleEvents`, "
    "`allowNestedUserNamespaces`, `filesystem.disabled` or a proxy port in a settings layer "
    "twsrt does not own (Claude's settings.local.json), or Copilot's "
    "`userPolicy.seatbelt.keychainAccess`, opens the sandbox wider than the srt settings. "
    "Set it in the srt settings if the policy should grant it, otherwise remove it.",
)


EFFECTIVE_LAYER_UNREADABLE = Rule(
    "TWS608",
    "effective-layer-unreadable",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A config layer the agent loads cannot be read, so its keys could not be checked.",
    "twsrt reads every file the agent loads that it can see (settings.local.json beside "
    "Claude's settings, Codex profile files) to find user keys that undo the policy. This "
    "one is not valid JSON/TOML or cannot be read; the agent may refuse it or read it "
    "differently. Fix the file.",
)

USER_ALLOW_SHADOWED = Rule(
    "TWS609",
    "user-allow-shadowed",
    Family.EFFECTIVE,
    Level.NOTE,
    Basis.INFO,
    "A user allow entry names what the policy denies or asks; the agent's precedence keeps "
    "the policy.",
    "Claude Code and DeepCode evaluate deny, then ask, then allow, so an allow entry such as "
    "`Bash(curl *)` beside the policy's `curl` deny, or `Read(~/.ssh/**)` beside a "
    "denyRead, changes nothing while twsrt's deny or ask rule is there. It is still a "
    "contradiction that undoes the policy the day the deny goes: remove the allow entry, "
    "or change the policy if the command should be allowed.",
)
