"""Display records for the site and the report: one :class:`ClaimView` per claim.

A view is plain text, already formatted for display but *not* escaped: escaping is the job of the
Jinja2 templates (autoescape on), so every card string crosses exactly one escaping boundary.

A claim without a stored result is "unverified: never run"; a claim written with ``unverified:``
keeps its own reason whatever the store holds.
"""

from __future__ import annotations

import datetime as dt
import inspect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimcheck.cards.wiki import ClaimRef
from claimcheck.core.config import ProjectConfig
from claimcheck.core.errors import ClaimcheckError
from claimcheck.site.about import KINDS, About, about, textual_verdict
from claimcheck.site.paths import scrub_paths
from claimcheck.site.powerview import PowerEntry, power_words
from claimcheck.store.results import Result
from claimcheck.verdicts.interval import interval_display

if TYPE_CHECKING:
    from claimcheck.sources.checker import QuoteChecker

VERDICTS = ("verified", "contradicted", "unverified")
SYMBOLS = {"verified": "✓", "contradicted": "✗", "unverified": "?"}
NEVER_RUN = "never run"


@dataclass(frozen=True)
class SourceLink:
    """A place in the repository: ``path`` relative to the project root, 1-based ``line``."""

    path: str
    line: int

    def label(self) -> str:
        """``path:line`` as shown in tables."""
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class ClaimView:
    """Everything the site shows about one claim."""

    global_id: str
    arxiv: str
    claim_id: str
    paper_title: str
    card_path: str
    locators: str
    statement: str
    check: str
    check_source: SourceLink | None
    expected: str
    measured: str
    verdict: str
    reason: str
    stale: bool
    errored: bool
    fidelity: str
    tier: str
    budget: str
    run_date: str
    details: str
    environment: tuple[tuple[str, str], ...] = ()
    curve_svg: Path | None = None
    builtin: bool = False
    """Whether ``check`` names a built-in kind (shown by name, not by its source line)."""
    about: About = field(default_factory=About)
    """What the verdict is evidence of: basis, quote, secondary source."""
    stale_reason: str = ""
    environment_note: str = ""
    """How the environment of the stored run differs from this one (provenance, not staleness)."""
    power: str = ""
    """What the claim would have caught (:mod:`claimcheck.store.power`): ``catches 3 of 3 listed
    wrong variants``; empty where the project has no catalogue of wrong variants."""
    power_all_caught: bool | None = None
    """Whether every listed variant is caught; ``None`` unless the claim is verified and lists
    variants (the dashboard's share counts only those)."""
    power_entries: tuple[PowerEntry, ...] = ()
    """One entry per variant the store's power data names for this claim, rendered generically
    (:class:`PowerEntry`), so a new state shows without a change here."""

    @property
    def power_words(self) -> str:
        """The claim's power in a few words (:func:`claimcheck.site.powerview.power_words`)."""
        return power_words(self.power, self.power_entries)

    @property
    def anchor(self) -> str:
        """The HTML id of the claim's row on its paper page (a citation links here)."""
        return f"claim-{self.claim_id}"

    @property
    def needs_attention(self) -> bool:
        """Whether ``strict_verdicts`` should warn about this claim."""
        return self.stale or self.errored


@dataclass(frozen=True)
class Tally:
    """Counts per verdict, plus how many of them are stale."""

    verified: int = 0
    contradicted: int = 0
    unverified: int = 0
    stale: int = 0

    @property
    def total(self) -> int:
        """All claims counted."""
        return self.verified + self.contradicted + self.unverified

    def as_pairs(self) -> list[tuple[str, int]]:
        """``[(verdict, count)]`` in legend order."""
        return [(name, getattr(self, name)) for name in VERDICTS]


@dataclass(frozen=True)
class KindTally:
    """Counts per verdict for one evidence kind (:data:`claimcheck.site.about.KINDS`)."""

    kind: str
    words: str
    counts: Tally


def kind_tallies(claims: Iterable[ClaimView]) -> list[KindTally]:
    """Counts per verdict for each evidence kind present, in :data:`~claimcheck.site.about.KINDS`
    order: the figures a strip shows, never summed across kinds."""
    grouped: dict[str, list[ClaimView]] = {}
    for claim in claims:
        grouped.setdefault(claim.about.kind, []).append(claim)
    return [KindTally(key, words, tally(grouped[key])) for key, words, _ in KINDS
            if key in grouped]


def tally(claims: Iterable[ClaimView]) -> Tally:
    """Count claims by verdict."""
    counts = dict.fromkeys(VERDICTS, 0)
    stale = 0
    for claim in claims:
        counts[claim.verdict if claim.verdict in counts else "unverified"] += 1
        stale += claim.stale
    return Tally(stale=stale, **counts)


def format_value(value: Any) -> str:
    """A measured or expected number as a reader wants it: grouped ints, 4 significant digits."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10_000 else str(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(item) for item in value) + "]"
    return str(value)


def format_expect(expect: Mapping[str, Any] | None) -> str:
    """``{"approx": 161000, "rel_tol": 0.005}`` as ``≈ 161,000 (±0.5%)``."""
    if not expect:
        return "—"
    if "approx" in expect:
        if "rel_tol" in expect:
            tolerance = f"±{format_value(float(expect['rel_tol']) * 100)}%"
        elif "std" in expect:
            tolerance = f"± {format_value(expect['std'])} std"
        else:
            tolerance = f"±{format_value(expect.get('abs_tol'))}"
        return f"≈ {format_value(expect['approx'])} ({tolerance})"
    if "between" in expect:
        low, high = expect["between"]
        return f"between {format_value(low)} and {format_value(high)}"
    symbols = {"equals": "=", "at_most": "≤", "at_least": "≥"}
    for key, symbol in symbols.items():
        if key in expect:
            return f"{symbol} {format_value(expect[key])}"
    return "holds" if expect.get("holds") else "—"


def _text(value: Any, default: str = "—") -> str:
    """An enum, string or missing value as display text."""
    if value is None or value == "":
        return default
    return str(getattr(value, "value", value))


def format_date(value: Any) -> str:
    """A stored ISO timestamp as ``YYYY-MM-DD HH:MM UTC`` (unparseable text is shown as is)."""
    if value is None or value == "":
        return "—"
    moment = value
    if isinstance(value, str):
        try:
            moment = dt.datetime.fromisoformat(value)
        except ValueError:
            return value
    if isinstance(moment, dt.datetime):
        if moment.tzinfo is not None:
            moment = moment.astimezone(dt.timezone.utc)
        return moment.strftime("%Y-%m-%d %H:%M UTC")
    return str(moment)


def check_source(
    ref: ClaimRef, config: ProjectConfig, cache: dict[str, SourceLink | None] | None = None
) -> SourceLink | None:
    """Where the claim's check is defined: the custom function's ``def`` line or the built-in's.

    Custom checks are located statically (``claimcheck.trust.references``); nothing is imported from
    the project. Without a check (an ``unverified:`` claim) the link is the claim in its card.
    ``cache`` (check name -> link) spares resolving a check that many claims share.
    """
    check = ref.claim.check
    if check is None:
        return SourceLink(ref.card.display_path, ref.line)
    if cache is None:
        return _locate_check(check, config)
    if check not in cache:
        cache[check] = _locate_check(check, config)
    return cache[check]


def _locate_check(check: str, config: ProjectConfig) -> SourceLink | None:
    try:
        if ":" in check:
            from claimcheck.trust.boundary import resolve_reference

            resolved = resolve_reference(check, config)
            return _project_link(resolved.file, resolved.line, config)
        from claimcheck.checks.api import get_builtin

        function = inspect.unwrap(get_builtin(check).function)
        file = inspect.getsourcefile(function)
        if file is None:
            return None
        return _project_link(Path(file), inspect.getsourcelines(function)[1], config)
    except (ClaimcheckError, ImportError, OSError, TypeError):
        return None


def _project_link(file: Path, line: int, config: ProjectConfig) -> SourceLink | None:
    try:
        relative = file.resolve().relative_to(config.root)
    except ValueError:
        return None
    return SourceLink(relative.as_posix(), line)


def claim_tier_text(ref: ClaimRef) -> str:
    """The claim's tier as configured (own tier, else the built-in kind's default)."""
    if ref.claim.tier is not None:
        return ref.claim.tier.value
    if ref.claim.check is None:
        return "—"
    try:
        from claimcheck.checks.resolve import claim_tier

        return claim_tier(ref.claim).value
    except (ClaimcheckError, ImportError):
        return "—"


def build_view(
    ref: ClaimRef,
    result: Result | None,
    stale: bool,
    config: ProjectConfig,
    curve_svg: Path | None = None,
    sources: dict[str, SourceLink | None] | None = None,
    quotes: QuoteChecker | None = None,
    stale_reason: str = "",
    environment_note: str = "",
) -> ClaimView:
    """The display record of one claim and its stored result (``None``: never run).

    A textual claim's verdict comes from its quote, whatever the store holds.
    """
    claim = ref.claim
    paper_title = getattr(ref.card.card, "title", ref.arxiv)
    common: dict[str, Any] = {
        "global_id": ref.global_id,
        "arxiv": ref.arxiv,
        "claim_id": claim.id,
        "paper_title": paper_title,
        "card_path": ref.card.display_path,
        "locators": ", ".join(claim.locators),
        "statement": claim.statement,
        "check": claim.check or "no check",
        "check_source": check_source(ref, config, sources),
        "builtin": claim.check is not None and ":" not in claim.check,
        "expected": format_expect(claim.expect.as_mapping() if claim.expect else None),
        "about": about(ref, quotes),
    }
    textual = textual_verdict(ref, quotes)
    if textual is not None:
        return ClaimView(
            **common, measured="—", verdict=textual[0], reason=textual[1], stale=False,
            errored=False, fidelity="—", tier="—", budget="—", run_date="—", details="",
        )
    if claim.unverified is not None:
        return ClaimView(
            **common, measured="—", verdict="unverified", reason=claim.unverified,
            stale=False, errored=False, fidelity="—", tier="—", budget="—", run_date="—",
            details="",
        )
    if result is None:
        return ClaimView(
            **common, measured="—", verdict="unverified", reason=NEVER_RUN, stale=False,
            errored=False, fidelity="—", tier=claim_tier_text(ref), budget="—", run_date="—",
            details="",
        )
    verdict = _text(result.verdict, "unverified")
    root = str(config.root)

    def shown(value: Any, default: str = "—") -> str:
        return scrub_paths(_text(value, default), root)

    environment = tuple(
        (str(key), shown(value)) for key, value in sorted((result.environment or {}).items())
    )
    if result.device:
        environment += (("device", shown(result.device)),)
    return ClaimView(
        **common,
        measured=scrub_paths(
            interval_display(result.interval, config.confidence, result.budget)
            or format_value(result.measured), root),
        verdict=verdict if verdict in VERDICTS else "unverified",
        reason=shown(result.error or result.reason, ""),
        stale=stale,
        errored=bool(result.error),
        fidelity=shown(result.fidelity),
        tier=shown(result.tier),
        budget=shown(result.budget),
        run_date=shown(format_date(result.timestamp)),
        details=scrub_paths(result.details or "", root),
        environment=environment,
        curve_svg=curve_svg,
        stale_reason=shown(stale_reason, "") if stale else "",
        environment_note=shown(environment_note, ""),
    )
