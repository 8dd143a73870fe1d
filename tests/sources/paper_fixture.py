"""The fixture paper (``fixture_paper/``: a LaTeX project written for these tests), and a local
HTTP server standing in for arXiv, Crossref and OpenReview."""

from __future__ import annotations

import gzip
import io
import tarfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from claimcheck.sources.latex import LatexProject
from claimcheck.sources.quotes import SourceIndex

FIXTURE = Path(__file__).parent / "fixture_paper"


def fixture_project() -> LatexProject:
    """The fixture paper's ``.tex`` files, as the e-print reader would return them."""
    return LatexProject({
        path.relative_to(FIXTURE).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(FIXTURE.rglob("*.tex"))
    })


def fixture_eprint() -> bytes:
    """The fixture paper packed as arXiv packs an e-print: a gzipped tar."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for path in sorted(FIXTURE.rglob("*")):
            if path.is_file():
                info = archive.gettarinfo(str(path), arcname=path.relative_to(FIXTURE).as_posix())
                info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
                info.mode = 0o644
                with path.open("rb") as handle:
                    archive.addfile(info, handle)
    return gzip.compress(buffer.getvalue(), mtime=0)  # the same bytes on every call


def fixture_index() -> SourceIndex:
    """The locator index of the fixture paper."""
    return SourceIndex.from_project(fixture_project())


@contextmanager
def serve(routes: dict[str, bytes], requests: list[str]) -> Iterator[str]:
    """A local HTTP server answering ``routes`` (path with query -> body), 404 otherwise; the
    paths asked for are appended to ``requests``. Yields the base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            requests.append(self.path)
            body = routes.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            """Quiet."""

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
