"""Studies: questions asked of swept families, and the tables of docs/tables.md that answer them.

- ``kinds``: the values Erickson's open questions ask about (``2^-n``, ``n·↑``, ``n·↑+∗``, ``+_x``,
  ``∗n``); ``patterns``: one-parameter families whose values run through a kind; ``chains``:
  positions of the next value built back from Right's moves; ``followers``: followers counted by a
  plain walk; ``tally``: a census streamed over a family's rows for the wanted values only;
- ``questions``: ``ruma census`` and ``ruma find`` (questions by value, with the bound searched);
  ``tally_parts``: a tally in parts, each kept in the store; ``open_questions``: the tables of the
  open questions as documents kept in the store, and ``markdown`` their sections; ``tables``: the
  generator of Erickson's Tables 2–4 and the atomic weights; ``commands``: ``ruma census``,
  ``ruma find`` and ``ruma tables``;
- ``beyond``: a value-directed search for positions of a value beyond the swept bound (resumable,
  its state in the store), ``beyond_pool``: its candidates valued by worker processes,
  ``beyond_command``: ``ruma find --beyond``, ``beyond_tables``: the
  ``beyond`` section of docs/tables.md and ``docs/data/beyond.jsonl``.

May import: the standard library, ``ruma.engine``, ``ruma.v1`` and ``ruma.client`` (the sweep
driver, the CLI's shared pieces) — never ``ruma.server``. Nothing below it imports it.
"""
