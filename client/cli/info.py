"""``ruma rulesets`` and ``ruma completion``: what ruma knows, and shell completion.

    ruma rulesets                      # names, where each comes from, descriptions, example positions
    ruma rulesets --json
    eval "$(ruma completion bash)"     # or: ruma completion zsh|fish > the shell's completion file
"""

from __future__ import annotations

import argparse
from typing import Any

from ruma.client.cli.options import add_format_option
from ruma.client.cli.output import Column, Output

SHELLS = ("bash", "zsh", "fish")


def run_rulesets(args: argparse.Namespace) -> int:
    """List every ruleset with where it comes from (``built-in`` or the distribution that installed
    it), its description and example positions; an installed ruleset that cannot serve is listed
    with the reason (``error``, and in its description), the others as usual."""
    from ruma.engine.errors import BrokenRulesetError
    from ruma.engine.rulesets import (
        installed_rulesets,
        ruleset_description,
        ruleset_names,
        ruleset_origin,
        sample_ruleset,
    )

    clashing = {entry.name: (entry, error) for entry, error in installed_rulesets()
                if isinstance(error, BrokenRulesetError) and entry.name in ruleset_names()}
    columns = [Column("name"), Column("origin"), Column("impartial"), Column("description"), Column("examples")]
    with Output(args.format, columns) as out:
        for name in ruleset_names():
            origin = ruleset_origin(name)
            try:
                rules = sample_ruleset(name)  # (a family, octal:CODE, by a member: its examples are the family's)
            except BrokenRulesetError as error:
                out.emit(_broken(name, origin, error))
                continue
            out.emit({"name": name, "origin": origin, "impartial": rules.impartial,
                      "description": ruleset_description(name), "examples": list(rules.examples), "error": None})
            if name in clashing and origin != clashing[name][0].distribution:  # (an installed one of a taken name)
                entry, reason = clashing[name]
                out.emit(_broken(name, entry.distribution or "installed", reason))
    return 0


def _broken(name: str, origin: str, error: Exception) -> dict[str, Any]:
    """The record of an installed ruleset that cannot serve: why, in ``error`` and the description."""
    return {"name": name, "origin": origin, "impartial": None, "description": f"cannot serve: {error}",
            "examples": [], "error": str(error)}


def run_completion(args: argparse.Namespace) -> int:
    """Print the completion script of a shell (argcomplete)."""
    from argcomplete.shell_integration import shellcode

    print(shellcode(["ruma"], shell=args.shell))
    return 0


def register(subparsers: Any) -> None:
    """Register ``rulesets`` and ``completion``."""
    rulesets = subparsers.add_parser("rulesets", help="the rulesets: names, descriptions, example positions",
                                     description="Every ruleset ruma values, with example positions in its notation.")
    add_format_option(rulesets)
    rulesets.set_defaults(handler=run_rulesets)

    completion = subparsers.add_parser(
        "completion", help="shell completion script (bash, zsh, fish)",
        description="Print the completion script of a shell: eval \"$(ruma completion bash)\" in ~/.bashrc; "
                    "for zsh the same line in ~/.zshrc; ruma completion fish > ~/.config/fish/completions/ruma.fish.")
    completion.add_argument("shell", choices=SHELLS)
    completion.set_defaults(handler=run_completion)
