#!/usr/bin/env python3
"""An independent receiver of SMART Health Links, written from the HL7 SMART Health Cards and
Links IG (STU1, https://hl7.org/fhir/uv/smart-health-cards-and-links/STU1/links-specification.html)
and FHIR R4, not from Efferent's code: it follows a link the way any receiving application would,
then holds what it decrypts to what the Efferent CLI answers.

    shl_check.py open LINK --out DIR [--recipient R] [--passcode P] [--embedded-max N]
        decodes the payload, POSTs the manifest, fetches each file (embedded or by location),
        decrypts it with jwcrypto (JWE alg dir, enc A256GCM, zip DEF) and writes DIR/file-N.json
    shl_check.py validate DIR
        validates every Bundle and every resource in it with fhir.resources' R4B models
    shl_check.py compare DIR DAILY.json [--sleep SLEEP.json] [--workouts WORKOUTS.json]
        every Observation's value against `efferent daily --format json` (and sleep, workouts)
    shl_check.py countdown LINK --passcode P
        wrong passcodes count down remainingAttempts 9 … 0; the 11th try, the right passcode, is 404
    shl_check.py gone LINK [--location URL]
        the manifest (and a file's location) answer 404: expired or revoked, whatever exp says
    shl_check.py raw DIR SAMPLES.jsonl METRIC
        the raw readings of METRIC equal `efferent export samples --format jsonl` (every row)

Exits 1 with a sentence on the first disagreement.
"""

from __future__ import annotations

import argparse
import base64
import decimal
import glob
import json
import os
import sys
import urllib.error
import urllib.request

from jwcrypto import jwe, jwk


def fail(message: str) -> None:
    print("shl_check: " + message, file=sys.stderr)
    sys.exit(1)


def payload_of(link: str) -> dict:
    """IG "Construct a SMART Health Link Payload": shlink:/ + base64url(minified JSON), perhaps after a viewer URL and #."""
    at = link.find("shlink:/")
    if at < 0:
        fail("not a SMART Health Link: " + link[:60])
    text = link[at + len("shlink:/"):]
    payload = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    for member in ("url", "key"):
        if not isinstance(payload.get(member), str):
            fail(f"the payload has no {member}")
    if len(base64.urlsafe_b64decode(payload["key"] + "=")) != 32:
        fail("the key is not 32 bytes")
    if len(payload["url"]) > 128:
        fail("the manifest url is longer than 128 characters")
    return payload


def post_manifest(payload: dict, body: dict) -> tuple[int, dict]:
    """IG "SMART Health Link Manifest Request": POST, content-type application/json."""
    request = urllib.request.Request(payload["url"], data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        text = error.read()
        try:
            return error.code, json.loads(text)
        except ValueError:
            return error.code, {"raw": text.decode(errors="replace")}


def decrypt(compact: str, key_b64: str) -> tuple[dict, bytes]:
    token = jwe.JWE()
    token.deserialize(compact, key=jwk.JWK(kty="oct", k=key_b64))
    header = token.jose_header
    if header.get("alg") != "dir" or header.get("enc") != "A256GCM":
        fail(f"a file is not alg dir / enc A256GCM: {header}")
    return header, token.payload


def command_open(arguments) -> None:
    payload = payload_of(arguments.link)
    body = {"recipient": arguments.recipient}
    if arguments.passcode is not None:
        body["passcode"] = arguments.passcode
    if arguments.embedded_max is not None:
        body["embeddedLengthMax"] = arguments.embedded_max
    status, manifest = post_manifest(payload, body)
    if status != 200:
        fail(f"the manifest answered {status}: {manifest}")
    files = manifest.get("files")
    if not isinstance(files, list) or not files:
        fail("the manifest lists no files")
    os.makedirs(arguments.out, exist_ok=True)
    kinds, locations = [], []
    for index, entry in enumerate(files):
        if entry.get("contentType") != "application/fhir+json":
            fail(f"file {index} is {entry.get('contentType')}, not application/fhir+json")
        if "embedded" in entry:
            compact = entry["embedded"]
            kinds.append("embedded")
            if arguments.embedded_max is not None and len(compact) > arguments.embedded_max:
                fail(f"file {index} was embedded though longer than embeddedLengthMax")
        elif "location" in entry:
            # IG ".files.location links": a GET answering application/jose.
            with urllib.request.urlopen(entry["location"], timeout=30) as answer:
                if answer.headers.get_content_type() != "application/jose":
                    fail(f"file {index}'s location answered {answer.headers.get_content_type()}")
                compact = answer.read().decode()
            kinds.append("location")
            locations.append(entry["location"])
        else:
            fail(f"file {index} has neither embedded nor location")
        header, plaintext = decrypt(compact, payload["key"])
        if header.get("cty") != "application/fhir+json":
            fail(f"file {index}'s cty is {header.get('cty')}")
        with open(os.path.join(arguments.out, f"file-{index}.json"), "wb") as out:
            out.write(plaintext)
        if header.get("zip") not in (None, "DEF"):
            fail(f"file {index} is compressed with {header['zip']}")
    summary = {"files": len(files), "kinds": kinds, "status": manifest.get("status"), "flag": payload.get("flag", ""),
               "label": payload.get("label"), "exp": payload.get("exp"), "locations": locations}
    print(json.dumps(summary))


def bundles(directory: str) -> list[dict]:
    paths = sorted(glob.glob(os.path.join(directory, "file-*.json")), key=lambda p: int(p.rsplit("-", 1)[1].split(".")[0]))
    if not paths:
        fail(f"no files in {directory}")
    return [json.load(open(path, encoding="utf-8"), parse_float=decimal.Decimal) for path in paths]


def command_validate(arguments) -> None:
    from fhir.resources.R4B import get_fhir_model_class
    from fhir.resources.R4B.bundle import Bundle
    resources = 0
    for index, bundle in enumerate(bundles(arguments.dir)):
        # The models take floats; the Decimal parse is for comparing values exactly.
        plain = json.loads(json.dumps(bundle, default=float))
        Bundle.model_validate(plain)
        for entry in plain.get("entry", []):
            resource = entry["resource"]
            get_fhir_model_class(resource["resourceType"]).model_validate(resource)
            resources += 1
        if index == 0:
            if plain.get("type") != "document":
                fail("the first file is not a document Bundle")
            if plain["entry"][0]["resource"]["resourceType"] != "Composition":
                fail("the document's first entry is not its Composition")
            if not plain["entry"][0]["resource"].get("text", {}).get("div"):
                fail("the Composition has no narrative")
    print(json.dumps({"validated": resources}))


def coding(concept: dict, system: str):
    for item in (concept or {}).get("coding", []):
        if item.get("system") == system:
            return item.get("code")
    return None


METRIC = "urn:efferent:metric"
DAILY = "urn:efferent:daily"


def command_compare(arguments) -> None:
    daily = json.load(open(arguments.daily, encoding="utf-8"), parse_float=decimal.Decimal)
    columns = daily["columns"]
    rows = {row[0]: row for row in daily["rows"]}
    units = daily.get("units", {})

    def expected(day: str, column: str):
        row = rows.get(day)
        if row is None or column not in columns:
            return None
        return row[columns.index(column)]

    def scaled(metric: str, value):
        # documents/sharing.md: a fraction (Efferent's unit "%") is shared in UCUM's %, its point moved two places.
        return value * 100 if units.get(metric) == "%" else value

    checked = 0
    document = bundles(arguments.dir)[0]
    for entry in document["entry"]:
        resource = entry["resource"]
        if resource["resourceType"] != "Observation":
            continue
        code = coding(resource.get("code"), "http://loinc.org")
        metric = coding(resource.get("code"), METRIC)
        day = resource.get("effectiveDateTime")
        if code == "85354-9":
            for component in resource.get("component", []):
                part = coding(component["code"], METRIC)
                column = part + ".mean" if part else coding(component["code"], DAILY)
                want = expected(day, column)
                got = component["valueQuantity"]["value"]
                if want is None or decimal.Decimal(str(want)) != got:
                    fail(f"blood pressure on {day}: {column} is {got}, efferent daily says {want}")
                checked += 1
            continue
        if metric in (None, "sleep", "workout"):
            continue
        value = resource["valueQuantity"]["value"]
        column = metric if metric in columns else metric + ".mean"
        want = expected(day, column)
        if want is None or scaled(metric, decimal.Decimal(str(want))) != value:
            fail(f"{metric} on {day}: the Observation says {value}, efferent daily's {column} says {want}")
        checked += 1
        for component in resource.get("component", []):
            column = coding(component["code"], DAILY)
            want = expected(day, column)
            got = component["valueQuantity"]["value"]
            if want is None or scaled(metric, decimal.Decimal(str(want))) != got:
                fail(f"{column} on {day}: the component says {got}, efferent daily says {want}")
            checked += 1
    if arguments.sleep:
        nights = {row["night"]: row for row in json.load(open(arguments.sleep, encoding="utf-8"), parse_float=decimal.Decimal)["rows"]}
        for entry in document["entry"]:
            resource = entry["resource"]
            if coding(resource.get("code"), METRIC) != "sleep":
                continue
            start = resource["effectivePeriod"]["start"]
            night = next((row for row in nights.values() if row["start"] == start), None)
            # A night with only "in bed" has no asleep figure: no value, and the reason it is absent.
            said = resource["valueQuantity"]["value"] if "valueQuantity" in resource else None
            if night is None or night["asleepHours"] != said or (said is None and "dataAbsentReason" not in resource):
                fail(f"the night starting {start}: the Observation says {said}, efferent sleep says {night and night['asleepHours']}")
            checked += 1
    if arguments.workouts:
        answer = json.load(open(arguments.workouts, encoding="utf-8"), parse_float=decimal.Decimal)
        names = answer["columns"]
        listed = {row[names.index("start")]: dict(zip(names, row)) for row in answer["rows"]}
        for entry in document["entry"]:
            resource = entry["resource"]
            if coding(resource.get("code"), METRIC) != "workout":
                continue
            row = listed.get(resource["effectivePeriod"]["start"])
            if row is None:
                fail(f"a workout starting {resource['effectivePeriod']['start']} is not in efferent workouts")
            for component in resource.get("component", []):
                column = coding(component["code"], "urn:efferent:workout")
                if row.get(column) != component["valueQuantity"]["value"]:
                    fail(f"the workout at {row['start']}: {column} is {component['valueQuantity']['value']}, efferent workouts says {row.get(column)}")
                checked += 1
    if checked == 0:
        fail("no Observation was compared")
    print(json.dumps({"compared": checked}))


def command_countdown(arguments) -> None:
    payload = payload_of(arguments.link)
    if "P" not in payload.get("flag", ""):
        fail("the link has no P flag")
    status, answer = post_manifest(payload, {"recipient": "interop countdown"})
    if status != 401 or answer.get("remainingAttempts") != 10:
        fail(f"a manifest request without the passcode answered {status} {answer}")
    for attempt in range(1, 11):
        status, answer = post_manifest(payload, {"recipient": "interop countdown", "passcode": f"wrong-{attempt}"})
        if status != 401 or answer.get("remainingAttempts") != 10 - attempt:
            fail(f"wrong passcode {attempt} answered {status} {answer}")
    status, answer = post_manifest(payload, {"recipient": "interop countdown", "passcode": arguments.passcode})
    if status != 404:
        fail(f"the 11th try, with the right passcode, answered {status} {answer}: the link should be locked")
    print(json.dumps({"countdown": list(range(9, -1, -1)), "eleventh": status, "error": answer.get("error")}))


def command_gone(arguments) -> None:
    payload = payload_of(arguments.link)
    status, answer = post_manifest(payload, {"recipient": "interop, ignoring exp"})
    if status != 404:
        fail(f"the manifest of an ended link answered {status} {answer}")
    if arguments.location:
        try:
            urllib.request.urlopen(arguments.location, timeout=30)
            fail("a file's location still answered after its link ended")
        except urllib.error.HTTPError as error:
            if error.code != 404:
                fail(f"a file's location answered {error.code} after its link ended")
    print(json.dumps({"manifest": status, "error": answer.get("error")}))


def command_raw(arguments) -> None:
    expected = []
    for line in open(arguments.samples, encoding="utf-8"):
        if line.strip():
            row = json.loads(line, parse_float=decimal.Decimal)
            expected.append((row["start"], row["value"]))
    got = []
    for bundle in bundles(arguments.dir)[1:]:
        for entry in bundle["entry"]:
            resource = entry["resource"]
            if resource["resourceType"] != "Observation" or coding(resource.get("code"), METRIC) != arguments.metric:
                continue
            start = resource.get("effectiveDateTime") or resource["effectivePeriod"]["start"]
            got.append((start, resource["valueQuantity"]["value"]))
    if sorted(expected) != sorted(got):
        fail(f"{len(got)} raw {arguments.metric} readings against efferent samples' {len(expected)}; "
             f"first difference near {next((a, b) for a, b in zip(sorted(got) + [None], sorted(expected) + [None]) if a != b)}")
    print(json.dumps({"raw": len(got)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    opening = commands.add_parser("open")
    opening.add_argument("link")
    opening.add_argument("--out", required=True)
    opening.add_argument("--recipient", default="interop check (jwcrypto)")
    opening.add_argument("--passcode")
    opening.add_argument("--embedded-max", type=int)
    validating = commands.add_parser("validate")
    validating.add_argument("dir")
    comparing = commands.add_parser("compare")
    comparing.add_argument("dir")
    comparing.add_argument("daily")
    comparing.add_argument("--sleep")
    comparing.add_argument("--workouts")
    counting = commands.add_parser("countdown")
    counting.add_argument("link")
    counting.add_argument("--passcode", required=True)
    ending = commands.add_parser("gone")
    ending.add_argument("link")
    ending.add_argument("--location")
    raw = commands.add_parser("raw")
    raw.add_argument("dir")
    raw.add_argument("samples")
    raw.add_argument("metric")
    arguments = parser.parse_args()
    {"open": command_open, "validate": command_validate, "compare": command_compare, "countdown": command_countdown,
     "gone": command_gone, "raw": command_raw}[arguments.command](arguments)


if __name__ == "__main__":
    main()
