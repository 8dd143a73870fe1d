"""claimcheck: keep an ML knowledge wiki honest by tying every cited claim to a check.

The public API is re-exported here; the work lives in small private-by-convention modules.
Importing claimcheck never imports torch.
"""

from claimcheck.cards.citations import (
    Citation,
    CitationProblem,
    CitationSyntaxError,
    near_misses,
    parse_citation,
    scan_citations,
)
from claimcheck.cards.frontmatter import (
    Basis,
    Claim,
    CodeLink,
    ConceptCard,
    Expect,
    PaperCard,
    Resources,
    SourceKind,
    SourcePin,
    Status,
    Tier,
)
from claimcheck.cards.loader import LoadedCard, load_card
from claimcheck.cards.locators import Locator, LocatorError, LocatorKind, parse_locator
from claimcheck.cards.wiki import ClaimRef, Wiki, card_files, is_card, load_cards, load_wiki
from claimcheck.checks.api import (
    BuiltinCheck,
    CheckContext,
    DataUnavailable,
    Evidence,
    EvidenceError,
    Fidelity,
    builtin_kinds,
    get_builtin,
    normalise_evidence,
    plain_value,
    register_check,
    unknown_kind_message,
)
from claimcheck.checks.declared import CheckArgs, CheckArgsError
from claimcheck.checks.markers import (
    claim_check,
    model_factory,
    timing_factory,
    trainer,
    wrong_variant,
)
from claimcheck.core.config import ProjectConfig, load_config
from claimcheck.core.errors import (
    CardError,
    CheckReferenceError,
    ClaimcheckError,
    ConfigError,
    StoreError,
    UsageError,
)
from claimcheck.core.version import __version__
from claimcheck.trust.roles import Role
from claimcheck.verdicts.judge import judge
from claimcheck.verdicts.verdict import (
    Judgement,
    Verdict,
    describe_expect,
    format_value,
    unverified,
    within,
)

__all__ = [
    "Basis",
    "BuiltinCheck",
    "CardError",
    "CheckArgs",
    "CheckArgsError",
    "CheckContext",
    "CheckReferenceError",
    "Citation",
    "CitationProblem",
    "CitationSyntaxError",
    "Claim",
    "ClaimRef",
    "ClaimcheckError",
    "CodeLink",
    "ConceptCard",
    "ConfigError",
    "DataUnavailable",
    "Evidence",
    "EvidenceError",
    "Expect",
    "Fidelity",
    "Judgement",
    "LoadedCard",
    "Locator",
    "LocatorError",
    "LocatorKind",
    "PaperCard",
    "ProjectConfig",
    "Resources",
    "Role",
    "SourceKind",
    "SourcePin",
    "Status",
    "StoreError",
    "Tier",
    "UsageError",
    "Verdict",
    "Wiki",
    "__version__",
    "builtin_kinds",
    "card_files",
    "claim_check",
    "describe_expect",
    "format_value",
    "get_builtin",
    "is_card",
    "judge",
    "load_card",
    "load_cards",
    "load_config",
    "load_wiki",
    "model_factory",
    "near_misses",
    "normalise_evidence",
    "parse_citation",
    "parse_locator",
    "plain_value",
    "register_check",
    "scan_citations",
    "timing_factory",
    "trainer",
    "unknown_kind_message",
    "unverified",
    "within",
    "wrong_variant",
]
