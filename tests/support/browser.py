"""A real headless browser for tests: Debian's chromium and chromium-driver, via Selenium.

``ensure_installed()`` installs the two Debian packages when they are missing (the tests run
as root on CI; `make test` calls it through `python -m tests.support.browser`), and raises
``BrowserUnavailable`` when that fails: browser tests then fail, they never skip.

The browser runs with a fresh profile and no network of its own (no updates, no sync, no
QUIC), and Selenium is pointed at the system chromedriver, so nothing is downloaded.

``ensure_axe()`` installs axe-core, the accessibility checker the tests inject into the pages
(tests/support/axe.py), with ``npm ci`` from tests/browser/package-lock.json when it is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.debian import apt_install

# the browser, its driver, and a small CJK font (the pages show cards by their Chinese names)
PACKAGES = ("chromium", "chromium-driver", "fonts-wqy-microhei")
CJK_FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
CHROMIUM = ("chromium", "chromium-browser")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",  # small /dev/shm in containers
    "--window-size=1400,1000",
)
ARTIFACTS = Path(
    os.environ.get("TABLETOP_ARTIFACTS", Path(__file__).parents[2] / "tmp" / "artifacts")
)

BROWSER_TESTS = Path(__file__).parents[1] / "browser"
AXE = BROWSER_TESTS / "node_modules" / "axe-core" / "axe.min.js"


class BrowserUnavailable(RuntimeError):
    pass


def ensure_axe() -> Path:
    """The path of axe.min.js, running ``npm ci`` in tests/browser first if it is missing."""
    if AXE.exists():
        return AXE
    npm = shutil.which("npm")
    if not npm:
        raise BrowserUnavailable(f"{AXE} is missing and npm is not installed to install it")
    command = [npm, "ci", "--prefix", str(BROWSER_TESTS), "--no-audit", "--no-fund"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0 or not AXE.exists():
        raise BrowserUnavailable(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return AXE


def binaries() -> tuple[str, str] | None:
    browser = next((p for p in map(shutil.which, CHROMIUM) if p), None)
    driver = shutil.which("chromedriver")
    font = Path(CJK_FONT).exists()
    return (browser, driver) if browser and driver and font else None


def ensure_installed() -> tuple[str, str]:
    """The paths of chromium and chromedriver, installing the Debian packages if needed."""
    found = binaries()
    if found:
        return found
    apt_install(
        PACKAGES,
        BrowserUnavailable,
        "chromium, chromedriver or the CJK font are missing",
        recommends=True,
    )
    found = binaries()
    if not found:
        raise BrowserUnavailable(f"installed {' '.join(PACKAGES)} but found no binaries")
    return found


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium driven by Selenium, with a fresh profile, closed afterwards."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = ensure_installed()
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager: never download
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in FLAGS:
        options.add_argument(flag)
    with tempfile.TemporaryDirectory(prefix="tabletop-chromium-") as profile:
        options.add_argument(f"--user-data-dir={profile}")
        session = webdriver.Chrome(options=options, service=Service(executable_path=driver))
        try:
            session.set_page_load_timeout(60)
            yield session
        finally:
            session.quit()


def screenshot(session: Any, name: str) -> Path:
    """Save the page as a test artefact (tmp/artifacts, or $TABLETOP_ARTIFACTS)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    session.save_screenshot(str(path))
    return path


if __name__ == "__main__":  # `python -m tests.support.browser`: install, or fail loudly
    try:
        print("browser:", " ".join(ensure_installed()))
        print("axe-core:", ensure_axe())
    except BrowserUnavailable as exc:
        print(f"browser tests cannot run: {exc}", file=sys.stderr)
        sys.exit(1)
