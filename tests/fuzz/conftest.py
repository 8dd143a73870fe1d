"""The fuzz harness runs on demand (``python tests/fuzz/fuzz_loader.py --minutes N``), not in
the default pytest run."""

collect_ignore = ["fuzz_loader.py"]
