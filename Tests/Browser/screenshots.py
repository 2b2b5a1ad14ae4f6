#!/usr/bin/env python3
"""Screenshots of a running dashboard in headless Chromium, for scripts/demo: Today, a metric's
trend, a night's hypnogram (and the sleep and workouts pages), light and a phone-sized dark one.

Usage: screenshots.py URL_WITH_TOKEN OUT_DIR [NIGHT]. Exits 3 when the browser cannot start,
having said why and what to install, so the demo can go on without them.
"""

from __future__ import annotations

import os
import sys
import urllib.parse

from browser_support import BrowserUnavailable, browser, wait_ready


def main() -> int:
    url, folder = sys.argv[1], sys.argv[2]
    night = sys.argv[3] if len(sys.argv) > 3 else None
    base = url.split("/?")[0]
    os.makedirs(folder, exist_ok=True)
    try:
        driver = browser(width=1280, height=1000)
    except BrowserUnavailable as error:
        print(f"no screenshots: {error}", file=sys.stderr)
        return 3
    shots = [("today", "/"), ("heart-rate-30-days", "/metrics/heartRate?range=30D"), ("steps-year", "/metrics/steps?range=Y"),
             ("sleep", "/sleep"), ("workouts", "/workouts")]
    if night:
        shots.append(("night", "/sleep/" + urllib.parse.quote(night)))
    try:
        driver.get(url)
        wait_ready(driver)
        for name, path in shots:
            driver.get(base + path)
            wait_ready(driver)
            height = driver.execute_script("return document.documentElement.scrollHeight")
            driver.set_window_size(1280, min(max(height + 40, 700), 4000))
            driver.save_screenshot(os.path.join(folder, name + ".png"))
        driver.set_window_size(390, 844)
        driver.get(base + "/")
        wait_ready(driver)
        driver.find_element("id", "theme").click()
        driver.find_element("id", "theme").click()
        driver.save_screenshot(os.path.join(folder, "today-phone-dark.png"))
    finally:
        driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
