"""A small Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (stdlib only).

Chromium reads commands from file descriptor 3 and writes replies and events to descriptor 4,
each message one JSON object followed by a NUL byte; no port, no websocket library.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any

CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,900",
    "--remote-debugging-pipe",
)


class Browser:
    """One headless Chromium with one page; every call waits at most ``timeout`` seconds."""

    def __init__(self, executable: str, profile: Path, timeout: float = 45.0) -> None:
        self.timeout = timeout
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()

        def wire_fds() -> None:
            # Copy both ends out of the way first: a pipe may itself sit on fd 3 or 4.
            commands, replies = os.dup(to_child), os.dup(from_child)
            os.dup2(commands, 3)
            os.dup2(replies, 4)

        self.process = subprocess.Popen(
            [executable, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire_fds,
            close_fds=False,
        )
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime"):
            self.call(f"{domain}.enable", session=True)

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no reply from Chromium")
            ready, _, _ = select.select([self._read], [], [], remaining)
            if ready:
                chunk = os.read(self._read, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed the pipe")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        """Send one command and return its result (events that arrive meanwhile are kept)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def navigate(self, url: str) -> None:
        """Open ``url`` and wait for its load event."""
        self.events.clear()
        self.call("Page.navigate", session=True, url=url)
        self.wait_for_load()

    def click(self, selector: str) -> None:
        """Click the first element matching ``selector`` and wait for the page it opens."""
        self.events.clear()
        self.evaluate(f"document.querySelector({json.dumps(selector)}).click()")
        self.wait_for_load()

    def wait_for_load(self) -> None:
        """Wait for the load event of the page being opened (a dialog fails the wait)."""
        deadline = time.monotonic() + self.timeout
        while not any(event.get("method") == "Page.loadEventFired" for event in self.events):
            self.events.append(self._receive(deadline))
            if self.dialogs():
                message = self.dialogs()[0].get("params", {}).get("message")
                raise AssertionError(f"a script opened a dialog while loading: {message!r}")

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the page (promises are awaited)."""
        reply = self.call(
            "Runtime.evaluate", session=True, expression=expression, returnByValue=True,
            awaitPromise=True,
        )
        if "exceptionDetails" in reply:
            raise RuntimeError(f"{expression!r}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def wait_for(self, expression: str, timeout: float | None = None) -> Any:
        """Poll a JavaScript expression until it is truthy; return its value."""
        deadline = time.monotonic() + (timeout or self.timeout)
        problem = ""
        while time.monotonic() < deadline:
            try:
                value = self.evaluate(expression)
            except RuntimeError as error:  # e.g. the page is between two documents
                problem = f" (last error: {error})"
                value = None
            if value:
                return value
            time.sleep(0.1)
        raise TimeoutError(f"still false after waiting: {expression}{problem}")

    def hover(self, x: float, y: float) -> None:
        """Move the mouse to page coordinates (CSS pixels)."""
        self.call("Input.dispatchMouseEvent", session=True, type="mouseMoved", x=x, y=y)

    def press_tab(self) -> None:
        """Press and release the Tab key."""
        for kind in ("keyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent", session=True, type=kind, key="Tab", code="Tab",
                windowsVirtualKeyCode=9,
            )

    def set_viewport(self, width: int, height: int) -> None:
        """Emulate a screen of ``width`` x ``height`` CSS pixels (a phone below 600 wide)."""
        self.call(
            "Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
            deviceScaleFactor=1, mobile=width < 600,
        )

    def settle(self) -> None:
        """Wait two frames (a resize, a class the page's script set, has been drawn), then until
        every CSS transition that started has ended (Material animates its search box across a
        breakpoint and its colours across a palette switch)."""
        self.evaluate(
            "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() =>"
            " Promise.all(document.getAnimations().filter(a => a instanceof CSSTransition)"
            ".map(a => a.finished.catch(() => null))).then(() => done(true)))))"
        )

    def stop_motion(self) -> None:
        """Turn the open page's CSS transitions and animations off: what is measured or drawn is
        then the end state, at once (Material fades its header, slides its search box)."""
        self.evaluate(
            "document.head.insertAdjacentHTML('beforeend', '<style>*, *::before, *::after"
            " { transition: none !important; animation: none !important; }</style>')"
        )

    def screenshot(self, path: Path) -> None:
        """Save a PNG of the visible page."""
        data = self.call("Page.captureScreenshot", session=True, format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def dialogs(self) -> list[dict[str, Any]]:
        """JavaScript dialogs (alert, confirm, prompt) that opened since the last navigation."""
        return [e for e in self.events if e.get("method") == "Page.javascriptDialogOpening"]

    def close(self) -> None:
        """Quit Chromium."""
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self.call("Browser.close")
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._write)
        os.close(self._read)
