"""Make the screenshots of `benchlab report` in docs/figures/ with headless Chromium.

    python3 docs/examples/report_screenshots.py

- docs/figures/report.png: the top of the report of examples/experiments/loop.db
  (the headline, "how to read this page", the suite's figure);
- docs/figures/report-panels.png: two benchmarks of a synthetic 50-benchmark suite
  whose means run from 1 µs to 1 s (`wide-suite.csv`, written here: lognormal
  values, 4% spread, 12 per system, `numpy.random.default_rng(50)`; benchmark
  `bench 07`'s candidate is 30× slower, so its panel is on a log axis; the others'
  candidate is 3% faster), each distribution panel on its own axis.

Needs what the browser tests need: selenium, and Debian's chromium and
chromium-driver on PATH.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
FIGURES = ROOT / "docs" / "figures"


def wide_suite(path: Path) -> None:
    """The 50-benchmark suite of the panels' screenshot (the browser test's shape)."""
    rng = np.random.default_rng(50)
    rows = ["bench,system,value"]
    for b, mean in enumerate(np.geomspace(1e-6, 1.0, 50)):
        for system, factor in (("old", 1.0), ("new", 30.0 if b == 7 else 0.97)):
            rows += [f"bench {b:02d},{system},{v:.6g}"
                     for v in mean * factor * rng.lognormal(0, 0.04, 12)]
    path.write_text("\n".join(rows) + "\n")


def benchlab(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "benchlab", *args], cwd=ROOT, check=True,
                   env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def browser():
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=webdriver.ChromeService(
        executable_path=shutil.which("chromedriver")))


def shoot(driver, page: Path, target: Path, size: tuple[int, int], anchor: str = "") -> None:
    driver.set_window_size(*size)
    driver.get(page.as_uri() + (f"#{anchor}" if anchor else ""))
    time.sleep(0.3)
    driver.save_screenshot(str(target))
    print(target.relative_to(ROOT))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        loop, wide = Path(tmp) / "loop.html", Path(tmp) / "wide.html"
        benchlab("report", "examples/experiments/loop.db", "--seed", "1", "-o", str(loop))
        data = Path(tmp) / "wide-suite.csv"
        wide_suite(data)
        benchlab("report", str(data), "--by", "system", "--value", "value", "--benchmark",
                 "bench", "--unit", "s", "--seed", "1", "--no-diagnostics", "-o", str(wide))
        driver = browser()
        try:
            shoot(driver, loop, FIGURES / "report.png", (1100, 1500))
            shoot(driver, wide, FIGURES / "report-panels.png", (1100, 1000), "bench-bench-07")
        finally:
            driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
