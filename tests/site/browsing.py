"""Helpers of the browser tests: is Chromium here, and a local HTTP server for a built site.

A plain module (not ``conftest.py``), so tests can import it by name.
"""

from __future__ import annotations

import contextlib
import functools
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

PAPERS = ("papers/dynamic-routing.html", "papers/efficient-capsnet.html",
          "papers/inverted-dot-product-routing.html")
"""The repository wiki's paper pages."""

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)"
)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Keep the test output clean."""


@contextlib.contextmanager
def serving(folder: Path) -> Iterator[str]:
    """Serve ``folder`` over HTTP on a free port of 127.0.0.1; yield its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler,
                                                                      directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def reader_pages(site: Path) -> list[str]:
    """The repository wiki's pages a reader opens first: home, dashboard, papers, concepts."""
    concepts = sorted(p.relative_to(site).as_posix() for p in (site / "concepts").glob("*.html"))
    return ["index.html", "claims-dashboard.html", *PAPERS, *concepts]
