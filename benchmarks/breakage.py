"""Obvious breakages against the wiki's power (issue 32's acceptance), measured, never assumed.

Each breakage is a one-line edit of the content source, the kind a careless refactor makes:
uniform coupling in each routing family, and no squash in each squash law. For each, the script
copies the project (``pyproject.toml``, ``wiki/``, ``models/``, ``.claimcheck/``) to a temporary
folder, applies the edit there, re-verifies the claims that were verified and fresh (training
claims left out: minutes each), and lists those that turn contradicted. It then reads the
repository's own ``claimcheck status --format json`` and reports, for each such claim, the state
of the matching wrong variant in its ``power.variants``: the acceptance is ``caught`` for every
one, before any breakage is applied. The repository itself is never touched.

Usage: ``python benchmarks/breakage.py [NAME ...]`` (default: every breakage). Prints one line
per (breakage, contradicted claim) and a summary; exits 1 when a matching variant is not caught.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from power_matrix import copy_project  # benchmarks/ is on sys.path when run as a script

REPO = Path(__file__).resolve().parents[1]
COPIED = ("pyproject.toml", "wiki", "models", ".claimcheck")
UNIFORM = "coupling = torch.full_like({0}, 1.0 / {0}.shape[1])"
BREAKAGES = {  # name: (file, text replaced, replacement, matching wrong variant)
    "dynamic-uniform": ("models/dynamic/routing.py",
                        "coupling = torch.softmax(logits, dim=1)  # over parents j",
                        UNIFORM.format("logits"), "dynamic-uniform-coupling"),
    "self-attention-uniform": ("models/self_attention/routing.py",
                               "coupling = torch.softmax(logits, dim=1)  # over parents j",
                               UNIFORM.format("logits"), "self-attention-uniform-coupling"),
    "inverted-uniform": ("models/inverted/layers.py",
                         "coupling = torch.softmax(agreement, dim=1)  # over parents j",
                         UNIFORM.format("agreement"), "inverted-uniform-coupling"),
    "no-squash-sabour": ("models/capsules.py",
                         "return s * (norm_sq / ((1.0 + norm_sq) * torch.sqrt(norm_sq + eps)))",
                         "return s + 0.0 * norm_sq", "dynamic-no-squash"),
    "no-squash-efficient": ("models/capsules.py", "return -torch.expm1(-norm) * s / (norm + eps)",
                            "return s + 0.0 * norm", "self-attention-no-squash"),
}


def status(root: Path) -> dict[str, dict]:
    """``claimcheck status --format json`` of the project at ``root``, by global id."""
    out = subprocess.run(["claimcheck", "status", "wiki/", "--format", "json"], cwd=root,
                         capture_output=True, text=True, check=True).stdout
    return {row["claim"]: row for row in json.loads(out)}


def contradicted_under(name: str, claims: list[str]) -> list[str]:
    """The claims of ``claims`` that a copy with breakage ``name`` applied verifies contradicted."""
    path, old, new, _ = BREAKAGES[name]
    with tempfile.TemporaryDirectory() as folder:
        work = copy_project(Path(folder), COPIED)
        text = (work / path).read_text(encoding="utf-8")
        if old not in text:
            raise SystemExit(f"{name}: {path} no longer holds {old!r}; update BREAKAGES")
        (work / path).write_text(text.replace(old, new), encoding="utf-8")
        argv = ["claimcheck", "verify", "wiki/", "--format", "json"]
        for claim in claims:
            argv += ["--only", claim]
        subprocess.run(argv, cwd=work, capture_output=True, check=False)
        after = status(work)
    return sorted(c for c in claims if after[c]["verdict"] == "contradicted")


def main(names: list[str]) -> int:
    before = status(REPO)
    claims = [c for c, row in before.items()
              if row["verdict"] == "verified" and row["tier"] != "train" and not row["stale"]]
    uncaught = 0
    for name in names or list(BREAKAGES):
        variant = BREAKAGES[name][3]
        flipped = contradicted_under(name, claims)
        for claim in flipped:
            states = {v["name"]: v["state"] for v in (before[claim].get("power") or {})
                      .get("variants", [])}
            state = states.get(variant, "absent")
            uncaught += state != "caught"
            print(f"{name}: {claim} contradicted; {variant}: {state}")
        print(f"{name}: {len(flipped)} claim(s) contradicted of {len(claims)} verified")
    print(f"matching variant not caught: {uncaught}")
    return 1 if uncaught else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
