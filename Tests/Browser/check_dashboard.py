#!/usr/bin/env python3
"""The dashboard in a real browser (issue 16): headless Chromium against `efferent dashboard` on a
generated archive whose data stops 40 days before today (the writer uploads empty days through
today, as for an export whose data ended long ago). Every page loads with no console error and no request leaving loopback; the
numbers a page shows for a chosen week — steps per day, a night's stages, a workout's distance —
equal what `efferent daily/sleep/workouts` answer for the same days; the token is required; a
foreign Host (a name pointed at 127.0.0.1, as DNS rebinding does) is refused; every /api/v1
answer validates against its own schema in /api/openapi.json (openapi-spec-validator, jsonschema).
What a newcomer meets first (issue 41): pages open on the latest data, not on the calendar, and an
empty range says where the data stops and jumps there; no table is wider than its column at
1,280 px or 390 px; a path with no page, or a malformed one, gets the app's own page with its
status, and a workout named by its ISO start opens; a percentage is shown once, as one.

Usage: check_dashboard.py BIN_DIR. Exits 1 on any failure, and when the browser cannot start at
all (it says why and what to install): a check that cannot run never passes.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import time
import traceback
import urllib.parse

from browser_support import Archive, BrowserUnavailable, Dashboard, browser, wait_ready

FAILURES: list[str] = []


def check(name):
    def wrap(function):
        def run(*arguments):
            started = time.time()
            try:
                function(*arguments)
                print(f"  ok    {name} ({time.time() - started:.1f} s)")
            except AssertionError as error:
                FAILURES.append(name)
                print(f"  FAIL  {name}: {error}")
            except Exception:  # noqa: BLE001 - an unexpected failure is a failed check, with its trace
                FAILURES.append(name)
                print(f"  FAIL  {name}: unexpected error")
                traceback.print_exc()
        return run
    return wrap


def console_errors(driver) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]


def requested_urls(driver) -> list[str]:
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def open_page(driver, dashboard: Dashboard, path: str) -> None:
    driver.get(dashboard.base + path)
    state = wait_ready(driver)
    if state != "true":
        message = driver.execute_script("var e = document.querySelector('.error'); return e ? e.textContent : ''")
        raise AssertionError(f"{path} did not draw: {message}")


def main() -> int:
    bin_dir = sys.argv[1]
    print("browser: a 45-day generated archive ending 40 days ago, through the real binaries")
    archive = Archive(bin_dir, days=45, ends_days_ago=40)
    dashboard = Dashboard(archive)
    driver = None
    try:
        try:
            driver = browser()
        except BrowserUnavailable as error:
            print(f"FAIL  the browser checks could not run: {error}. scripts/test installs chromium, chromium-driver and "
                  "selenium when it runs as root.")
            return 1
        last = dt.date.fromisoformat(archive.last_day)
        week_end = last - dt.timedelta(days=3)
        week_start = week_end - dt.timedelta(days=6)

        @check("the token is required: without it a page is refused with a sentence, and so is the API")
        def token_required():
            driver.get(dashboard.base + "/")
            text = driver.find_element("id", "refusal").text
            assert "access token" in text, f"the page said: {text!r}"
            status, _, body = dashboard.get("/api/v1/pages/today")
            assert status == 401 and b"access token" in body, f"the API answered {status}: {body[:200]!r}"
            status, _, _ = dashboard.get("/api/v1/pages/today", {"Authorization": "Bearer wrong-token"})
            assert status == 401, f"a wrong token was answered {status}"
            console = console_errors(driver)  # the refused page's 401 is the one error expected here
            assert all("401" in line for line in console), f"console: {console}"

        @check("the printed address sets an HttpOnly, SameSite=Strict cookie and leaves the token out of the address bar")
        def login():
            driver.get(dashboard.url)
            assert wait_ready(driver) == "true"
            assert "token" not in driver.current_url, driver.current_url
            cookies = {cookie["name"]: cookie for cookie in driver.get_cookies()}
            cookie = cookies.get(f"efferent_dashboard_{dashboard.port}")
            assert cookie and cookie["httpOnly"] and cookie.get("sameSite") == "Strict", f"cookies: {cookies}"
            assert driver.execute_script("return document.cookie") == "", "a script can read the cookie"
            driver.get_log("browser")
            driver.get_log("performance")

        token_required()
        login()

        sleep_answer = archive.answer("sleep", "--since", week_start.isoformat(), "--until", week_end.isoformat())
        chosen_night = sleep_answer["rows"][-1]["night"] if sleep_answer["rows"] else week_end.isoformat()
        workouts_answer = archive.answer("workouts", "--since", (last - dt.timedelta(days=40)).isoformat(), "--until", last.isoformat())
        columns = workouts_answer["columns"]
        same = workouts_answer.get("sameOnEveryRow", {})
        workouts = [dict(same, **dict(zip(columns, row))) for row in workouts_answer["rows"]]
        with_route = [w for w in workouts if w.get("routeFixes")]
        route_start = int(dt.datetime.fromisoformat(with_route[0]["start"].replace("Z", "+00:00")).timestamp()) if with_route else None

        pages = ["/", "/metrics/steps", f"/metrics/steps?range=7D&until={week_end}", f"/metrics/heartRate?range=D&until={week_end}",
                 "/metrics/heartRate?range=ALL", "/metrics/bodyMass?range=90D", "/metrics/oxygenSaturation?range=7D",
                 "/sleep", f"/sleep/{chosen_night}", "/workouts?range=90D", "/catalogue"]
        if route_start:
            pages.append(f"/workouts/{route_start}")

        @check(f"every page draws with no console error and no request leaving loopback ({len(pages)} pages)")
        def every_page():
            for path in pages:
                open_page(driver, dashboard, path)
                errors = console_errors(driver)
                assert not errors, f"{path}: console errors {errors}"
                foreign = [url for url in requested_urls(driver)
                           if not url.startswith(dashboard.base + "/") and not url.startswith(("data:", "about:", "blob:"))]
                assert not foreign, f"{path} asked for {foreign}"

        @check(f"steps per day for {week_start}…{week_end} equal efferent daily, in the values and the keyboard read-out")
        def steps_week():
            daily = archive.answer("daily", "--metric", "steps", "--since", week_start.isoformat(), "--until", week_end.isoformat())
            expected = {row[0]: row[1] for row in daily["rows"] if row[1] is not None}
            assert len(expected) >= 5, f"the generated week holds too few days of steps: {expected}"
            open_page(driver, dashboard, f"/metrics/steps?range=7D&until={week_end}")
            shown = driver.execute_script(
                "return Array.from(document.querySelectorAll('table.bins tr[data-first]')).map(r => [r.dataset.first, r.dataset.last, r.dataset.value])")
            seen = {}
            for first, last_day, value in shown:
                assert first == last_day, f"a bin of several days on a 7-day chart: {first}…{last_day}"
                seen[first] = float(value)
            assert seen == expected, f"page {seen} != efferent daily {expected}"
            box = driver.find_element("css selector", ".chart-box")
            box.click()
            box.send_keys("\ue010")  # End: the last bin
            readout = driver.find_element("css selector", ".readout").text
            final = week_end.isoformat()
            words = dt.date.fromisoformat(final).strftime("%a ") + str(dt.date.fromisoformat(final).day)
            assert readout.startswith(words), f"the read-out after End is {readout!r}, not {final}"
            if final in expected:
                assert f"{round(expected[final]):,} steps" in readout, f"read-out {readout!r} lacks {expected[final]}"
            box.send_keys("\ue012")  # ArrowLeft: the day before
            before = driver.find_element("css selector", ".readout").text
            assert before != readout and before.split(":")[0], f"ArrowLeft did not move the read-out ({before!r})"

        @check(f"the night of {chosen_night}: stage hours equal efferent sleep")
        def night_stages():
            answer = archive.answer("sleep", "--since", chosen_night, "--until", chosen_night)
            assert answer["rows"], f"no night {chosen_night} in the archive"
            expected = answer["rows"][0]["stages"]
            open_page(driver, dashboard, f"/sleep/{chosen_night}")
            shown = driver.execute_script(
                "return Array.from(document.querySelectorAll('table.stages tr[data-stage]')).map(r => [r.dataset.stage, r.querySelector('[data-hours]').dataset.hours])")
            seen = {stage: float(hours) for stage, hours in shown}
            assert seen == expected, f"page {seen} != efferent sleep {expected}"
            asleep = float(driver.find_element("css selector", "dd[data-hours]").get_attribute("data-hours"))
            assert asleep == answer["rows"][0]["asleepHours"], f"asleep {asleep} != {answer['rows'][0]['asleepHours']}"
            legend = driver.find_elements("css selector", ".chart-box svg rect[class^='st-']")
            assert len({element.get_attribute("class") for element in legend}) >= 2, "the hypnogram draws fewer than two stages"

        @check("each workout's distance on the workouts page equals efferent workouts")
        def workout_distance():
            expected = {}
            for workout in workouts:
                if workout.get("distanceMeters") is not None:
                    start = int(dt.datetime.fromisoformat(workout["start"].replace("Z", "+00:00")).timestamp())
                    expected[start] = workout["distanceMeters"]
            assert expected, "the generated archive has no workout with a distance"
            until = last.isoformat()
            open_page(driver, dashboard, f"/workouts?range=90D&until={until}")
            shown = driver.execute_script(
                "return Array.from(document.querySelectorAll('table.workouts tr[data-start]')).map(r => [r.dataset.start, (r.querySelector('[data-meters]') || {dataset: {}}).dataset.meters])")
            seen = {int(start): float(meters) for start, meters in shown if meters}
            for start, meters in expected.items():
                assert seen.get(start) == meters, f"workout at {start}: page {seen.get(start)} != efferent workouts {meters}"
            if route_start:
                open_page(driver, dashboard, f"/workouts/{route_start}")
                assert driver.find_elements("css selector", ".map svg path.c-route"), "the route is not drawn"
                shown_distance = driver.find_element("css selector", "dd[data-fact='distance']").text
                assert shown_distance == f"{expected[route_start] / 1000:.2f} km", f"detail shows {shown_distance}"

        @check("an empty range is drawn as such, with its sentence")
        def empty_range():
            long_ago = (last - dt.timedelta(days=400)).isoformat()
            open_page(driver, dashboard, f"/metrics/steps?range=7D&until={long_ago}")
            text = driver.find_element("css selector", ".chart-box svg .c-empty").text
            assert text == "No data in this range", text

        @check("a phone-sized window: pages fit its width, and the dark theme switches")
        def phone_and_theme():
            driver.set_window_size(390, 844)
            for path in ("/", f"/metrics/steps?range=30D&until={week_end}", "/sleep", "/catalogue"):
                open_page(driver, dashboard, path)
                overflow = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
                assert overflow <= 1, f"{path} is {overflow} px wider than a phone"
            driver.find_element("id", "theme").click()
            driver.find_element("id", "theme").click()
            assert driver.execute_script("return document.documentElement.dataset.theme") == "dark"
            background = driver.execute_script("return getComputedStyle(document.documentElement).backgroundColor")
            assert background == "rgb(28, 28, 30)", f"dark background is {background}"
            driver.set_window_size(1280, 900)
            assert not console_errors(driver)

        @check("at phone width the workouts table shows every column of every workout, and its heart-rate chart a time axis")
        def phone_workouts():
            driver.set_window_size(390, 844)
            open_page(driver, dashboard, f"/workouts?range=90D&until={last.isoformat()}")
            width = driver.execute_script("return document.documentElement.clientWidth")
            cells = driver.execute_script("""return Array.from(document.querySelectorAll('table.workouts tr[data-start] td')).map(td => {
                const box = td.getBoundingClientRect();
                return [td.dataset.label, box.left, box.right, td.scrollWidth - td.clientWidth, box.width];
            })""")
            assert cells, "the workouts page lists no workout"
            for label, left, right, clipped, cell_width in cells:
                assert left >= -1 and right <= width + 1, f"{label} lies outside the {width} px screen ({left:.0f}…{right:.0f})"
                assert clipped <= 1 and cell_width > 0, f"{label} is cut ({clipped} px hidden)"
            overflow = driver.execute_script("return document.querySelector('.table-wrap').scrollWidth - document.querySelector('.table-wrap').clientWidth")
            assert overflow <= 1, f"the workouts table scrolls {overflow} px sideways"
            if route_start:
                open_page(driver, dashboard, f"/workouts/{route_start}")
                labels = driver.execute_script("return Array.from(document.querySelectorAll('.chart-box svg text')).map(t => t.textContent)")
                times = [text for text in labels if len(text) == 5 and text[2] == ":"]
                assert len(times) >= 2, f"the heart-rate chart has {len(times)} time labels: {labels[:20]}"
            driver.set_window_size(1280, 900)
            assert not console_errors(driver)

        every_page()
        steps_week()
        night_stages()
        workout_distance()
        empty_range()
        phone_and_theme()
        phone_workouts()

        @check("pages open on the latest data: the Steps card leads to days with steps, and so do Sleep and Workouts")
        def latest_data():
            driver.set_window_size(1280, 900)
            open_page(driver, dashboard, "/")
            card = driver.find_element("css selector", "a.card[data-metric='steps']")
            path = urllib.parse.urlsplit(card.get_attribute("href")).path
            assert path == "/metrics/steps", f"the Steps card leads to {path}"
            open_page(driver, dashboard, path)
            assert not driver.find_elements("css selector", ".chart-box svg .c-empty"), "the Steps page opens on an empty chart"
            shown = driver.execute_script("return Array.from(document.querySelectorAll('table.bins tr[data-first]')).map(r => r.dataset.first)")
            assert shown and max(shown) == archive.last_day, f"the Steps page's last day with steps is {max(shown) if shown else None}, not {archive.last_day}"
            open_page(driver, dashboard, "/sleep")
            nights = driver.find_elements("css selector", "table.nights tr[data-night]")
            assert len(nights) >= 20, f"the Sleep page opens on {len(nights)} nights"
            open_page(driver, dashboard, "/workouts")
            assert driver.find_elements("css selector", "table.workouts tr[data-start]"), "the Workouts page opens on no workout"

        @check("a range with no data says where the data stops, and its link jumps there")
        def says_where_data_stops():
            after = (last + dt.timedelta(days=20)).isoformat()
            open_page(driver, dashboard, f"/metrics/steps?range=7D&until={after}")
            note = driver.find_element("css selector", ".coverage")
            assert f"your steps end on {archive.last_day}" in note.text, f"the empty range says {note.text!r}"
            jump = urllib.parse.urlsplit(note.find_element("css selector", "a").get_attribute("href"))
            open_page(driver, dashboard, jump.path + "?" + jump.query)
            shown = driver.execute_script("return Array.from(document.querySelectorAll('table.bins tr[data-first]')).map(r => r.dataset.first)")
            assert archive.last_day in shown, f"the jump ({jump.query}) shows {shown}"
            open_page(driver, dashboard, f"/sleep?range=7D&until={after}")
            assert "your sleep ends on" in driver.find_element("css selector", ".coverage").text

        @check("no table is wider than its column, at 1,280 px and at 390 px")
        def tables_fit():
            paths = ("/catalogue", "/sleep", f"/sleep/{chosen_night}", f"/workouts?range=90D&until={last.isoformat()}", "/")
            for width, height in ((1280, 900), (390, 844)):
                driver.set_window_size(width, height)
                for path in paths:
                    open_page(driver, dashboard, path)
                    tables = driver.execute_script("""return Array.from(document.querySelectorAll('main .table-wrap')).filter(w => w.offsetParent !== null).map(w => {
                        const table = w.querySelector('table'), column = document.getElementById('main').getBoundingClientRect();
                        return [table.className || 'table', w.scrollWidth - w.clientWidth, table.getBoundingClientRect().right - column.right];
                    })""")
                    assert tables, f"{path} shows no table"
                    for name, scrolled, past in tables:
                        assert scrolled <= 1 and past <= 1, f"at {width} px the {name} table of {path} is {max(scrolled, past):.0f} px wider than its column"
            driver.set_window_size(1280, 900)

        @check("a path with no page, or a malformed one, gets the app's page with its status; a workout named by its ISO start opens")
        def error_pages():
            for path, status in (("/nope", 404), ("/sleep/2017-13-45", 400), ("/workouts/not-a-start", 400)):
                code, headers, body = dashboard.get(path, {"Authorization": f"Bearer {dashboard.token}"})
                assert code == status and headers.get("content-type", "").startswith("text/html"), f"{path}: {code} {headers.get('content-type')} {body[:80]!r}"
                driver.get(dashboard.base + path)
                assert wait_ready(driver) == "error", f"{path} drew as a page"
                text = driver.find_element("id", "main").text
                assert driver.find_elements("css selector", "header.top nav a[href='/']"), f"{path} lacks the app's navigation"
                assert "{" not in text and driver.find_element("css selector", "main .error").text, f"{path} shows {text!r}"
            if route_start:
                iso = dt.datetime.fromtimestamp(route_start, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
                open_page(driver, dashboard, f"/workouts/{iso}")
                assert driver.find_elements("css selector", "dd[data-fact='distance']"), f"/workouts/{iso} shows no workout"
            # The refused document and the API's refusal are logged by Chromium as failed loads; nothing else may be.
            unexpected = [line for line in console_errors(driver) if "status of 400" not in line and "status of 404" not in line]
            assert not unexpected, f"console: {unexpected}"

        @check("a percentage is shown once, as one: blood oxygen in %, with no note that the unit is something else")
        def units_once():
            open_page(driver, dashboard, f"/metrics/oxygenSaturation?range=7D&until={week_end}")
            sub = driver.find_element("css selector", "main .sub").text
            mean = driver.find_element("css selector", "[data-stat='mean'] dd").text
            page = driver.find_element("id", "main").text
            assert sub.endswith("shown in %") or "shown in %" in sub, f"the unit line says {sub!r}"
            assert mean.endswith(" %") and 50 <= float(mean[:-2]) <= 100, f"the mean reads {mean!r}"
            assert "fraction of 1" not in page and "not a percentage" not in page, f"the page contradicts its unit: {page!r}"

        latest_data()
        says_where_data_stops()
        tables_fit()
        error_pages()
        units_once()
        driver.quit()
        driver = None

        @check("a foreign Host is refused: a name pointed at 127.0.0.1 (DNS rebinding) gets no page, even with the token")
        def foreign_host():
            rebinding = browser(host_rules="MAP rebind.example 127.0.0.1")
            try:
                rebinding.get(f"http://rebind.example:{dashboard.port}/?token={urllib.parse.quote(dashboard.token)}")
                text = rebinding.find_element("id", "refusal").text
                assert "only for the address it printed" in text, f"the page said {text!r}"
                assert rebinding.execute_script("return document.body.dataset.ready || ''") == "", "the app ran"
            finally:
                rebinding.quit()
            status, _, body = dashboard.get("/api/v1/pages/today", {"Host": f"evil.example:{dashboard.port}",
                                                                  "Authorization": f"Bearer {dashboard.token}"})
            assert status == 403, f"the API answered {status} to a foreign Host: {body[:200]!r}"

        foreign_host()

        @check("every /api/v1 answer validates against its own 200 schema in /api/openapi.json, itself valid OpenAPI 3.1")
        def typed_api():
            # Imported here: a missing validator fails this check with the sentence, not the run.
            import jsonschema
            import openapi_spec_validator
            import referencing
            import referencing.jsonschema
            authorised = {"Authorization": f"Bearer {dashboard.token}"}
            status, _, body = dashboard.get("/api/openapi.json", authorised)
            assert status == 200, f"/api/openapi.json answered {status}"
            document = json.loads(body)
            openapi_spec_validator.validate(document)
            registry = referencing.Registry().with_resource(
                "urn:efferent-openapi", referencing.Resource.from_contents(document, default_specification=referencing.jsonschema.DRAFT202012))
            since = (last - dt.timedelta(days=20)).isoformat()
            questions = {
                "/api/v1/overview": "/api/v1/overview", "/api/v1/status": "/api/v1/status",
                "/api/v1/daily": f"/api/v1/daily?metric=steps&since={since}",
                "/api/v1/statistics": f"/api/v1/statistics?metric=heartRate&groupBy=week&since={since}",
                "/api/v1/sleep": f"/api/v1/sleep?since={since}",
                "/api/v1/workouts": f"/api/v1/workouts?since={since}",
                "/api/v1/samples": "/api/v1/samples?metric=heartRate&limit=5",
                "/api/v1/pages/today": "/api/v1/pages/today",
                "/api/v1/pages/metric/{metric}": "/api/v1/pages/metric/heartRate?range=30D",
                "/api/v1/pages/sleep": "/api/v1/pages/sleep", "/api/v1/pages/night/{night}": f"/api/v1/pages/night/{chosen_night}",
                "/api/v1/pages/workouts": "/api/v1/pages/workouts", "/api/v1/pages/catalogue": "/api/v1/pages/catalogue",
            }
            if route_start:
                questions["/api/v1/pages/workout/{start}"] = f"/api/v1/pages/workout/{route_start}"
            # A day page (and a paged one, with its next) and a samples page with its next offset, typed too.
            extra = [("/api/v1/daily", "/api/v1/daily?metric=heartRate&since=2000-01-01"),
                     ("/api/v1/samples", "/api/v1/samples?metric=sleep&limit=2&offset=2")]
            bare = [route for route, operations in document["paths"].items() if route.startswith("/api/v1/")
                    and operations["get"]["responses"]["200"]["content"].get("application/json", {}).get("schema", {}).get("$ref") is None
                    and "{kind}" not in route]
            assert not bare, f"answers whose 200 schema is untyped: {bare}"
            for route, target in list(questions.items()) + extra:
                schema = document["paths"][route]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
                status, _, body = dashboard.get(target, authorised)
                assert status == 200, f"{target} answered {status}: {body[:200]!r}"
                validator = jsonschema.Draft202012Validator({"$ref": "urn:efferent-openapi" + schema["$ref"]}, registry=registry)
                errors = [f"{error.message[:120]} at /{'/'.join(map(str, error.absolute_path))}" for error in validator.iter_errors(json.loads(body))]
                assert not errors, f"{target} does not match {schema['$ref']}: {errors[:3]}"

        typed_api()
    finally:
        if driver:
            driver.quit()
        dashboard.close()
        archive.close()
    if FAILURES:
        print(f"browser: {len(FAILURES)} check(s) failed")
        return 1
    print("browser: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
