"""claimcheck: keep an ML knowledge wiki honest by tying every cited claim to a check."""

from claimcheck._version import __version__

__all__ = ["__version__"]
