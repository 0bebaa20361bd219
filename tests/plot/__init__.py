"""Pictures: SVG and PNG read back, ``ruma plot`` and ``ruma web`` on the command line."""
