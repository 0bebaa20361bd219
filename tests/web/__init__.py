"""The web explorer: its API, limits, load shedding, pages in a real browser."""
