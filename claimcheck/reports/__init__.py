"""Report rows and their formats (text, JSON, JUnit, GitHub): pure rendering of judged claims,
shared by the engine's live output and ``status``."""
