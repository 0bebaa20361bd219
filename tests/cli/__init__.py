"""The command line: shared options and errors, every subcommand, the local commands."""
