"""The ``claimcheck`` command line: argument parsing and the commands, calling the library (``python
-m claimcheck.cli.main``)."""
