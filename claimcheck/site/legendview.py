"""The legend's badges: each kind of badge as a page shows it, with the sentence that decodes it.

The samples are drawn by the same ``badge`` macro as every citation, so the legend cannot drift
from what readers see. They hold no figure of the wiki; the legend's worked hover card is a real
claim's (chosen by :meth:`claimcheck.site.pagework.PageWork`).
"""

from __future__ import annotations

from dataclasses import dataclass

from claimcheck.site.about import About


@dataclass(frozen=True)
class BadgeSample:
    """One badge of the legend and what it says."""

    verdict: str
    meaning: str
    about: About | None = None
    stale: bool = False
    errored: bool = False


def badge_samples() -> list[BadgeSample]:
    """Every mark a badge can carry, one sample each."""
    paper = About(basis="paper-vs-code")
    return [
        BadgeSample("verified", "verified, and the basis word: the check measured a figure of "
                    "the paper on a faithful model, so the verdict is evidence about the paper "
                    "(\"our code\": about our implementation only; \"reproduction\": a training "
                    "result; \"text\": the paper's own words; \"wiki\": the wiki's own "
                    "experiment).", paper),
        BadgeSample("contradicted", "contradicted: measured faithfully, the figure falls outside "
                    "what the claim expects. The paper card explains it under \"Paper vs code\".",
                    About(basis="implementation")),
        BadgeSample("unverified", "unverified, with a reason in the hover card: never run, no "
                    "honest check yet, data or device missing, a proxy the claim does not "
                    "accept, or an interval that straddles the expectation.",
                    About(basis="reproduction")),
        BadgeSample("verified", "† the figure or its place in the paper rests on a secondary "
                    "source (a review, the seed card), named in the claim's row.",
                    About(basis="paper-vs-code", secondary_source="a secondary source")),
        BadgeSample("verified", "‡ the locator was confirmed only at second hand: in a "
                    "translation, or a quotation of the paper.",
                    About(basis="paper-vs-code", second_hand=True,
                          reading="confirmed in a translation")),
        BadgeSample("verified", "⟳ stale: the claim, its check or the code it runs changed since "
                    "the stored run; the verdict shown is the last one, until it runs again.",
                    paper, stale=True),
        BadgeSample("unverified", "error: the check raised; an error is never a contradiction.",
                    paper, errored=True),
    ]
