"""The author's desk: lint and its rules, the JSON Schema, ``claimcheck new`` and ``claimcheck
init``."""
