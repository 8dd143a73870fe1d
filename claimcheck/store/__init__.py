"""Stage 5, the results store: stored results and power runs, fingerprints, staleness, and what a
pull request changed."""
