"""The trust boundary: which functions a card may name, decided from files alone (markers,
references, the boundary, data paths, the wrong-variant catalogue)."""
