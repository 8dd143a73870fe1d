"""Stage 4, verdicts: a check's evidence judged against the card's expectation, with or without a
confidence interval."""
