#!/usr/bin/env python3
"""How long the shared-link viewer takes to show a link's summary in headless Chromium, beside the
same page with no link (its intro drawn by the same script): `scripts/bench share` runs it.

Usage: viewer_timing.py VIEWER_LINK [RUNS]. Prints one JSON line: the medians, in milliseconds
since navigation began, of the summary shown (`data-ready-ms`) and of the intro page.
"""

from __future__ import annotations

import json
import statistics
import sys

from browser_support import browser, wait_ready


def main() -> int:
    link, runs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 7
    intro = link.split("#", 1)[0]
    driver = browser(1280, 900)
    summary, page = [], []
    try:
        # One warm-up of each, then alternate so load from elsewhere falls on both sides.
        for target in (link, intro):
            driver.get("about:blank")
            driver.get(target)
            wait_ready(driver)
        for _ in range(runs):
            for target, times in ((link, summary), (intro, page)):
                driver.get("about:blank")
                driver.get(target)
                if wait_ready(driver) != "true":
                    raise SystemExit(f"the viewer did not draw {target[:60]}")
                times.append(int(driver.execute_script("return document.body.dataset.readyMs")))
    finally:
        driver.quit()
    print(json.dumps({"summaryMs": statistics.median(summary), "introMs": statistics.median(page), "runs": runs}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
