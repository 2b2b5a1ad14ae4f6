#!/usr/bin/env python3
"""The shared-link viewer in a real browser (issue 42): `efferent share` makes SMART Health Links
on a generated archive against a real efferent-server, and headless Chromium opens each at desktop
and phone width. The viewer decrypts in the page (WebCrypto AES-GCM, DecompressionStream), shows
the summary and a chart per metric with no console error and no request leaving the service (and
none carrying the link's fragment), a day's figure read from a chart equals `efferent daily`, the
downloaded Bundle is byte for byte what an independent decrypt (jwcrypto) gives, a passcode link
asks for its passcode and counts wrong ones, an ended link says so, and the page fits a phone.
It prints how long the summary took to show after the page began loading.

Usage: check_viewer.py BIN_DIR. Exits 1 on any failure, or when the browser cannot start.
"""

from __future__ import annotations

import base64
import glob
import json
import os
import sys
import tempfile
import time
import urllib.request

from browser_support import Archive, BrowserUnavailable, browser, wait_ready
from check_dashboard import FAILURES, check, console_errors, requested_urls


def payload(link: str) -> dict:
    text = link.split("shlink:/", 1)[1]
    return json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))


def decrypt_first_file(link: str) -> str:
    """The document as an independent client decrypts it (jwcrypto), to hold the download to."""
    from jwcrypto import jwe, jwk
    data = payload(link)
    request = urllib.request.Request(data["url"], data=json.dumps({"recipient": "browser check (jwcrypto)"}).encode(),
                                     headers={"content-type": "application/json"}, method="POST")
    manifest = json.load(urllib.request.urlopen(request))
    first = manifest["files"][0]
    compact = first.get("embedded") or urllib.request.urlopen(first["location"]).read().decode()
    token = jwe.JWE()
    token.deserialize(compact, key=jwk.JWK(kty="oct", k=data["key"]))
    return token.payload.decode()


def main() -> int:
    bin_dir = sys.argv[1]
    print("viewer: a 45-day generated archive through the real binaries, shared with efferent share")
    archive = Archive(bin_dir, days=45)
    downloads = tempfile.mkdtemp(prefix="efferent-viewer-downloads-")
    drivers = []
    try:
        made = json.loads(archive.efferent(archive.laptop, "share", "--label", "Browser check", "--name", "Viewer Patient", "--offline", "--json"))
        viewer = made["viewer"]
        locked = json.loads(archive.efferent(archive.laptop, "share", "--metric", "steps", "--passcode", "browser 2042", "--offline", "--json"))
        revoked = json.loads(archive.efferent(archive.laptop, "share", "--metric", "steps", "--offline", "--json"))
        archive.efferent(archive.laptop, "share", "revoke", "--", revoked["id"])
        service = archive.service_url
        try:
            desktop = browser(1280, 900)
            drivers.append(desktop)
            phone = browser(390, 844)
            drivers.append(phone)
        except BrowserUnavailable as error:
            print(f"FAIL  the viewer checks could not run: {error}. scripts/test installs chromium, chromium-driver and selenium when it runs as root.")
            return 1
        timings = {}

        def open_viewer(driver, url):
            driver.get("about:blank")
            driver.get_log("browser")
            driver.get_log("performance")
            driver.get(url)
            return wait_ready(driver)

        for name, driver in (("desktop", desktop), ("phone", phone)):
            @check(f"{name}: the link opens, decrypted in the page, with the summary, a chart per metric, no console error, "
                   "nothing fetched from elsewhere and the fragment never sent")
            def opens(driver=driver, name=name):
                state = open_viewer(driver, viewer)
                assert state == "true", f"the viewer ended in state {state}: {driver.find_element('tag name', 'main').text[:300]}"
                timings[name] = int(driver.execute_script("return document.body.dataset.readyMs"))
                deadline = time.time() + 30
                while driver.execute_script("return document.body.dataset.charts || ''") != "drawn":
                    assert time.time() < deadline, "the charts were not drawn within 30 s"
                    time.sleep(0.05)
                heading = driver.find_element("tag name", "h1").text
                assert heading == "Browser check", f"heading {heading!r}"
                assert "Viewer Patient" in driver.find_element("css selector", "dl.facts").text
                sections = driver.find_elements("css selector", "section.section")
                charts = driver.find_elements("css selector", "section.section figure.chart svg")
                assert len(sections) >= 5 and len(charts) >= len(sections) - 1, f"{len(sections)} sections, {len(charts)} charts"
                errors = console_errors(driver)
                assert not errors, f"console errors: {errors}"
                urls = requested_urls(driver)
                foreign = [url for url in urls if not url.startswith(service + "/") and not url.startswith(("data:", "about:", "blob:"))]
                assert not foreign, f"the viewer asked for {foreign}"
                leaked = [url for url in urls if "shlink" in url.split("#", 1)[0]]
                assert not leaked, f"the link reached the server in {leaked}"
                overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
                assert overflow <= 1, f"the page is {overflow} px wider than the window"
            opens()

        @check("the days of the steps chart read with the keyboard equal efferent daily, empty ones said so")
        def readout():
            open_viewer(desktop, viewer)
            section = [s for s in desktop.find_elements("css selector", "section.section") if s.find_element("tag name", "h2").text == "Steps"][0]
            daily = archive.answer("daily", "--metric", "steps", "--since", "2000-01-01", "--until", made["through"])
            rows = daily["rows"]
            assert rows[-1][0] == made["through"], f"efferent daily ends on {rows[-1][0]}, the link on {made['through']}"
            svg = section.find_element("css selector", "figure.chart svg")
            # Keys go to the focused chart, which starts on the span's last day: ArrowRight stays
            # there, each ArrowLeft steps a day back, through the last day with steps and one more.
            desktop.execute_script("arguments[0].focus()", svg)
            svg.send_keys("\ue014")
            recorded = [index for index, row in enumerate(rows) if row[1] is not None]
            assert recorded, "the generated archive has no steps"
            for index in range(len(rows) - 1, max(recorded[-1] - 2, -1), -1):
                day, steps = rows[index]
                text = section.find_element("css selector", ".readout").text
                assert text.startswith(day + ":"), f"the read-out names {text!r}, not {day}"
                expected = "nothing recorded" if steps is None else f"{round(steps):,}"
                assert expected in text, f"read-out {text!r} lacks efferent daily's {steps} for {day}"
                svg.send_keys("\ue012")

        @check("the downloaded FHIR bundle is what an independent client decrypts (jwcrypto), byte for byte")
        def download():
            desktop.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
            open_viewer(desktop, viewer)
            desktop.find_element("css selector", ".downloads button").click()
            deadline = time.time() + 20
            while not glob.glob(os.path.join(downloads, "*.json")):
                assert time.time() < deadline, "nothing was downloaded"
                time.sleep(0.1)
            saved = open(glob.glob(os.path.join(downloads, "*.json"))[0], encoding="utf-8").read()
            assert saved == decrypt_first_file(viewer), "the download differs from the decrypted file"
            assert json.loads(saved)["resourceType"] == "Bundle"

        @check("a passcode link asks for it, counts a wrong one down, and opens with the right one")
        def passcode():
            state = open_viewer(desktop, locked["viewer"])
            assert state == "passcode", f"state {state}"
            field = desktop.find_element("id", "passcode")
            field.send_keys("wrong guess")
            desktop.find_element("css selector", "form.open button").click()
            deadline = time.time() + 20
            while "9 tries left" not in desktop.find_element("tag name", "main").text:
                assert time.time() < deadline, f"no countdown shown: {desktop.find_element('tag name', 'main').text[:300]}"
                time.sleep(0.05)
            desktop.find_element("id", "passcode").send_keys("browser 2042")
            desktop.find_element("id", "recipient").send_keys("Dr Browser")
            desktop.execute_script("document.body.dataset.ready = ''")
            desktop.find_element("css selector", "form.open button").click()
            assert wait_ready(desktop) == "true", desktop.find_element("tag name", "main").text[:300]
            # The one error the browser logs is the wrong passcode's 401, the IG's answer to it.
            errors = console_errors(desktop)
            assert all("401" in line for line in errors) and len(errors) <= 1, f"console errors: {errors}"
            listed = archive.efferent(archive.laptop, "share", "list", "--json")
            entry = [json.loads(line) for line in listed.splitlines() if json.loads(line)["id"] == locked["id"]][0]
            assert entry["failures"] == 1 and entry["accesses"][0]["recipient"] == "Dr Browser", entry

        @check("a revoked link says so in a sentence")
        def ended():
            state = open_viewer(phone, revoked["viewer"])
            assert state == "error", f"state {state}"
            text = phone.find_element("css selector", ".error").text
            assert "revoked" in text, text

        readout()
        download()
        passcode()
        ended()
        if not FAILURES:
            print(f"  figure  summary shown {timings.get('desktop')} ms after the page began loading at 1280 px, "
                  f"{timings.get('phone')} ms at 390 px (debug binaries unless told otherwise; scripts/bench share measures release)")
    finally:
        for driver in drivers:
            driver.quit()
        archive.close(keep=bool(FAILURES))
    if FAILURES:
        print(f"viewer: {len(FAILURES)} check(s) failed: {', '.join(FAILURES)}")
        return 1
    print("viewer: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
