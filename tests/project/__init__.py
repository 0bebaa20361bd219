"""The tree as a whole: the layering of its packages."""
