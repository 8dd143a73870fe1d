"""Stage 3, running checks: the plan, executors, isolated worker processes, limits, the safety net,
and recording each outcome."""
