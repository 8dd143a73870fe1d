"""The check engine: the check API, the built-in check kinds, and how checks are resolved."""
