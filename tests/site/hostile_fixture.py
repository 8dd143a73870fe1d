"""A wiki written by an attacker: every way we know for a pull request to put script into the site.

Each payload, if it ever ran, would set ``window.__pwned`` (or open a dialog), so a browser test
can prove that none runs. Built programmatically because some attacks (file names with ``<``, a
results store with a poisoned curve) are awkward to commit as files.
"""

from __future__ import annotations

from pathlib import Path

from site_html import copy_fixture
from store_fixture import Stored, write_results

PWN = "window.__pwned"

RAW_HTML = "\n\n".join([
    f"<script>{PWN}='script'</script>",
    f'<img src=x onerror="{PWN}=\'img\'">',
    f'<iframe srcdoc="<script>parent.{PWN}=\'iframe\'</script>"></iframe>',
    f"<svg onload=\"{PWN}='svg'\"><script>{PWN}='svg-script'</script></svg>",
    f'<object data="javascript:{PWN}=\'object\'"></object>',
    f'<embed src="javascript:{PWN}=\'embed\'">',
    f'<form action="javascript:{PWN}=\'form\'"><button>go</button></form>',
    f"<details open ontoggle=\"{PWN}='toggle'\"><summary>open</summary>x</details>",
    f'<div style="background:url(javascript:{PWN}=\'style\')">styled</div>',
    f'<a href="jav&#x61;script:{PWN}=\'entity\'">entity</a>',
    f'<a href=" JaVaScRiPt:{PWN}=\'case\'">case</a>',
    f'<div id="__config">{{"base": "javascript:{PWN}=\'config\'"}}</div>',
    '<span class="cc-badge cc-badge--verified">✓ verified (forged)</span>',
    f'<div markdown="1" onmouseover="{PWN}=\'md-in-html\'">**markdown** inside</div>',
    f'<noscript><p title="</noscript><img src=x onerror={PWN}=\'noscript\'>"></p></noscript>',
    f'<math><mtext><table><mglyph><style><img src=x onerror="{PWN}=\'mxss\'">',
])

CONCEPT = f"""---
kind: concept
slug: hostile
title: "<script>{PWN}='card-title'</script> Hostile"
papers: ["2101.12491"]
status: draft
updated_at: 2026-11-21
tags: [hostile]
---

# Hostile concept

Cited honestly [arxiv:2101.12491 tab. 2].

## <img src=x onerror="{PWN}='heading'"> A heading

[link](javascript:{PWN}='link') and [data](data:text/html,<script>alert(1)</script>) and
[vbs](vbscript:msgbox) and ![image](javascript:{PWN}='image').

A paragraph with an attribute list.
{{: onclick="{PWN}='attr-list'" }}

Maths with a link: $\\href{{javascript:{PWN}='katex'}}{{x}}$ and $\\htmlId{{y}}{{z}}$.

![figure](../figure.svg)
{RAW_HTML}
"""

PLAIN_WITH_META = f"""---
title: ["<img src=x onerror={PWN}='nav-title'>", "list"]
description: "\\"><script>{PWN}='description'</script>"
hide: [toc]
---

# Plain page with front matter

Text.
"""

MULTIMARKDOWN = f"""Title: <img src=x onerror="{PWN}='mmd-title'">

Text of a page whose metadata is MultiMarkdown style.
"""

SVG = f"""<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     width="60" height="30" onload="{PWN}='svg-file'">
<script>{PWN}='svg-file-script'</script>
<a xlink:href="javascript:{PWN}='svg-link'"><rect width="60" height="30" fill="#1b6e35"/></a>
<foreignObject><body xmlns="http://www.w3.org/1999/xhtml"><script>{PWN}=1</script></body>
</foreignObject>
<text x="5" y="20">curve</text>
</svg>
"""

HOSTILE_RESULTS = {
    "2101.12491/params": Stored(
        "verified", 161824,
        details=f"<script>{PWN}='details'</script> read from {{root}}/models/x.py and "
        "/home/runner/secret-project/data/mnist.npz",
        reason=f"<img src=x onerror=\"{PWN}='reason'\">",
        curve=True,
    ),
    "2101.12491/accuracy": Stored(
        "contradicted", f"javascript:{PWN}='measured'",
        error=f"Traceback: File \"{{root}}/checks/probe.py\", line 4 <svg onload={PWN}=1>",
    ),
}


def build_hostile_project(destination: Path) -> Path:
    """The mini-site plus every hostile page, file and result above."""
    project = copy_fixture("minisite", destination)
    wiki = project / "wiki"
    (wiki / "concepts" / "hostile.md").write_text(CONCEPT, encoding="utf-8")
    (wiki / "plain-meta.md").write_text(PLAIN_WITH_META, encoding="utf-8")
    (wiki / "multimarkdown.md").write_text(MULTIMARKDOWN, encoding="utf-8")
    (wiki / "figure.svg").write_text(SVG, encoding="utf-8")
    folder = wiki / f"<img src=x onerror={PWN}='folder'>"
    folder.mkdir()
    (folder / "page.md").write_text("Text only, so the title comes from the file name.\n",
                                    encoding="utf-8")
    (wiki / f"<svg onload={PWN}='file-name'>.md").write_text("No heading here.\n",
                                                             encoding="utf-8")
    results = {
        claim: Stored(
            stored.verdict,
            stored.measured,
            stored.reason,
            stored.details.replace("{root}", str(project)),
            curve=stored.curve,
            error=stored.error.replace("{root}", str(project)) if stored.error else None,
        )
        for claim, stored in HOSTILE_RESULTS.items()
    }
    write_results(project, results, curve=SVG)
    return project
