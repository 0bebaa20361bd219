"""``ruma rulesets`` and ``ruma completion``: what ruma knows, and shell completion.

    ruma rulesets                      # names, descriptions and example positions
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
    """List every ruleset with its description and example positions."""
    from ruma.engine.rulesets import ruleset_description, ruleset_names, sample_ruleset

    columns = [Column("name"), Column("impartial"), Column("description"), Column("examples")]
    with Output(args.format, columns) as out:
        for name in ruleset_names():
            rules = sample_ruleset(name)  # (a family, octal:CODE, by a member: its examples are the family's)
            out.emit({"name": name, "impartial": rules.impartial, "description": ruleset_description(name),
                      "examples": list(rules.examples)})
    return 0


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
