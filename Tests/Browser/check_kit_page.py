"""The recovery kit's printable page in headless Chromium (issue 40): written by `efferent keys
backup` on a real archive, it loads with no console error, prints on exactly one A4 page and one
US Letter page, and its QR code, read back from a screenshot by ZBar, is the kit's own text —
which `efferent keys verify` then opens against the service, as a person scanning the sheet would.

    python3 check_kit_page.py BIN_DIR
"""

from __future__ import annotations

import base64
import io
import os
import re
import subprocess
import sys

from browser_support import Archive, BrowserUnavailable, browser


def pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page[^s]", pdf))


def main() -> int:
    bin_dir = sys.argv[1]
    archive = Archive(bin_dir, days=20)
    driver = None
    try:
        passphrase = os.path.join(archive.work, "passphrase")
        with open(passphrase, "w", encoding="utf-8") as out:
            out.write("cobalt-fern-ledger-quiver-saddle\n")
        os.chmod(passphrase, 0o600)
        kit = os.path.join(archive.work, "kit.txt")
        archive.efferent(archive.phone, "keys", "backup", "--passphrase-file", passphrase, "--out", kit)
        split = os.path.join(archive.work, "family.txt")
        archive.efferent(archive.phone, "keys", "backup", "--split", "2-of-3", "--out", split)
        pages_to_check = [kit[:-4] + ".html", os.path.join(archive.work, "family-sheet-2-of-3.html")]
        try:
            driver = browser(width=1000, height=1400)
        except BrowserUnavailable as error:
            print(f"FAIL  the kit page check could not run: {error}", flush=True)
            return 1
        from selenium.webdriver.common.print_page_options import PrintOptions
        from pyzbar.pyzbar import decode
        from PIL import Image
        for page in pages_to_check:
            name = os.path.basename(page)
            driver.get("file://" + page)
            errors = [entry["message"] for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]
            assert not errors, f"{name}: console errors {errors}"
            for size, (width, height) in (("A4", (21.0, 29.7)), ("Letter", (21.59, 27.94))):
                options = PrintOptions()
                options.page_width, options.page_height = width, height
                count = pages(base64.b64decode(driver.print_page(options)))
                assert count == 1, f"{name} prints on {count} {size} pages, not one"
                print(f"  ok    {name} prints on one {size} page", flush=True)
            shot = Image.open(io.BytesIO(driver.find_element("css selector", ".qr").screenshot_as_png)).convert("L")
            found = decode(shot)
            assert len(found) == 1, f"{name}: ZBar found {len(found)} codes"
            scanned = found[0].data.decode()
            text = open(page[:-5] + ".txt", encoding="utf-8").read()
            assert scanned in text.splitlines(), f"{name}: the QR code is not the kit's own text"
            print(f"  ok    {name}: its QR code, read by ZBar, is the kit's text ({len(scanned)} characters)", flush=True)
        # The scan is enough to restore: verify opens the scanned text against the service.
        scanned_file = os.path.join(archive.work, "scanned.txt")
        driver.get("file://" + pages_to_check[0])
        code = decode(Image.open(io.BytesIO(driver.find_element("css selector", ".qr").screenshot_as_png)).convert("L"))[0].data.decode()
        with open(scanned_file, "w", encoding="utf-8") as out:
            out.write(code + "\n")
        environment = dict(os.environ, EFFERENT_HOME=os.path.join(archive.work, "elsewhere"))
        verified = subprocess.run([os.path.join(bin_dir, "efferent"), "keys", "verify", "--passphrase-file", passphrase, scanned_file],
                                  capture_output=True, text=True, env=environment)
        assert verified.returncode == 0, f"the scanned QR text did not verify: {verified.stderr}"
        print("  ok    the scanned QR text alone verifies against the service", flush=True)
        return 0
    except AssertionError as error:
        print(f"FAIL  {error}", flush=True)
        return 1
    finally:
        if driver is not None:
            driver.quit()
        archive.close()


if __name__ == "__main__":
    sys.exit(main())
