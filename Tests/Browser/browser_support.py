"""What the browser checks and the demo's screenshots share: a generated archive made through the
real binaries (efferent-export-gen, efferent-server, efferent init/import/push/connect/sync), a
running `efferent dashboard`, and headless Chromium driven by Selenium with its console and
network logs kept.

Standard library and Selenium only; Chromium and chromedriver come from Debian
(`apt-get install chromium chromium-driver`), which scripts/lib.sh installs when it runs as root.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request

CHROMIUM = os.environ.get("EFFERENT_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("EFFERENT_CHROMEDRIVER", "/usr/bin/chromedriver")


class BrowserUnavailable(Exception):
    """Chromium, chromedriver or Selenium is missing or would not start; the sentence says which."""


class Archive:
    """A generated export of `days` days ending `ends_days_ago` days before today (yesterday by
    default), imported, pushed to a service on loopback and synced into a reader's mirror, all by
    the built binaries in `bin_dir`. The writer uploads empty days from the last day with data
    through today, as it does for an export whose data stopped long ago."""

    def __init__(self, bin_dir: str, days: int = 45, work: str | None = None, ends_days_ago: int = 1):
        self.bin = bin_dir
        self.work = work or tempfile.mkdtemp(prefix="efferent-browser-")
        self.last_day = (dt.datetime.now(dt.timezone.utc).date() - dt.timedelta(days=ends_days_ago)).isoformat()
        self.export = os.path.join(self.work, "export.zip")
        self.run("efferent-export-gen", "--days", str(days), "--last-day", self.last_day, "--out", self.export)
        # Port 0: the service binds a port the system chooses and names it in its `listening` line,
        # so no other process can take it between a probe and the bind.
        self.server_log_path = os.path.join(self.work, "service.log")
        self.server_log = open(self.server_log_path, "w", encoding="utf-8")
        self.server = subprocess.Popen([os.path.join(self.bin, "efferent-server"), "serve", "--data", os.path.join(self.work, "service"),
                                        "--listen", "127.0.0.1:0", "--admission", "open"],
                                       stdout=subprocess.DEVNULL, stderr=self.server_log)
        deadline = time.time() + 20
        while True:
            with open(self.server_log_path, encoding="utf-8") as log:
                found = re.search(r'"listening":"(http://127\.0\.0\.1:[0-9]+)"', log.read())
            if found:
                self.service_url = found.group(1)
                break
            if time.time() > deadline or self.server.poll() is not None:
                raise RuntimeError("efferent-server did not say where it listens; its log: " + self.server_log_path)
            time.sleep(0.05)
        self.phone = os.path.join(self.work, "phone")
        self.laptop = os.path.join(self.work, "laptop")
        self.efferent(self.phone, "init", "--server", self.service_url, "--time-zone", "Europe/Paris")
        self.efferent(self.phone, "import", self.export)
        self.efferent(self.phone, "push")
        handoff = os.path.join(self.work, "handoff.txt")
        with open(handoff, "w", encoding="utf-8") as out:
            out.write(self.efferent(self.phone, "handoff"))
        os.chmod(handoff, 0o600)
        self.efferent(self.laptop, "connect", "--handoff", handoff)
        self.efferent(self.laptop, "sync")

    def run(self, tool: str, *arguments: str, home: str | None = None) -> str:
        environment = dict(os.environ)
        if home:
            environment["EFFERENT_HOME"] = home
        done = subprocess.run([os.path.join(self.bin, tool), *arguments], capture_output=True, text=True, env=environment)
        if done.returncode != 0:
            raise RuntimeError(f"{tool} {' '.join(arguments[:2])} exited {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    def efferent(self, home: str, *arguments: str) -> str:
        return self.run("efferent", *arguments, home=home)

    def answer(self, *arguments: str) -> dict:
        """A reader's answer as JSON (`--format json --offline`), from the same mirror the dashboard reads."""
        return json.loads(self.efferent(self.laptop, *arguments, "--format", "json", "--offline"))

    def close(self, keep: bool = False) -> None:
        if self.server.poll() is None:
            self.server.terminate()
            self.server.wait(timeout=20)
        self.server_log.close()
        if not keep:
            shutil.rmtree(self.work, ignore_errors=True)


class Dashboard:
    """`efferent dashboard --listen 127.0.0.1:0` on the archive's reader profile; the address it
    prints (with its token) is read from its standard output."""

    def __init__(self, archive: Archive, *extra: str):
        environment = dict(os.environ, EFFERENT_HOME=archive.laptop)
        self.log = open(os.path.join(archive.work, "dashboard.log"), "w", encoding="utf-8")
        self.process = subprocess.Popen([os.path.join(archive.bin, "efferent"), "dashboard", "--listen", "127.0.0.1:0", *extra],
                                        stdout=subprocess.PIPE, stderr=self.log, text=True, env=environment)
        line = self.process.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:(\d+))/\?token=(\S+)", line)
        if not found:
            self.close()
            raise RuntimeError("efferent dashboard did not print its address; it said: " + line.strip())
        self.base, self.port, self.token = found.group(1), int(found.group(2)), found.group(3)
        self.url = f"{self.base}/?token={self.token}"

    def get(self, path: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
        """A request from outside the browser, with exactly the headers given (no token unless asked)."""
        connection = __import__("http.client").client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        connection.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        headers = dict(headers or {})
        headers.setdefault("Host", f"127.0.0.1:{self.port}")
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        body = response.read()
        connection.close()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


def browser(width: int = 1280, height: int = 900, host_rules: str | None = None):
    """Headless Chromium with its console and network events logged; raises BrowserUnavailable
    with what to install when it cannot start."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as error:
        raise BrowserUnavailable(f"Selenium is not installed ({error}); python3 -m pip install selenium") from error
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            raise BrowserUnavailable(f"{path} is missing; apt-get install -y {package}")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", f"--window-size={width},{height}",
                     "--no-first-run", "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--disable-extensions", "--disable-default-apps", "--metrics-recording-only",
                     "--disable-features=MediaRouter,OptimizationHints,Translate"):
        options.add_argument(argument)
    if host_rules:
        options.add_argument("--host-resolver-rules=" + host_rules)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    # Selenium must not look for (or download) a driver or a browser: both are the Debian packages.
    os.environ["SE_OFFLINE"] = "true"
    # Chromium sometimes dies while starting on a machine short of CPU ("DevToolsActivePort file
    # doesn't exist": seen once in a CI run that took 13 minutes against the usual 10, and not when
    # run again). Starting is tried three times; a browser that never starts still fails the run.
    failures = []
    for attempt in range(3):
        try:
            driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
        except Exception as error:  # noqa: BLE001 - any failure to start is reported as one sentence
            failures.append(str(error).splitlines()[0])
            time.sleep(2 * (attempt + 1))
            continue
        if failures:
            print(f"  note  headless Chromium started on attempt {attempt + 1} (before: {failures[0]})", flush=True)
        driver.set_page_load_timeout(60)
        return driver
    raise BrowserUnavailable(f"headless Chromium would not start in 3 attempts: {failures[-1]}")


def wait_ready(driver, timeout: float = 60) -> str:
    """Waits until the page's script has drawn it (or failed); returns `true` or `error`."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        state = driver.execute_script("return document.body && document.body.dataset.ready || ''")
        if state:
            return state
        time.sleep(0.05)
    raise AssertionError("the page was not drawn within %d s: %s" % (timeout, driver.current_url))
