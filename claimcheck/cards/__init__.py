"""Stage 1, cards: YAML with positions, card and claim models, citations, locators, identifiers, and
the wiki index built from a folder."""
