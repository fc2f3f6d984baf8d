"""The headless Chromium every browser test drives (module-scoped: one start per module)."""

from __future__ import annotations

import shutil

import pytest


def _chromium() -> tuple[str, str] | None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium with its console and network (performance) logs kept."""
    webdriver = pytest.importorskip("selenium.webdriver",
                                    reason="selenium is not installed (pip install '.[test]')")
    found = _chromium()
    if found is None:
        pytest.skip("no chromium and chromedriver on PATH (apt-get install chromium "
                    "chromium-driver; .ci/run does)")
    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1200,900", "--disable-extensions"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    try:
        driver = webdriver.Chrome(options=options,
                                  service=webdriver.ChromeService(executable_path=found[1]))
    except Exception as exc:  # noqa: BLE001 - any failure to start is a reason to skip
        pytest.skip(f"chromium could not be started: {str(exc).splitlines()[0]}")
    yield driver
    driver.quit()
