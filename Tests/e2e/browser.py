"""Headless Chromium driven by selenium, for the pages the binary writes.

It uses Debian's `chromium` and `chromium-driver` (scripts/install-test-deps.sh installs them)
with the driver's path given explicitly: selenium-manager, which would download a driver or a
browser, is never asked for anything.
"""

import shutil
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def chromium(width=1440, height=900):
    """A headless Chromium at a fixed window size and a device pixel ratio of 1, so that
    screenshots and canvas coordinates are the same from one machine to the next."""
    options = Options()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",  # the tests run as root
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        f"--window-size={width},{height}",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    # The window's size is not the page's in headless mode: set the viewport itself.
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    return driver


def open_page(driver, path: Path, timeout=30.0) -> float:
    """Loads the file and waits until it says it is ready; returns the wall time it took, in
    seconds, from the request to ready."""
    started = time.monotonic()
    driver.get(path.resolve().as_uri())
    while driver.execute_script("return document.body && document.body.dataset.ready") != "true":
        if time.monotonic() - started > timeout:
            raise AssertionError(f"{path.name} was not ready within {timeout} s; console: {console_errors(driver)}")
        time.sleep(0.02)
    return time.monotonic() - started


def console_errors(driver) -> list[str]:
    """The page's console errors since the last call (uncaught exceptions among them)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
