"""The single source of claimcheck's version (read by packaging through importlib.metadata)."""

__version__ = "0.1.0"
