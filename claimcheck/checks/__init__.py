"""The check API that content code uses, the built-in check kinds, and how a claim's check is
resolved."""
