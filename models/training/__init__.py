"""The trainer behind the built-in ``train`` check: the run (``run.run_training``), one seed's loop,
schedules, resumable pieces, artifacts and the summary."""
