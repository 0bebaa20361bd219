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

#: positions as a researcher types them, per ruleset (a test parses every one)
EXAMPLES: dict[str, tuple[str, ...]] = {
    "sowing": ("312", "1^8", "(10)^3 03 (01)^2", "2•1"),
    "impartial-sowing": ("312", "110111"),
    "atomic-wari": ("312", "(01300)^2", "1,10,2"),
    "impartial-atomic-wari": ("312", "1^5"),
    "atomic-wari-board": ("312", "2202"),
    "nim": ("3 5 7", "1,2,3"),
    "grundy": ("7", "5 9"),
    "octal:CODE": ("11", "3 5"),  # heaps, e.g. of octal:0.37
    "chocolate1": ("2,1,3,2",),
    "chocolate2": ("2,1,2,1,2,1",),
    "coinstrip1": ("15:1,2,3", "1110000"),
    "coinstrip2": ("15:1,2,3",),
}
SHELLS = ("bash", "zsh", "fish")


def run_rulesets(args: argparse.Namespace) -> int:
    """List every ruleset with its description and example positions."""
    from ruma.engine.rulesets import get_ruleset, ruleset_description, ruleset_names

    columns = [Column("name"), Column("impartial"), Column("description"), Column("examples")]
    with Output(args.format, columns) as out:
        for name in ruleset_names():
            family = ":" in name
            rules = None if family else get_ruleset(name)
            out.emit({"name": name, "impartial": True if family else bool(rules and rules.impartial),
                      "description": ruleset_description(name), "examples": list(EXAMPLES.get(name, ()))})
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
