"""Known answers and refusals for efferent_reader (section numbers from efferent-protocol.md)."""

import hashlib
import http.server
import json
import os
import pathlib
import subprocess
import sys
import threading
import time

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import efferent_reader as er  # noqa: E402

# RFC 9180's published vectors, the copy the Swift tests read too.
VECTORS = HERE.parents[1] / "Tests/EfferentCoreTests/Fixtures/rfc9180-x25519-sha256-chacha20poly1305.json"
PRIV_0120 = bytes(range(1, 33))
# The interop fixture reading key (§13), committed upstream on purpose.
FIXTURE_PKCS8 = "MC4CAQAwBQYDK2VuBCIEIB-BUIZTXqbNIR0MFd8VXE2BPlP2ohi2pcpCd_FksGD6"
FIXTURE_PUBLIC = "YAvPaXBsGTnyrLF6FcE1oI2EjHmIeKAg07zRX51nI2w"
EXAMPLE_BODY = (
    b'{"series":[{"bucket":"hour","d":[3600],"k":"agg","metric":"steps","t":[0],'
    b'"t0":1786093200,"unit":"count","value":[842]},{"d":[0,0],"k":"hk","metric":"heartRate",'
    b'"source":"Apple Watch","t":[0,42],"t0":1786093200,"unit":"count/min","value":[60,61]},'
    b'{"d":[1800,3600],"k":"hk","metric":"sleep","source":"Apple Watch",'
    b'"stage":["asleepDeep","asleepCore"],"t":[0,0],"t0":1786053600}],"v":2}')
EDITOR_PRIV = bytes(range(33, 65))


def fixture_keys():
    private = er.unb64url(FIXTURE_PKCS8)[-32:]
    return private, er.unb64url(FIXTURE_PUBLIC)


def reading_field(private, public):
    return f"efferent-reading-v1.{er.b64url(private)}.{er.b64url(public)}"


def editor_field(private=EDITOR_PRIV):
    public = er.Ed25519PrivateKey.from_private_bytes(private).public_key().public_bytes_raw()
    return f"efferent-editor-v1.{er.b64url(private)}.{er.b64url(public)}"


def handoff_text(url=None, reading=None, editor=None, private=None):
    private = private or fixture_keys()[0]
    public = er._x25519_public(private)
    url = url or f"https://archive.example.org/mcp/b/{er.bucket_id(public)}"
    reading = reading or reading_field(private, public)
    text = (f"Instruction:\nConnect the MCP, call setup_guide first.\n\nMCP:\n{url}\n\n"
            f"Reading key:\n{reading}")
    if editor:
        text += f"\n\nEditor key:\n{editor}"
    return text + "\n"


# ---------------------------------------------------------------- HPKE

def test_self_test_embedded():
    er.self_test()


def test_self_test_against_vector_file():
    entry = next(v for v in json.loads(VECTORS.read_text()) if v["mode"] == 0)
    first = entry["encryptions"][0]
    vector = {k: entry[k] for k in ("info", "skEm", "skRm", "pkRm", "enc", "shared_secret",
                                    "key", "base_nonce", "exporter_secret")}
    vector.update(pt=first["pt"], aad=first["aad"], ct=first["ct"],
                  exports=[(x["exporter_context"], x["L"], x["exported_value"])
                           for x in entry["exports"]])
    er.self_test(vector)
    ks = er.hpke_key_schedule(bytes.fromhex(entry["shared_secret"]), bytes.fromhex(entry["info"]))
    assert ks["key_schedule_context"].hex() == entry["key_schedule_context"]
    assert ks["secret"].hex() == entry["secret"]


def test_self_test_cli():
    out = subprocess.run([sys.executable, str(HERE.parent / "efferent_reader.py"), "--self-test"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout == "ok\n"


def test_seal_open_round_trip_and_tamper():
    private, public = fixture_keys()
    bucket = er.bucket_id(public)
    sealed = er.seal_day(EXAMPLE_BODY, public, bucket, "2026-08-07")
    assert sealed[0] == 2 and len(sealed) > 49
    assert er.open_day(sealed, private, bucket, "2026-08-07") == EXAMPLE_BODY
    for i in (1, 40, len(sealed) - 1):
        bad = bytearray(sealed)
        bad[i] ^= 1
        with pytest.raises(er.EfferentError):
            er.open_day(bytes(bad), private, bucket, "2026-08-07")
    with pytest.raises(er.EfferentError):  # the AAD binds the day
        er.open_day(sealed, private, bucket, "2026-08-08")
    with pytest.raises(er.EfferentError, match="got 1"):
        er.open_day(b"\x01" + sealed[1:], private, bucket, "2026-08-07")
    with pytest.raises(er.EfferentError, match="no version byte"):
        er.open_day(b"", private, bucket, "2026-08-07")


def test_aads():
    assert er.day_aad("vkup75ydwufsff7u63qtkchxeq", "2026-08-07") == \
        b"efferent/v1\nvkup75ydwufsff7u63qtkchxeq\n2026-08-07"
    assert er.edit_aad("abcdefghijklmnopqrstuvwxyz") == b"efferent/v1 edit\nabcdefghijklmnopqrstuvwxyz"


# ---------------------------------------------------------------- keys (§1, §7, §13)

def test_read_key_vector():
    assert er.derive_read_seed(PRIV_0120).hex() == \
        "39e7d153a3e583b4036f36b661bf06e3714d6c29d969c347d2bbe45e6bdc87be"
    assert er.derive_read_key(PRIV_0120).public_key().public_bytes_raw().hex() == \
        "434172a1e4cbfe85eb1097bdc785a22e5a293a0c05ddee75ff146822f9ee53b5"


def test_read_signature_vector():
    key = er.derive_read_key(PRIV_0120)
    target = "/b/abucketidmadeupforthistest/d?from=2026-08-01&to=2026-08-31"
    assert er.sign_read(key, "abucketidmadeupforthistest", target, 1700000000).hex() == (
        "babf8af472d036155a4cbb7bb5385cb0dc360aa18e27c825660609b5d28937f9"
        "502366c466fbfb9fc724e8d0d3615e47f77b6f9fe62c312b80f3a8267d037900")


def test_base32_and_buckets():
    assert er.base32_lower(b"foobar") == "mzxw6ytboi"
    assert er._x25519_public(PRIV_0120).hex() == \
        "07a37cbc142093c8b755dc1b10e86cb426374ad16aa853ed0bdfc0b2b86d1c7c"
    assert er.bucket_id(er._x25519_public(PRIV_0120)) == "vkup75ydwufsff7u63qtkchxeq"
    private, public = fixture_keys()
    assert er._x25519_public(private) == public
    assert er.bucket_id(public) == "4kaszsqxorn5h6jpgqq25zomnv"
    assert er.b64url(hashlib.sha256(b"").digest()) == "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU"


def test_derive_cli(tmp_path):
    path = tmp_path / "handoff"
    path.write_text(handoff_text(private=PRIV_0120))
    os.chmod(path, 0o600)
    out = subprocess.run([sys.executable, str(HERE.parent / "efferent_reader.py"), "--derive",
                          "--handoff", str(path), "--bucket", "abucketidmadeupforthistest",
                          "--target", "/b/abucketidmadeupforthistest/d?from=2026-08-01&to=2026-08-31",
                          "--ts", "1700000000"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["bucket"] == "vkup75ydwufsff7u63qtkchxeq"
    assert er.unb64url(answer["readPublic"]).hex().startswith("434172a1")
    assert answer["signature"].startswith("babf8af472d03615")


# ---------------------------------------------------------------- handoff (§1.5)

def test_handoff_parses():
    text = handoff_text(editor=editor_field())
    h = er.Handoff.parse(text)
    assert h.endpoint == "https://archive.example.org"
    assert h.bucket == "4kaszsqxorn5h6jpgqq25zomnv"
    assert h.editor_private == EDITOR_PRIV
    prefixed = handoff_text(url="http://host:8080/base/mcp/b/4kaszsqxorn5h6jpgqq25zomnv")
    assert er.Handoff.parse(prefixed).endpoint == "http://host:8080/base"
    assert er.Handoff.parse(text.replace("\n", "\r\n")).bucket == h.bucket
    assert er.Handoff.parse(handoff_text()).editor_private is None


@pytest.mark.parametrize("url, message", [
    ("ftp://h/mcp/b/4kaszsqxorn5h6jpgqq25zomnv", "http or https"),
    ("https://h/mcp/b/4kaszsqxorn5h6jpgqq25zomnv?x=1", "no query"),
    ("https://h/mcp/b/4kaszsqxorn5h6jpgqq25zomnv#f", "no fragment"),
    ("https://h/mcp/b/4KASZSQXORN5H6JPGQQ25ZOMNV", "/mcp/b/"),
    ("https://h/mcp/4kaszsqxorn5h6jpgqq25zomnv", "/mcp/b/"),
])
def test_handoff_url_refusals(url, message):
    with pytest.raises(er.EfferentError, match=message):
        er.Handoff.parse(handoff_text(url=url))


def test_handoff_with_a_rotated_key_parses_and_says_so():
    # After a key rotation the archive keeps its bucket and the reading key no longer derives it;
    # the service, not the parser, proves such a key (see test_cli_old_and_rotated_handoffs).
    rotated = er.Handoff.parse(handoff_text(url="https://h/mcp/b/vkup75ydwufsff7u63qtkchxeq"))
    assert rotated.bucket == "vkup75ydwufsff7u63qtkchxeq" and not rotated.derives_bucket
    assert er.Handoff.parse(handoff_text()).derives_bucket


def test_handoff_key_refusals():
    private, public = fixture_keys()
    other = er._x25519_public(PRIV_0120)
    cases = [
        (reading_field(private, other), "halves of the reading key do not match"),
        (reading_field(private, public).replace("efferent-reading-v1", "efferent-reading-v2"),
         "not of the form"),
        (reading_field(private, public) + ".x", "not of the form"),
        (f"efferent-reading-v1.{er.b64url(private[:31])}.{er.b64url(public)}", "32 bytes"),
        (f"efferent-reading-v1.{er.b64url(private)}=.{er.b64url(public)}", "base64url"),
    ]
    for reading, message in cases:
        with pytest.raises(er.EfferentError, match=message):
            er.Handoff.parse(handoff_text(reading=reading))
    bad_editor = editor_field().rsplit(".", 1)[0] + "." + er.b64url(public)
    with pytest.raises(er.EfferentError, match="editor key do not match"):
        er.Handoff.parse(handoff_text(editor=bad_editor))
    with pytest.raises(er.EfferentError, match="no MCP"):
        er.Handoff.parse("Reading key:\n" + reading_field(private, public))


def test_handoff_file_permissions(tmp_path):
    path = tmp_path / "handoff"
    path.write_text(handoff_text())
    for mode in (0o640, 0o604, 0o644):
        os.chmod(path, mode)
        with pytest.raises(er.EfferentError, match="chmod 600"):
            er.Handoff.load(str(path))
    os.chmod(path, 0o600)
    assert er.Handoff.load(str(path)).bucket == "4kaszsqxorn5h6jpgqq25zomnv"


# ---------------------------------------------------------------- day bodies (§3, A.5)

def test_empty_day():
    assert er.encode_day([]) == b'{"series":[],"v":2}'
    assert er.encode_day([], tz="Europe/Berlin") == b'{"series":[],"tz":"Europe/Berlin","v":2}'
    assert er.expand_day(b'{"series":[],"v":2}') == []
    assert er.expand_day(b"  \n") == []


def test_example_body_digest_and_reencode():
    assert hashlib.sha256(EXAMPLE_BODY).hexdigest() == \
        "c1038de7b39f1b543dc35d86db64786c60c81bd295a1760ca562851f55d46e9f"
    events = er.expand_day(EXAMPLE_BODY)
    assert er.encode_day(list(reversed(events))) == EXAMPLE_BODY
    with_tz = er.encode_day(events, tz="Europe/Berlin")
    assert b'],"tz":"Europe/Berlin","v":2}' in with_tz
    assert er.expand_day(with_tz) == events


def test_expansion_vectors():
    body = json.dumps({"series": [
        {"bucket": "hour", "d": [3600], "k": "agg", "metric": "steps", "t": [0],
         "t0": 1754557200, "unit": "count", "value": [842]},
        {"d": [1800, 3600], "k": "hk", "metric": "sleep", "stage": ["asleepCore", None],
         "t": [0, 0], "t0": 1754517600}], "v": 2}, separators=(",", ":"))
    events = er.expand_day(body.encode())
    assert events[0] == {"v": 1, "id": "agg:steps:2025-08-07T09:00:00Z:h", "metric": "steps",
                         "bucket": "hour", "unit": "count", "value": 842,
                         "start": "2025-08-07T09:00:00Z", "end": "2025-08-07T10:00:00Z"}
    assert [e["id"] for e in events[1:]] == ["hk:sleep:2025-08-06T22:00:00Z#1",
                                            "hk:sleep:2025-08-06T22:00:00Z#2"]
    assert "stage" not in events[2]  # a null in a column is a gap, not a field
    assert er.event_line(events[0], "2026-08-07") == (
        '{"bucket":"hour","day":"2026-08-07","end":"2025-08-07T10:00:00Z",'
        '"id":"agg:steps:2025-08-07T09:00:00Z:h","metric":"steps",'
        '"start":"2025-08-07T09:00:00Z","unit":"count","v":1,"value":842}')


def test_numbering_spans_the_whole_day():
    body = {"series": [
        {"d": [0], "k": "hk", "metric": "heartRate", "source": "A", "t": [0], "t0": 100},
        {"d": [0], "k": "hk", "metric": "heartRate", "source": "B", "t": [0], "t0": 100},
        {"d": [0], "k": "hk", "metric": "heartRate", "source": "C", "t": [0], "t0": 101}],
        "v": 2}
    ids = [e["id"] for e in er.expand_day(json.dumps(body).encode())]
    assert ids == ["hk:heartRate:1970-01-01T00:01:40Z#1", "hk:heartRate:1970-01-01T00:01:40Z#2",
                   "hk:heartRate:1970-01-01T00:01:41Z"]


def test_layout_refusal_and_pass_through():
    with pytest.raises(er.EfferentError, match="layout 3, and this reader speaks 2"):
        er.expand_day(b'{"series":[],"v":3}')
    lines = b'{"id":"a","v":1}\n{"id":"b","v":1,"value":2}\n'
    assert er.expand_day(lines) == [{"id": "a", "v": 1}, {"id": "b", "v": 1, "value": 2}]
    with pytest.raises(er.EfferentError):
        er.expand_day(b'{"series":[{"k":"hk","metric":"x","t0":0,"t":[0,1],"d":[0]}],"v":2}')
    with pytest.raises(er.EfferentError, match="outside the years"):
        er.expand_day(b'{"series":[{"k":"hk","metric":"x","t0":-99999999999999,"t":[0],'
                      b'"d":[0]}],"v":2}')
    with pytest.raises(er.EfferentError, match="whole seconds"):
        er.expand_day(b'{"series":[{"k":"hk","metric":"x","t0":0,"t":[0.5],"d":[0]}],"v":2}')


def test_canonical_ordering():
    events = [
        {"metric": "heartRate", "source": "iPhone 15", "start": 10, "end": 10, "value": 1},
        {"metric": "heartRate", "source": "iPhone", "start": 10, "end": 10, "value": 1},
        {"metric": "heartRate", "start": 10, "end": 10, "value": 1.5},
        {"metric": "heartRate", "start": 5, "end": 7, "value": 2.0},
        {"metric": "heartRate", "start": 5, "end": 7},
        {"metric": "steps", "bucket": "day", "unit": "count", "start": 0, "end": 86400,
         "value": 100.0},
        {"metric": "workout", "start": 3, "end": 9, "activity": "37", "duration": 6.0,
         "source": "Ünïcode/Watch"},
    ]
    body = er.encode_day(events)
    doc = json.loads(body)
    keys = [(s["k"], s["metric"], s.get("source")) for s in doc["series"]]
    assert keys == [("agg", "steps", None), ("hk", "heartRate", None),
                    ("hk", "heartRate", "iPhone"), ("hk", "heartRate", "iPhone 15"),
                    ("hk", "workout", "Ünïcode/Watch")]
    hr = doc["series"][1]
    assert (hr["t0"], hr["t"], hr["d"], hr["value"]) == (5, [0, 0, 5], [2, 2, 0], [None, 2, 1.5])
    assert b'"value":[100]' in body and "Ünïcode/Watch".encode() in body
    assert b'"activity":["37"],"bucket"' not in body and b'"duration":[6]' in body


@pytest.mark.parametrize("value, text", [
    (842.0, "842"), (-0.0, "0"), (1e17, "100000000000000000"), (9.1e18, "9100000000000000000"),
    (9.3e18, "9.3e+18"), (1e19, "1e+19"), (0.5, "0.5"),
    (9007199254740993, "9007199254740992"), (10**20, "1e+20"), (-842, "-842"),
])
def test_integral_numbers_are_integers_within_int64(value, text):
    """The same cut as the Swift writer (A.5): digits below 9.2e18, shortest text beyond."""
    assert er.canonical_json(er.canonical_number(value, "value")).decode() == text


def test_encoder_refusals():
    with pytest.raises(er.EfferentError, match="no column for"):
        er.encode_day([{"metric": "x", "start": 0, "end": 0, "colour": "red"}])
    with pytest.raises(er.EfferentError, match="finite"):
        er.encode_day([{"metric": "x", "start": 0, "end": 0, "value": float("nan")}])


# ---------------------------------------------------------------- frames (§5.1)

def test_frame_round_trip():
    days = [("2026-08-07", b"\x02abc"), ("2026-08-08", b"\x02" * 300)]
    frame = er.pack_frame(days)
    assert frame[:14] == b"2026-08-07\x00\x00\x00\x04"
    assert er.unpack_frame(frame) == days
    assert er.unpack_frame(b"", allow_empty=True) == []


@pytest.mark.parametrize("frame, message", [
    (b"", "at least one day"),
    (b"2026-08-07\x00\x00", "12 bytes left over where a day was expected"),
    (b"2026-08-07\x00\x00\x00\x05abc", "2026-08-07 says 5 bytes and only 3 are there"),
    (b"2026-08-07\x00\x00\x00\x00", "2026-08-07 carries no body"),
    (b"2026-08-08\x00\x00\x00\x01a2026-08-07\x00\x00\x00\x01b",
     "days must ascend without repeats: 2026-08-08 then 2026-08-07"),
    (b"2026-08-07\x00\x00\x00\x01a2026-08-07\x00\x00\x00\x01b", "without repeats"),
    (b"2026-02-30\x00\x00\x00\x01a", "not a real calendar date"),
    (b"2026-08-07\x00\x00\x00\x01ab", "1 bytes left over"),
])
def test_frame_refusals(frame, message):
    with pytest.raises(er.EfferentError, match=message):
        er.unpack_frame(frame)


def test_frame_pack_refusals():
    with pytest.raises(er.EfferentError):
        er.pack_frame([])
    with pytest.raises(er.EfferentError, match="carries no body"):
        er.pack_frame([("2026-08-07", b"")])
    with pytest.raises(er.EfferentError, match="ascend"):
        er.pack_frame([("2026-08-08", b"a"), ("2026-08-07", b"b")])
    with pytest.raises(er.EfferentError, match="at most 31"):
        er.pack_frame([(f"2026-01-{d:02d}", b"a") for d in range(1, 32)]
                      + [("2026-02-01", b"a")])


# ---------------------------------------------------------------- edits (§8)

def test_edit_items_and_pack():
    now = 1_800_000_000
    items = er.validate_items([
        {"stage": "asleepCore", "end": 1_700_003_600, "start": 1_700_000_000, "metric": "sleep",
         "id": "agent:sleep:1", "op": "put"},
        {"unit": "kcal", "value": 500.0, "metric": "dietaryEnergy", "op": "put",
         "id": "agent:meal:2026-09-07:lunch", "start": 1_700_000_000, "end": 1_700_000_000},
        {"id": "agent:old", "op": "delete"}], now=now)
    plain = er.inflate_raw(er.pack_edit(items))
    assert plain == (
        b'{"v":1,"items":[{"op":"put","id":"agent:sleep:1","metric":"sleep","start":1700000000,'
        b'"end":1700003600,"stage":"asleepCore"},{"op":"put","id":"agent:meal:2026-09-07:lunch",'
        b'"metric":"dietaryEnergy","start":1700000000,"end":1700000000,"value":500,"unit":"kcal"},'
        b'{"op":"delete","id":"agent:old"}]}')
    assert er.edit_message("abcdefghijklmnopqrstuvwxyz", 1700000000, b"hello") == (
        b"efferent/v1 edit\nabcdefghijklmnopqrstuvwxyz\n1700000000\n"
        b"LPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ")


@pytest.mark.parametrize("item", [
    {"op": "put", "id": "a", "metric": "steps", "start": 0, "end": 0, "value": 1, "unit": "count"},
    {"op": "put", "id": "a", "metric": "sleep", "start": 0, "end": 90000, "stage": "asleepCore"},
    {"op": "put", "id": "a", "metric": "sleep", "start": 0, "end": 1, "stage": "dozing"},
    {"op": "put", "id": "a", "metric": "bodyMass", "start": 0, "end": 1, "value": 70, "unit": "lb"},
    {"op": "put", "id": "a", "metric": "bodyMass", "start": 0, "end": 1, "value": -1, "unit": "kg"},
    {"op": "put", "id": "a", "metric": "bodyMass", "start": 5, "end": 1, "value": 1, "unit": "kg"},
    {"op": "put", "id": "a", "metric": "bodyMass", "start": 0, "end": 2 * 10**9, "value": 1,
     "unit": "kg"},
    {"op": "put", "id": "a b", "metric": "bodyMass", "start": 0, "end": 1, "value": 1, "unit": "kg"},
    {"op": "delete", "id": "a", "metric": "bodyMass"},
    {"op": "put", "id": "a", "metric": "bodyMass", "start": 0, "end": 1, "value": 1, "unit": "kg",
     "note": "x"},
])
def test_edit_refusals(item):
    with pytest.raises(er.EfferentError):
        er.validate_items([item], now=1_800_000_000)


# ---------------------------------------------------------------- the service client against a fake

class FakeArchive(http.server.BaseHTTPRequestHandler):
    """Listing pages of 2 and range frames of 2 days; checks every read signature."""
    days: dict = {}
    bucket = ""
    read_public = b""
    edits: list = []

    def log_message(self, *args):
        pass

    def _answer(self, status, body, content_type="application/json", headers=()):
        self.send_response(status)
        self.send_header("content-type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _signed(self):
        key = er.Ed25519PublicKey.from_public_bytes(
            er.unb64url(self.headers["x-efferent-reader"]))
        try:
            key.verify(er.unb64url(self.headers["x-efferent-signature"]),
                       er.read_message(self.bucket, self.path,
                                       int(self.headers["x-efferent-timestamp"])))
        except er.InvalidSignature:
            return False
        return key.public_bytes_raw() == self.read_public

    def do_GET(self):
        import urllib.parse as up
        if not self._signed():
            return self._answer(403, b'{"error":"signature does not match the request"}')
        url = up.urlsplit(self.path)
        q = dict(up.parse_qsl(url.query))
        names = sorted(d for d in self.days if q.get("from", "") <= d <= q.get("to", "9999")
                       and d > q.get("after", ""))
        if url.path == f"/b/{self.bucket}/days":
            page = names[:2]
            entries = [{"day": d, "bytes": len(self.days[d]), "uploaded": "2026-08-09T00:00:00.000Z"}
                       for d in page]
            more = page[-1] if len(names) > 2 else None
            return self._answer(200, json.dumps({"days": entries, "next": more}).encode())
        if url.path == f"/b/{self.bucket}/d":
            page = names[:2]
            headers = [("x-efferent-next", page[-1])] if len(names) > 2 else []
            frame = er.pack_frame([(d, self.days[d]) for d in page]) if page else b""
            return self._answer(200, frame, "application/octet-stream", headers)
        day = url.path.rsplit("/", 1)[-1]
        if day in self.days:
            return self._answer(200, self.days[day], "application/octet-stream")
        return self._answer(404, b'{"error":"no such day"}')

    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"]))
        self.edits.append((dict(self.headers), body))
        self._answer(201, b'{"name":"1757228400000-abcdefgh","at":"x","bytes":%d}' % len(body))


@pytest.fixture
def archive(tmp_path):
    private, public = fixture_keys()
    bucket = er.bucket_id(public)
    FakeArchive.bucket = bucket
    FakeArchive.read_public = er.derive_read_key(private).public_key().public_bytes_raw()
    FakeArchive.edits = []
    bodies = {}
    for n, day in enumerate(["2026-08-05", "2026-08-06", "2026-08-07", "2026-08-08", "2026-08-09"]):
        bodies[day] = er.encode_day([{"metric": "steps", "bucket": "day", "unit": "count",
                                      "start": 1786000000 + n * 86400,
                                      "end": 1786086400 + n * 86400, "value": 1000 + n}])
    FakeArchive.days = {d: er.seal_day(b, public, bucket, d) for d, b in bodies.items()}
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeArchive)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    path = tmp_path / "handoff"
    url = f"http://127.0.0.1:{server.server_address[1]}/mcp/b/{bucket}"
    path.write_text(handoff_text(url=url, editor=editor_field()))
    os.chmod(path, 0o600)
    yield str(path), bodies
    server.shutdown()


def run_cli(*args):
    return subprocess.run([sys.executable, str(HERE.parent / "efferent_reader.py"), *args],
                          capture_output=True, text=True, timeout=60)


def test_cli_old_and_rotated_handoffs(archive, tmp_path):
    # The archive's owner rotated the keys: the service takes only the new read key. The old
    # handoff (whose key derives the bucket) is refused with a sentence saying it was taken back;
    # the new one (whose key does not derive the bucket) reads every day.
    path, bodies = archive
    old = run_cli("--handoff", path, "--list")
    assert old.returncode == 0, old.stderr
    new_private = bytes(range(100, 132))
    new_public = er._x25519_public(new_private)
    FakeArchive.read_public = er.derive_read_key(new_private).public_key().public_bytes_raw()
    FakeArchive.days = {d: er.seal_day(b, new_public, FakeArchive.bucket, d) for d, b in bodies.items()}
    refused = run_cli("--handoff", path, "--list")
    assert refused.returncode != 0 and "owner rotated its keys" in refused.stderr, refused.stderr
    url = er.handoff_field(open(path).read(), "MCP")
    rotated = tmp_path / "rotated"
    rotated.write_text(handoff_text(url=url, reading=reading_field(new_private, new_public), private=new_private))
    os.chmod(rotated, 0o600)
    out = run_cli("--handoff", str(rotated), "--from", "2026-08-05", "--to", "2026-08-09")
    assert out.returncode == 0, out.stderr
    assert [json.loads(x)["day"] for x in out.stdout.splitlines()] == sorted(bodies)
    # A key neither derived nor registered: the sentence names both possibilities.
    stray_private = bytes(range(140, 172))
    stray = tmp_path / "stray"
    stray.write_text(handoff_text(url=url, reading=reading_field(stray_private, er._x25519_public(stray_private)), private=stray_private))
    os.chmod(stray, 0o600)
    out = run_cli("--handoff", str(stray), "--list")
    assert out.returncode != 0 and "keys from two archives" in out.stderr, out.stderr


def test_cli_list_range_day(archive):
    path, bodies = archive
    out = run_cli("--handoff", path, "--list")
    assert out.returncode == 0, out.stderr
    listed = [json.loads(line) for line in out.stdout.splitlines()]
    assert [e["day"] for e in listed] == sorted(bodies)
    assert set(listed[0]) == {"bytes", "day", "uploaded"}
    out = run_cli("--handoff", path, "--from", "2026-08-06", "--to", "2026-08-09")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert [json.loads(x)["day"] for x in lines] == ["2026-08-06", "2026-08-07", "2026-08-08",
                                                     "2026-08-09"]
    assert lines[0] == json.dumps(dict(er.expand_day(bodies["2026-08-06"])[0], day="2026-08-06"),
                                  sort_keys=True, separators=(",", ":"))
    out = run_cli("--handoff", path, "--day", "2026-08-07")
    assert out.returncode == 0 and json.loads(out.stdout)["value"] == 1002
    out = run_cli("--handoff", path, "--day", "2026-08-01")
    assert out.returncode == 2 and out.stderr == "error: the service answered 404: no such day\n"
    out = run_cli("--handoff", path, "--from", "2026-08-09", "--to", "2026-08-01")
    assert out.returncode == 2 and "--from must not be after --to" in out.stderr
    out = run_cli("--handoff", path, "--from", "2026-08-09")
    assert out.returncode == 2 and "takes both --from and --to" in out.stderr


def test_cli_write(archive, tmp_path):
    path, _ = archive
    items = tmp_path / "items.json"
    items.write_text(json.dumps([{"op": "put", "id": "agent:w", "metric": "bodyMass",
                                  "start": 1700000000, "end": 1700000000, "value": 70.5,
                                  "unit": "kg"}]))
    out = run_cli("--handoff", path, "--write", str(items))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["name"] == "1757228400000-abcdefgh"
    headers, sealed = FakeArchive.edits[0]
    headers = {k.lower(): v for k, v in headers.items()}
    editor = er.Ed25519PublicKey.from_public_bytes(er.unb64url(headers["x-efferent-editor"]))
    editor.verify(er.unb64url(headers["x-efferent-signature"]),
                  er.edit_message(FakeArchive.bucket, int(headers["x-efferent-timestamp"]), sealed))
    private, _ = fixture_keys()
    plain = er.inflate_raw(er.open_sealed(private, er.edit_aad(FakeArchive.bucket), sealed))
    assert json.loads(plain)["items"][0]["value"] == 70.5


def test_cli_encode_seal_open(tmp_path):
    private, public = fixture_keys()
    events = tmp_path / "events.ndjson"
    events.write_text("".join(er.event_line(e) + "\n" for e in er.expand_day(EXAMPLE_BODY)))
    out = subprocess.run([sys.executable, str(HERE.parent / "efferent_reader.py"),
                          "--encode-day", str(events)], capture_output=True)
    assert out.returncode == 0 and out.stdout == EXAMPLE_BODY
    body = tmp_path / "body"
    body.write_bytes(EXAMPLE_BODY)
    out = subprocess.run([sys.executable, str(HERE.parent / "efferent_reader.py"), "--seal-day",
                          str(body), "--bucket", er.bucket_id(public), "--day", "2026-08-07",
                          "--reading-public", FIXTURE_PUBLIC], capture_output=True)
    assert out.returncode == 0
    sealed = tmp_path / "sealed"
    sealed.write_bytes(out.stdout)
    handoff = tmp_path / "handoff"
    handoff.write_text(handoff_text())
    os.chmod(handoff, 0o600)
    out = run_cli("--open-day", str(sealed), "--handoff", str(handoff), "--day", "2026-08-07")
    assert out.returncode == 0, out.stderr
    assert out.stdout == events.read_text()
    out = run_cli("--open-day", str(sealed), "--handoff", str(handoff), "--day", "2026-08-08")
    assert out.returncode == 2 and out.stderr.startswith("error: ")
