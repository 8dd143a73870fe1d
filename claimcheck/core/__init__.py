"""Foundations every stage uses: errors, exit codes, configuration, safe file access, strict JSON,
provenance and the version. Imports nothing else of claimcheck."""
