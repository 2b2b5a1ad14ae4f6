#!/usr/bin/env python3
"""An independent reader of the Efferent wire protocol, written from the protocol text alone.

One file, standard library plus PyCA `cryptography`. Usable as a script and as a module.
Section numbers (§) refer to the project's `efferent-protocol.md`.
"""

from __future__ import annotations

import argparse
import base64
import datetime as _dt
import hashlib
import hmac as _stdhmac
import json
import math
import os
import re
import struct
import sys
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
import zlib

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

# ---------------------------------------------------------------- protocol constants

HPKE_INFO = b"efferent/v2 hpke"                    # §2.1
SEALED_VERSION = 2                                 # §2.1
READ_KEY_INFO = b"efferent/v1 read"                # §1.3
READING_PREFIX = "efferent-reading-v1"             # §1.1
EDITOR_PREFIX = "efferent-editor-v1"               # §1.4
MAX_ANSWER_BYTES = 16 * 1024 * 1024                # §2.1 readers cap one answer at 16 MiB
MAX_INFLATED_BYTES = 64 * 1024 * 1024              # a guard against a deflate bomb, not protocol
TIMEOUT_SECONDS = 30                               # §10.1
MAX_FRAME_DAYS = 31                                # §5.1 upload frames
MAX_EDIT_ITEMS = 500                               # §8
USER_AGENT = "efferent-interop-reader/1.0"
DEFLATE_LEVEL = 6                                  # A.5
DAY_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
BUCKET_RE = re.compile(r"^[a-z2-7]{26}$")
B64URL_RE = re.compile(r"^[A-Za-z0-9_-]*$")
ITEM_ID_RE = re.compile(r"^[A-Za-z0-9._:-]{1,120}$")  # §8
SLEEP_STAGES = ("inBed", "awake", "asleepUnspecified", "asleepCore", "asleepDeep", "asleepREM")
WRITABLE_UNITS = {"dietaryEnergy": "kcal", "dietaryProtein": "g", "dietaryCarbohydrates": "g",
                  "dietaryFat": "g", "dietaryWater": "mL", "bodyMass": "kg"}  # §8
ITEM_KEYS = ("op", "id", "metric", "start", "end", "value", "unit", "stage")  # §8 pack order
EVENT_FIELDS = ("id", "v", "start", "end", "metric", "bucket", "unit", "source",
                "value", "stage", "activity", "duration")  # §3.1 closed set
SHARED_FIELDS = ("metric", "bucket", "unit", "source")
COLUMNS = ("value", "stage", "activity", "duration")


class EfferentError(Exception):
    """A refusal a person can act on; its text is one sentence and never holds a key."""


# ---------------------------------------------------------------- encodings

def b64url(data: bytes) -> str:
    """RFC 4648 §5 URL alphabet, no padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str, what: str = "value") -> bytes:
    if not isinstance(text, str) or not B64URL_RE.match(text) or len(text) % 4 == 1:
        raise EfferentError(f"the {what} is not base64url")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError):
        raise EfferentError(f"the {what} is not base64url") from None


def base32_lower(data: bytes) -> str:
    """RFC 4648 base32, lower case, no padding (§1.6)."""
    return base64.b32encode(data).decode("ascii").rstrip("=").lower()


def bucket_id(reading_public: bytes) -> str:
    """§1.6: the first 26 characters of base32(SHA-256(raw reading public key))."""
    if len(reading_public) != 32:
        raise EfferentError("a reading public key is 32 bytes")
    return base32_lower(hashlib.sha256(reading_public).digest())[:26]


def check_day(day: str) -> str:
    """A day is `YYYY-MM-DD` naming a real Gregorian date."""
    if not isinstance(day, str) or not DAY_RE.match(day):
        raise EfferentError(f"{day!r} is not a day written YYYY-MM-DD")
    try:
        _dt.date(int(day[:4]), int(day[5:7]), int(day[8:10]))
    except ValueError:
        raise EfferentError(f"{day} is not a real calendar date") from None
    return day


def check_bucket(bucket: str) -> str:
    if not isinstance(bucket, str) or not BUCKET_RE.match(bucket):
        raise EfferentError("a bucket id is 26 characters of a-z and 2-7")
    return bucket


# ---------------------------------------------------------------- HKDF and HPKE (RFC 5869, RFC 9180)

def _hmac_sha256(key: bytes, msg: bytes) -> bytes:
    h = hmac.HMAC(key, hashes.SHA256())
    h.update(msg)
    return h.finalize()


def hkdf_extract(salt: bytes, ikm: bytes) -> bytes:
    """RFC 5869 §2.2; an empty salt is HashLen zero bytes."""
    return _hmac_sha256(salt or b"\x00" * 32, ikm)


def hkdf_expand(prk: bytes, info: bytes, length: int) -> bytes:
    """RFC 5869 §2.3."""
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = _hmac_sha256(prk, block + info + bytes([counter]))
        out += block
        counter += 1
    return out[:length]


KEM_SUITE_ID = b"KEM" + struct.pack(">H", 0x0020)                       # RFC 9180 §4.1
HPKE_SUITE_ID = b"HPKE" + struct.pack(">HHH", 0x0020, 0x0001, 0x0003)   # RFC 9180 §5.1
MODE_BASE = 0x00


def _labeled_extract(suite: bytes, salt: bytes, label: bytes, ikm: bytes) -> bytes:
    return hkdf_extract(salt, b"HPKE-v1" + suite + label + ikm)         # RFC 9180 §4


def _labeled_expand(suite: bytes, prk: bytes, label: bytes, info: bytes, length: int) -> bytes:
    return hkdf_expand(prk, struct.pack(">H", length) + b"HPKE-v1" + suite + label + info, length)


def _x25519(private: bytes, public: bytes) -> bytes:
    try:
        return X25519PrivateKey.from_private_bytes(private).exchange(
            X25519PublicKey.from_public_bytes(public))
    except ValueError:
        raise EfferentError("the key exchange produced no secret (a small-order key)") from None


def _x25519_public(private: bytes) -> bytes:
    return X25519PrivateKey.from_private_bytes(private).public_key().public_bytes_raw()


def _kem_shared_secret(dh: bytes, enc: bytes, pk_r: bytes) -> bytes:
    """DHKEM ExtractAndExpand, RFC 9180 §4.1."""
    eae_prk = _labeled_extract(KEM_SUITE_ID, b"", b"eae_prk", dh)
    return _labeled_expand(KEM_SUITE_ID, eae_prk, b"shared_secret", enc + pk_r, 32)


def hpke_key_schedule(shared_secret: bytes, info: bytes) -> dict:
    """RFC 9180 §5.1 KeySchedule for mode_base (empty psk and psk_id)."""
    psk_id_hash = _labeled_extract(HPKE_SUITE_ID, b"", b"psk_id_hash", b"")
    info_hash = _labeled_extract(HPKE_SUITE_ID, b"", b"info_hash", info)
    context = bytes([MODE_BASE]) + psk_id_hash + info_hash
    secret = _labeled_extract(HPKE_SUITE_ID, shared_secret, b"secret", b"")
    return {
        "key_schedule_context": context,
        "secret": secret,
        "key": _labeled_expand(HPKE_SUITE_ID, secret, b"key", context, 32),
        "base_nonce": _labeled_expand(HPKE_SUITE_ID, secret, b"base_nonce", context, 12),
        "exporter_secret": _labeled_expand(HPKE_SUITE_ID, secret, b"exp", context, 32),
    }


def hpke_export(exporter_secret: bytes, exporter_context: bytes, length: int) -> bytes:
    """RFC 9180 §5.3."""
    return _labeled_expand(HPKE_SUITE_ID, exporter_secret, b"sec", exporter_context, length)


def hpke_seal(pk_r: bytes, info: bytes, aad: bytes, plaintext: bytes,
              sk_e: bytes | None = None) -> tuple[bytes, bytes]:
    """Single-shot base-mode seal (sequence 0, nonce = base_nonce). Returns (enc, ct||tag)."""
    if sk_e is None:
        sk_e = X25519PrivateKey.generate().private_bytes_raw()
    enc = _x25519_public(sk_e)
    shared = _kem_shared_secret(_x25519(sk_e, pk_r), enc, pk_r)
    ks = hpke_key_schedule(shared, info)
    return enc, ChaCha20Poly1305(ks["key"]).encrypt(ks["base_nonce"], plaintext, aad)


def hpke_open(sk_r: bytes, enc: bytes, info: bytes, aad: bytes, ciphertext: bytes) -> bytes:
    """Single-shot base-mode open; raises EfferentError when the tag does not verify."""
    pk_r = _x25519_public(sk_r)
    shared = _kem_shared_secret(_x25519(sk_r, enc), enc, pk_r)
    ks = hpke_key_schedule(shared, info)
    try:
        return ChaCha20Poly1305(ks["key"]).decrypt(ks["base_nonce"], ciphertext, aad)
    except InvalidTag:
        raise EfferentError("the sealed bytes do not open with this reading key "
                            "(wrong key, wrong bucket or day, or damaged bytes)") from None


# RFC 9180 A.2.1 (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305), base mode.
RFC9180_A21 = {
    "info": "4f6465206f6e2061204772656369616e2055726e",
    "skEm": "f4ec9b33b792c372c1d2c2063507b684ef925b8c75a42dbcbf57d63ccd381600",
    "skRm": "8057991eef8f1f1af18f4a9491d16a1ce333f695d4db8e38da75975c4478e0fb",
    "pkRm": "4310ee97d88cc1f088a5576c77ab0cf5c3ac797f3d95139c6c84b5429c59662a",
    "enc": "1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a",
    "shared_secret": "0bbe78490412b4bbea4812666f7916932b828bba79942424abb65244930d69a7",
    "key": "ad2744de8e17f4ebba575b3f5f5a8fa1f69c2a07f6e7500bc60ca6e3e3ec1c91",
    "base_nonce": "5c4d98150661b848853b547f",
    "exporter_secret": "a3b010d4994890e2c6968a36f64470d3c824c8f5029942feb11e7a74b2921922",
    "pt": "4265617574792069732074727574682c20747275746820626561757479",
    "aad": "436f756e742d30",
    "ct": "1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db"
          "21993c62ce81883d2dd1b51a28",
    "exports": [
        ("", 32, "4bbd6243b8bb54cec311fac9df81841b6fd61f56538a775e7c80a9f40160606e"),
        ("00", 32, "8c1df14732580e5501b00f82b10a1647b40713191b7c1240ac80e2b68808ba69"),
        ("54657374436f6e74657874", 32,
         "5acb09211139c43b3090489a9da433e8a30ee7188ba8b0a9a1ccf0c229283e53"),
    ],
}


def self_test(vector: dict | None = None) -> None:
    """Checks the HPKE code against RFC 9180 A.2.1; raises EfferentError on any mismatch."""
    v = vector or RFC9180_A21
    h = bytes.fromhex
    if _x25519_public(h(v["skRm"])) != h(v["pkRm"]):
        raise EfferentError("self-test: the recipient public key is wrong")
    info, aad, pt = h(v["info"]), h(v["aad"]), h(v["pt"])
    enc, ct = hpke_seal(h(v["pkRm"]), info, aad, pt, sk_e=h(v["skEm"]))
    if enc != h(v["enc"]) or ct != h(v["ct"]):
        raise EfferentError("self-test: the first encryption does not match RFC 9180 A.2.1")
    shared = _kem_shared_secret(_x25519(h(v["skEm"]), h(v["pkRm"])), enc, h(v["pkRm"]))
    if shared != h(v["shared_secret"]):
        raise EfferentError("self-test: the shared secret does not match")
    ks = hpke_key_schedule(shared, info)
    if (ks["key"], ks["base_nonce"], ks["exporter_secret"]) != (
            h(v["key"]), h(v["base_nonce"]), h(v["exporter_secret"])):
        raise EfferentError("self-test: the key schedule does not match")
    if hpke_open(h(v["skRm"]), enc, info, aad, ct) != pt:
        raise EfferentError("self-test: opening did not give the plaintext back")
    for context, length, expected in v["exports"]:
        if hpke_export(ks["exporter_secret"], h(context), length) != h(expected):
            raise EfferentError("self-test: an exported secret does not match")


# ---------------------------------------------------------------- sealed envelope v2 (§2.1)

def day_aad(bucket: str, day: str) -> bytes:
    return f"efferent/v1\n{bucket}\n{day}".encode("utf-8")


def edit_aad(bucket: str) -> bytes:
    return f"efferent/v1 edit\n{bucket}".encode("utf-8")


def deflate_raw(data: bytes, level: int = DEFLATE_LEVEL) -> bytes:
    c = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    return c.compress(data) + c.flush()


def inflate_raw(data: bytes, limit: int = MAX_INFLATED_BYTES) -> bytes:
    d = zlib.decompressobj(-zlib.MAX_WBITS)
    try:
        out = d.decompress(data, limit + 1)
    except zlib.error:
        raise EfferentError("the opened bytes are not a raw deflate stream") from None
    if len(out) > limit or d.unconsumed_tail:
        raise EfferentError(f"the opened bytes inflate to more than {limit} bytes")
    if not d.eof:
        raise EfferentError("the raw deflate stream is cut short")
    return out


def seal(reading_public: bytes, aad: bytes, plaintext: bytes, sk_e: bytes | None = None) -> bytes:
    """`0x02 || enc(32) || ct||tag` (§2.1)."""
    enc, ct = hpke_seal(reading_public, HPKE_INFO, aad, plaintext, sk_e)
    return bytes([SEALED_VERSION]) + enc + ct


def open_sealed(reading_private: bytes, aad: bytes, sealed: bytes) -> bytes:
    if not sealed:
        raise EfferentError("sealed blob has no version byte")
    if sealed[0] != SEALED_VERSION:
        raise EfferentError(f"expected HPKE sealed version 2, got {sealed[0]}")
    if len(sealed) < 1 + 32 + 16:
        raise EfferentError("the sealed blob is too short to hold a key and a tag")
    return hpke_open(reading_private, sealed[1:33], HPKE_INFO, aad, sealed[33:])


def seal_day(body: bytes, reading_public: bytes, bucket: str, day: str,
             sk_e: bytes | None = None) -> bytes:
    return seal(reading_public, day_aad(bucket, day), deflate_raw(body), sk_e)


def open_day(sealed: bytes, reading_private: bytes, bucket: str, day: str) -> bytes:
    """Opens one sealed day and returns its uncompressed body."""
    return inflate_raw(open_sealed(reading_private, day_aad(bucket, day), sealed))


# ---------------------------------------------------------------- day bodies (§3)

def iso(seconds: int) -> str:
    """UTC `YYYY-MM-DDTHH:MM:SSZ`, whole seconds."""
    try:
        moment = _dt.datetime(1970, 1, 1) + _dt.timedelta(seconds=seconds)
    except OverflowError:
        raise EfferentError(f"the instant {seconds} lies outside the years 1 to 9999") from None
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment.year >= 1000 else \
        "%04d-%s" % (moment.year, moment.strftime("%m-%dT%H:%M:%SZ"))


def parse_instant(value, what: str) -> int:
    """An ISO-8601 UTC instant or a number of Unix seconds, rounded down to a whole second."""
    if isinstance(value, bool):
        raise EfferentError(f"{what} is not an instant")
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise EfferentError(f"{what} is not a finite number of seconds")
        return math.floor(value)
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            moment = _dt.datetime.fromisoformat(text)
        except ValueError:
            raise EfferentError(f"{what} {value!r} is not an ISO-8601 instant") from None
        if moment.tzinfo is None:
            raise EfferentError(f"{what} {value!r} carries no time zone")
        delta = moment - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
        return delta.days * 86400 + delta.seconds  # microseconds dropped: rounded down
    raise EfferentError(f"{what} is not an instant")


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int_list(series: dict, name: str, where: str) -> list:
    value = series.get(name)
    if not isinstance(value, list) or not all(_is_int(x) for x in value):
        raise EfferentError(f"{where}: `{name}` is not a list of whole seconds")
    return value


def expand_day(body: bytes | str) -> list[dict]:
    """§3.2: a day body (layout 2, or layout-1 lines passed through) as a list of events."""
    if isinstance(body, bytes):
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise EfferentError("the day body is not UTF-8") from None
    else:
        text = body
    text = text.strip()
    if not text:
        return []
    document = None
    if text.startswith("{") and "\n" not in text:
        try:
            document = json.loads(text)
        except ValueError:
            raise EfferentError("the day body is not JSON") from None
    if not (isinstance(document, dict) and "series" in document):
        return _layout1(text)
    if document.get("v") != 2 or isinstance(document.get("v"), bool):
        raise EfferentError(f"this day is written in layout {json.dumps(document.get('v'))}, "
                            "and this reader speaks 2")
    all_series = document["series"]
    if not isinstance(all_series, list):
        raise EfferentError("the day's `series` is not a list")
    events = []
    for n, series in enumerate(all_series):
        events.extend(_expand_series(series, f"series {n}"))
    counts: dict[str, int] = {}
    for event in events:
        counts[event["id"]] = counts.get(event["id"], 0) + 1
    seen: dict[str, int] = {}
    for event in events:
        if counts[event["id"]] > 1:
            seen[event["id"]] = seen.get(event["id"], 0) + 1
            event["id"] = f"{event['id']}#{seen[event['id']]}"
    return events


def _expand_series(series, where: str) -> list[dict]:
    if not isinstance(series, dict):
        raise EfferentError(f"{where} is not an object")
    k, metric = series.get("k"), series.get("metric")
    if not isinstance(k, str) or not k:
        raise EfferentError(f"{where} has no kind `k`")
    if not isinstance(metric, str) or not metric:
        raise EfferentError(f"{where} has no metric")
    for name in ("bucket", "unit", "source"):
        if name in series and series[name] is not None and not isinstance(series[name], str):
            raise EfferentError(f"{where}: `{name}` is not a string")
    t0 = series.get("t0")
    if not _is_int(t0):
        raise EfferentError(f"{where}: `t0` is not a whole number of seconds")
    steps, lengths = _int_list(series, "t", where), _int_list(series, "d", where)
    if len(steps) != len(lengths):
        raise EfferentError(f"{where}: `t` and `d` differ in length")
    columns = {}
    for name in COLUMNS:
        if name in series:
            column = series[name]
            if not isinstance(column, list) or len(column) != len(steps):
                raise EfferentError(f"{where}: column `{name}` does not match `t` in length")
            columns[name] = column
    shared = {name: series[name] for name in SHARED_FIELDS
              if series.get(name) is not None}
    events, moment = [], t0
    for i, step in enumerate(steps):
        moment += step
        start = iso(moment)
        event = {"v": 1, "start": start, "end": iso(moment + lengths[i])}
        event.update(shared)
        for name, column in columns.items():
            if column[i] is not None:
                event[name] = column[i]
        event["id"] = f"{k}:{metric}:{start}" + (f":{shared['bucket'][:1]}"
                                                 if "bucket" in shared else "")
        events.append(event)
    return events


def _layout1(text: str) -> list[dict]:
    """§3.3: layout 1 lines are events already; they pass through unchanged."""
    events = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            raise EfferentError(f"line {number} of the day is not JSON") from None
        if not isinstance(event, dict):
            raise EfferentError(f"line {number} of the day is not an object")
        events.append(event)
    return events


def canonical_number(x, what: str):
    """A.5: an integral number is written as an integer, any other as its shortest text.

    Integers are written up to 9.2e18 in magnitude, as the Swift writer does (Int64's range);
    beyond that Python's shortest text ("1e+19") is also Swift's. An integer too large for a
    Double to hold exactly goes through a Double first, as it does in Swift."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise EfferentError(f"{what} is not a number")
    if isinstance(x, int) and abs(x) > 2**53:
        # Swift reads every JSON number as a Double: a larger integer is written as that Double is.
        x = float(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            raise EfferentError(f"{what} is not a finite number")
        if x.is_integer() and abs(x) < 9.2e18:
            return int(x)
    return x


def canonical_json(value) -> bytes:
    """Compact, sorted keys, `/` not escaped, raw UTF-8 (A.5)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False, allow_nan=False).encode("utf-8")


def _text_key(s: str | None) -> tuple:
    """Absent before any string; strings compared as Swift's `String <` (NFC scalar order)."""
    return (0,) if s is None else (1, unicodedata.normalize("NFC", s))


def _value_key(x) -> tuple:
    if x is None:
        return (0,)
    if isinstance(x, str):
        return (1, 1, unicodedata.normalize("NFC", x))
    return (1, 0, x)


def encode_day(events, tz: str | None = None) -> bytes:
    """Events → the canonical layout-2 body (§3.1, A.4, A.5)."""
    groups: dict[tuple, list] = {}
    for n, event in enumerate(events):
        where = f"event {n + 1}"
        if not isinstance(event, dict):
            raise EfferentError(f"{where} is not an object")
        for name in event:
            if name not in EVENT_FIELDS and name != "day":
                raise EfferentError(f"{where}: no column for `{name}`")
        if "v" in event and event["v"] != 1:
            raise EfferentError(f"{where}: an event is version 1")
        metric = event.get("metric")
        if not isinstance(metric, str) or not metric:
            raise EfferentError(f"{where} has no metric")
        shared = {}
        for name in ("bucket", "unit", "source"):
            value = event.get(name)
            if value is not None and not isinstance(value, str):
                raise EfferentError(f"{where}: `{name}` is not a string")
            shared[name] = value
        k = "agg" if shared["bucket"] is not None else "hk"
        ident = event.get("id")
        if isinstance(ident, str) and ident.split(":", 1)[0] not in (k,):
            raise EfferentError(f"{where}: its id says another kind than its bucket does")
        start = parse_instant(event.get("start"), f"{where}: start")
        end = parse_instant(event.get("end"), f"{where}: end")
        row = {"start": start, "end": end}
        for name in ("value", "duration"):
            if event.get(name) is not None:
                row[name] = canonical_number(event[name], f"{where}: `{name}`")
        for name in ("stage", "activity"):
            if event.get(name) is not None:
                if not isinstance(event[name], str):
                    raise EfferentError(f"{where}: `{name}` is not a string")
                row[name] = event[name]
        key = (k, metric, shared["bucket"], shared["unit"], shared["source"])
        groups.setdefault(key, []).append(row)

    def series_order(key):
        return tuple(_text_key(part) for part in key)

    def row_order(row):
        return (row["start"], row["end"]) + tuple(_value_key(row.get(c)) for c in COLUMNS)

    out = []
    for key in sorted(groups, key=series_order):
        rows = sorted(groups[key], key=row_order)
        k, metric, bucket, unit, source = key
        series = {"k": k, "metric": metric, "t0": rows[0]["start"]}
        for name, value in (("bucket", bucket), ("unit", unit), ("source", source)):
            if value is not None:
                series[name] = value
        previous = rows[0]["start"]
        series["t"], series["d"] = [], []
        for row in rows:
            series["t"].append(row["start"] - previous)
            series["d"].append(row["end"] - row["start"])
            previous = row["start"]
        for name in COLUMNS:
            if any(name in row for row in rows):
                series[name] = [row.get(name) for row in rows]
        out.append(series)
    document = {"series": out, "v": 2}
    if tz is not None:
        document["tz"] = tz
    return canonical_json(document)


def event_line(event: dict, day: str | None = None) -> str:
    """One NDJSON line: keys sorted, compact, raw UTF-8; `day` added in range mode."""
    if day is not None:
        event = dict(event, day=day)
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# ---------------------------------------------------------------- frame (§5.1)

def pack_frame(days, max_days: int | None = MAX_FRAME_DAYS) -> bytes:
    """[(day, sealed bytes), …] → frame. Days must ascend, each blob non-empty."""
    days = list(days)
    if not days:
        raise EfferentError("a frame carries at least one day")
    if max_days is not None and len(days) > max_days:
        raise EfferentError(f"a frame carries at most {max_days} days, not {len(days)}")
    out, previous = bytearray(), None
    for day, blob in days:
        check_day(day)
        if previous is not None and day <= previous:
            raise EfferentError(f"days must ascend without repeats: {previous} then {day}")
        if not blob:
            raise EfferentError(f"{day} carries no body")
        if len(blob) > 0xFFFFFFFF:
            raise EfferentError(f"{day} is too long for a frame")
        out += day.encode("ascii") + struct.pack(">I", len(blob)) + blob
        previous = day
    return bytes(out)


def unpack_frame(data: bytes, allow_empty: bool = False) -> list[tuple[str, bytes]]:
    """Frame → [(day, sealed bytes), …]; any damage refuses the whole frame."""
    if not data:
        if allow_empty:
            return []
        raise EfferentError("malformed batch: a frame carries at least one day")
    days, offset, previous = [], 0, None
    while offset < len(data):
        if len(data) - offset < 14:
            raise EfferentError(f"malformed batch: {len(data) - offset} bytes left over "
                                "where a day was expected")
        try:
            day = data[offset:offset + 10].decode("ascii")
        except UnicodeDecodeError:
            raise EfferentError("malformed batch: a day name is not ASCII") from None
        try:
            check_day(day)
        except EfferentError as e:
            raise EfferentError(f"malformed batch: {e}") from None
        (length,) = struct.unpack(">I", data[offset + 10:offset + 14])
        offset += 14
        if previous is not None and day <= previous:
            raise EfferentError(f"malformed batch: days must ascend without repeats: "
                                f"{previous} then {day}")
        if length == 0:
            raise EfferentError(f"malformed batch: {day} carries no body")
        if len(data) - offset < length:
            raise EfferentError(f"malformed batch: {day} says {length} bytes and only "
                                f"{len(data) - offset} are there")
        days.append((day, data[offset:offset + length]))
        offset += length
        previous = day
    return days


# ---------------------------------------------------------------- keys and the handoff (§1)

def _key_halves(text: str, prefix: str, what: str) -> tuple[bytes, bytes]:
    parts = text.split(".")
    if len(parts) != 3 or parts[0] != prefix:
        raise EfferentError(f"the {what} is not of the form {prefix}.<private>.<public>")
    private = unb64url(parts[1], f"{what}'s private half")
    public = unb64url(parts[2], f"{what}'s public half")
    if len(private) != 32 or len(public) != 32:
        raise EfferentError(f"both halves of the {what} must be 32 bytes")
    return private, public


def parse_reading_key(text: str) -> tuple[bytes, bytes]:
    """§1.1: `efferent-reading-v1.<priv>.<pub>`, checked to belong together."""
    private, public = _key_halves(text, READING_PREFIX, "reading key")
    if not _stdhmac.compare_digest(_x25519_public(private), public):
        raise EfferentError("the private and public halves of the reading key do not match")
    return private, public


def parse_editor_key(text: str) -> tuple[bytes, bytes]:
    """§1.4: `efferent-editor-v1.<priv>.<pub>`, checked to belong together."""
    private, public = _key_halves(text, EDITOR_PREFIX, "editor key")
    derived = Ed25519PrivateKey.from_private_bytes(private).public_key().public_bytes_raw()
    if not _stdhmac.compare_digest(derived, public):
        raise EfferentError("the private and public halves of the editor key do not match")
    return private, public


def handoff_field(text: str, name: str) -> str | None:
    """§1.5: a field's value is the first line after `Name:`, trimmed."""
    match = re.search(r"(?:^|\n)" + re.escape(name) + r":\s*\r?\n([^\r\n]+)", text)
    return match.group(1).strip() if match else None


def parse_mcp_url(url: str) -> tuple[str, str]:
    """§1.5: returns (service endpoint, bucket)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise EfferentError("the MCP URL must be an http or https address")
    if "?" in url or "#" in url:
        raise EfferentError("the MCP URL must have no query and no fragment")
    match = re.fullmatch(r"(.*)/mcp/b/([a-z2-7]{26})", parts.path)
    if not match:
        raise EfferentError("the MCP URL does not end in /mcp/b/<bucket id>")
    endpoint = f"{parts.scheme}://{parts.netloc}{match.group(1)}".rstrip("/")
    return endpoint, match.group(2)


class Handoff:
    """The keys and addresses a handoff grants (§1.5)."""

    def __init__(self, endpoint: str, bucket: str, reading_private: bytes,
                 reading_public: bytes, editor_private: bytes | None = None,
                 editor_public: bytes | None = None):
        self.endpoint, self.bucket = endpoint, bucket
        self.reading_private, self.reading_public = reading_private, reading_public
        self.editor_private, self.editor_public = editor_private, editor_public
        self.read_key = derive_read_key(reading_private)

    @classmethod
    def parse(cls, text: str) -> "Handoff":
        url = handoff_field(text, "MCP")
        if url is None:
            raise EfferentError("the handoff has no MCP field")
        reading = handoff_field(text, "Reading key")
        if reading is None:
            raise EfferentError("the handoff has no Reading key field")
        endpoint, bucket = parse_mcp_url(url)
        private, public = parse_reading_key(reading)
        editor = handoff_field(text, "Editor key")
        editor_private = editor_public = None
        if editor is not None:
            editor_private, editor_public = parse_editor_key(editor)
        # A reading key that derives another bucket is an archive's rotated key (this project's
        # "Key rotation": the archive keeps its bucket), or a slip: the service, which answers
        # reads only for the read key its owner registered, tells which at the first read.
        return cls(endpoint, bucket, private, public, editor_private, editor_public)

    @property
    def derives_bucket(self) -> bool:
        """§1.6: whether the reading key is the one the bucket was made with (not after a rotation)."""
        return bucket_id(self.reading_public) == self.bucket

    @classmethod
    def load(cls, path: str) -> "Handoff":
        """Reads a handoff file, refusing one that group or others may read (§1.5)."""
        try:
            mode = os.stat(path).st_mode
            if mode & 0o077:
                raise EfferentError(f"the handoff file {path} may be read by others; "
                                    f"run chmod 600 {path}")
            with open(path, "r", encoding="utf-8") as f:
                return cls.parse(f.read())
        except OSError as e:
            raise EfferentError(f"cannot read the handoff file {path}: {e.strerror}") from None
        except UnicodeDecodeError:
            raise EfferentError(f"the handoff file {path} is not UTF-8 text") from None


def derive_read_seed(reading_private: bytes) -> bytes:
    """§1.3: HKDF-SHA256(IKM = reading private, salt = empty, info = `efferent/v1 read`, 32)."""
    return hkdf_expand(hkdf_extract(b"", reading_private), READ_KEY_INFO, 32)


def derive_read_key(reading_private: bytes) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(derive_read_seed(reading_private))


def read_message(bucket: str, target: str, ts: int) -> bytes:
    """§7: `efferent/v1 read\\n<bucket>\\n<path?query>\\n<ts>`."""
    return f"efferent/v1 read\n{bucket}\n{target}\n{ts}".encode("utf-8")


def sign_read(read_key: Ed25519PrivateKey, bucket: str, target: str, ts: int) -> bytes:
    return read_key.sign(read_message(bucket, target, ts))


def read_headers(read_key: Ed25519PrivateKey, bucket: str, target: str, ts: int) -> dict:
    return {
        "x-efferent-reader": b64url(read_key.public_key().public_bytes_raw()),
        "x-efferent-signature": b64url(sign_read(read_key, bucket, target, ts)),
        "x-efferent-timestamp": str(ts),
    }


# ---------------------------------------------------------------- edits (§8)

def validate_items(items, now: int | None = None) -> list[dict]:
    """Checks edit items per §8 and returns them in pack order."""
    now = int(time.time()) if now is None else now
    if isinstance(items, dict) and set(items) <= {"v", "items"} and "items" in items:
        items = items["items"]
    if not isinstance(items, list) or not 1 <= len(items) <= MAX_EDIT_ITEMS:
        raise EfferentError(f"an edit carries 1 to {MAX_EDIT_ITEMS} items")
    out = []
    for n, item in enumerate(items):
        where = f"item {n}"
        if not isinstance(item, dict):
            raise EfferentError(f"{where} is not an object")
        unknown = sorted(set(item) - set(ITEM_KEYS))
        if unknown:
            raise EfferentError(f"{where} has a key no edit knows: {unknown[0]}")
        op, ident = item.get("op"), item.get("id")
        if op not in ("put", "delete"):
            raise EfferentError(f"{where}: op must be put or delete")
        if not isinstance(ident, str) or not ITEM_ID_RE.match(ident):
            raise EfferentError(f"{where}: id must be 1 to 120 of A-Z a-z 0-9 . _ : -")
        if op == "delete":
            if set(item) != {"op", "id"}:
                raise EfferentError(f"{where}: a delete carries only op and id")
            out.append({"op": op, "id": ident})
            continue
        metric, start, end = item.get("metric"), item.get("start"), item.get("end")
        if not _is_int(start) or not _is_int(end) or start < 0 or end < start:
            raise EfferentError(f"{where}: start and end are whole non-negative Unix seconds, "
                                "end not before start")
        if end > now:
            raise EfferentError(f"{where}: start and end must be in the past")
        if metric == "sleep":
            if item.get("stage") not in SLEEP_STAGES:
                raise EfferentError(f"{where}: sleep needs a stage, one of "
                                    + ", ".join(SLEEP_STAGES))
            if "value" in item or "unit" in item:
                raise EfferentError(f"{where}: sleep carries a stage, not a value or unit")
            if end - start > 86400:
                raise EfferentError(f"{where}: a sleep stretch is at most 24 hours")
        elif metric in WRITABLE_UNITS:
            value = item.get("value")
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value) or value < 0:
                raise EfferentError(f"{where}: value must be a finite number, 0 or more")
            if item.get("unit") != WRITABLE_UNITS[metric]:
                raise EfferentError(f"{where}: {metric} is written in "
                                    f"{WRITABLE_UNITS[metric]}")
            if "stage" in item:
                raise EfferentError(f"{where}: only sleep carries a stage")
        else:
            raise EfferentError(f"{where}: {metric!r} is not a metric an agent may write")
        packed = {}
        for key in ITEM_KEYS:
            if key in item:
                packed[key] = canonical_number(item[key], f"{where}: value") \
                    if key == "value" else item[key]
        out.append(packed)
    return out


def pack_edit(items: list[dict]) -> bytes:
    """§8: raw deflate of `{"v":1,"items":[…]}`, compact, keys in the fixed order."""
    text = json.dumps({"v": 1, "items": items}, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)
    return deflate_raw(text.encode("utf-8"))


def edit_message(bucket: str, ts: int, sealed: bytes) -> bytes:
    digest = b64url(hashlib.sha256(sealed).digest())
    return f"efferent/v1 edit\n{bucket}\n{ts}\n{digest}".encode("utf-8")


# ---------------------------------------------------------------- service client (§6, §7)

class Client:
    """Signed reads and edits against one archive; urllib only."""

    def __init__(self, handoff: Handoff, clock=time.time):
        self.h, self.clock = handoff, clock

    def _request(self, method: str, target: str, headers: dict, body: bytes | None = None):
        request = urllib.request.Request(self.h.endpoint + target, data=body, method=method,
                                         headers=dict(headers, **{"user-agent": USER_AGENT}))
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:
                data = answer.read(MAX_ANSWER_BYTES + 1)
                if len(data) > MAX_ANSWER_BYTES:
                    raise EfferentError("the service answered more than 16 MiB; refused")
                return answer.status, answer.headers, data
        except urllib.error.HTTPError as e:
            detail = ""
            try:
                detail = json.loads(e.read(65536)).get("error", "")
            except (ValueError, AttributeError, OSError):
                pass
            if e.code == 405 and target.startswith(f"/b/{self.h.bucket}/d?"):
                raise EfferentError("the service does not hand ranges back yet") from None
            if e.code == 403 and method == "GET":
                raise EfferentError(
                    f"the service answered 403: {detail or 'that is not this archive read key'}; "
                    + ("the archive's owner rotated its keys, so this handoff was taken back: ask for a new one"
                       if self.h.derives_bucket else
                       "the reading key belongs to a different bucket than the MCP URL and the service does not "
                       "take it either: a handoff its owner has since replaced, or keys from two archives")) from None
            raise EfferentError(f"the service answered {e.code}"
                                + (f": {detail}" if detail else "")) from None
        except urllib.error.URLError as e:
            raise EfferentError(f"cannot reach the service: {e.reason}") from None
        except (TimeoutError, OSError) as e:
            raise EfferentError(f"the service did not answer: {e}") from None

    def _get(self, path: str, query: dict | None = None):
        query = {k: v for k, v in (query or {}).items() if v is not None}
        target = path + ("?" + urllib.parse.urlencode(query) if query else "")
        ts = int(self.clock())
        return self._request("GET", target, read_headers(self.h.read_key, self.h.bucket,
                                                         target, ts))

    def listing(self, start: str | None = None, end: str | None = None):
        """Yields `{"bytes","day","uploaded"}` for every day, following `next`."""
        after = None
        while True:
            _, _, data = self._get(f"/b/{self.h.bucket}/days",
                                   {"from": start, "to": end, "after": after})
            try:
                page = json.loads(data)
                days, following = page["days"], page.get("next")
            except (ValueError, KeyError, TypeError):
                raise EfferentError("the listing is not the expected JSON") from None
            for entry in days:
                if not isinstance(entry, dict) or not isinstance(entry.get("day"), str):
                    raise EfferentError("the listing holds an entry without a day")
                yield {"bytes": entry.get("bytes"), "day": entry["day"],
                       "uploaded": entry.get("uploaded")}
            if following is None:
                return
            if not isinstance(following, str) or (after is not None and following <= after):
                raise EfferentError("the listing's next page does not move forward")
            after = check_day(following)

    def day(self, day: str) -> bytes:
        _, _, data = self._get(f"/b/{self.h.bucket}/d/{check_day(day)}")
        return data

    def range(self, start: str, end: str):
        """Yields (day, sealed) for the days in [start, end], following `x-efferent-next`."""
        check_day(start), check_day(end)
        after = None
        while True:
            _, headers, data = self._get(f"/b/{self.h.bucket}/d",
                                         {"from": start, "to": end, "after": after})
            for day, sealed in unpack_frame(data, allow_empty=True):
                if not start <= day <= end or (after is not None and day <= after):
                    raise EfferentError(f"the service sent {day}, which was not asked for")
                yield day, sealed
            following = headers.get("x-efferent-next")
            if not following:
                return
            check_day(following)
            if (after is not None and following <= after) or following > end:
                raise EfferentError("the range's x-efferent-next does not move forward")
            after = following

    def post_edit(self, items: list[dict]) -> dict:
        h = self.h
        if h.editor_private is None:
            raise EfferentError("this handoff has no editor key, so it cannot write")
        sealed = seal(h.reading_public, edit_aad(h.bucket), pack_edit(items))
        ts = int(self.clock())
        signature = Ed25519PrivateKey.from_private_bytes(h.editor_private).sign(
            edit_message(h.bucket, ts, sealed))
        headers = {"content-type": "application/octet-stream",
                   "x-efferent-editor": b64url(h.editor_public),
                   "x-efferent-signature": b64url(signature), "x-efferent-timestamp": str(ts)}
        _, _, data = self._request("POST", f"/b/{h.bucket}/edits", headers, sealed)
        try:
            return json.loads(data)
        except ValueError:
            raise EfferentError("the service's answer to the edit is not JSON") from None


# ---------------------------------------------------------------- CLI

HELP_EPILOG = """\
reading an archive (every read is signed with the read key derived from the handoff):
  --handoff FILE --list [--from D] [--to D]   listing lines {"bytes","day","uploaded"}
  --handoff FILE --day D                      one day's events as NDJSON
  --handoff FILE --from D --to D              the range's events as NDJSON, "day" added
  --handoff FILE --write items.json           validate, pack, seal, sign and POST an edit
  --self-test                                 RFC 9180 A.2.1 known answers; prints ok

interop checks (no network):
  --encode-day EVENTS.ndjson [--tz ZONE]      events -> canonical layout-2 body on stdout
  --seal-day BODY --bucket B --day D --reading-public B64URL
                                              raw deflate (level 6) + HPKE seal -> stdout
  --open-day SEALED --handoff FILE --day D    open + expand -> NDJSON on stdout
  --derive --handoff FILE [--bucket B] [--target T --ts N]
                                              JSON: bucket, readPublic, and the hex §7
                                              signature over T at N (bucket B if given)
--encode-day takes the events --day/--open-day print; a "day" key (range output) is ignored.
A FILE argument of - reads standard input. Errors print `error: <sentence>` and exit 2.
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="efferent-reader", description="An independent reader of the Efferent protocol.",
        epilog=HELP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--handoff", metavar="FILE", help="the handoff text (chmod 600)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--list", action="store_true", help="print the archive's listing")
    mode.add_argument("--write", metavar="ITEMS", help="send an edit of these items")
    mode.add_argument("--self-test", action="store_true", help="check HPKE against RFC 9180")
    mode.add_argument("--encode-day", metavar="EVENTS", help="events NDJSON -> canonical body")
    mode.add_argument("--seal-day", metavar="BODY", help="body -> sealed day bytes")
    mode.add_argument("--open-day", metavar="SEALED", help="sealed day -> NDJSON events")
    mode.add_argument("--derive", action="store_true", help="print bucket, read key, signature")
    p.add_argument("--day", metavar="D", help="print one day's events; the day for "
                   "--seal-day / --open-day")
    p.add_argument("--from", dest="start", metavar="D", help="first day (inclusive)")
    p.add_argument("--to", dest="end", metavar="D", help="last day (inclusive)")
    p.add_argument("--tz", metavar="ZONE", help="IANA zone for --encode-day's `tz` key")
    p.add_argument("--bucket", metavar="B", help="bucket id for --seal-day / --derive")
    p.add_argument("--reading-public", metavar="B64URL", help="reading public key (--seal-day)")
    p.add_argument("--target", metavar="T", help="request target to sign (--derive)")
    p.add_argument("--ts", metavar="N", type=int, help="Unix seconds to sign at (--derive)")
    return p


def _read_input(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise EfferentError(f"cannot read {path}: {e.strerror}") from None


def _print_events(events, day: str | None = None) -> None:
    out = sys.stdout
    for event in events:
        out.write(event_line(event, day) + "\n")


def _need(args, *names) -> None:
    for name in names:
        if getattr(args, name.lstrip("-").replace("-", "_")) is None:
            raise EfferentError(f"this command needs {name}")


def run(args, parser) -> int:
    if args.self_test:
        self_test()
        print("ok")
        return 0
    if args.encode_day is not None:
        events = []
        for number, line in enumerate(_read_input(args.encode_day).decode("utf-8")
                                      .splitlines(), 1):
            if line.strip():
                try:
                    events.append(json.loads(line))
                except ValueError:
                    raise EfferentError(f"line {number} of the events is not JSON") from None
        sys.stdout.buffer.write(encode_day(events, args.tz))
        return 0
    if args.seal_day is not None:
        _need(args, "--bucket", "--day", "--reading-public")
        public = unb64url(args.reading_public, "reading public key")
        if len(public) != 32:
            raise EfferentError("the reading public key must be 32 bytes")
        sealed = seal_day(_read_input(args.seal_day), public, check_bucket(args.bucket),
                          check_day(args.day))
        sys.stdout.buffer.write(sealed)
        return 0
    if args.handoff is None:
        parser.error("this command takes --handoff FILE")
    handoff = Handoff.load(args.handoff)
    if args.open_day is not None:
        _need(args, "--day")
        body = open_day(_read_input(args.open_day), handoff.reading_private, handoff.bucket,
                        check_day(args.day))
        _print_events(expand_day(body))
        return 0
    if args.derive:
        answer = {"bucket": handoff.bucket, "readPublic": b64url(
            handoff.read_key.public_key().public_bytes_raw())}
        if (args.target is None) != (args.ts is None):
            raise EfferentError("--derive signs only with both --target and --ts")
        if args.target is not None:
            bucket = check_bucket(args.bucket) if args.bucket else handoff.bucket
            answer.update(signedBucket=bucket, target=args.target, ts=args.ts,
                          signature=sign_read(handoff.read_key, bucket, args.target,
                                              args.ts).hex())
        print(json.dumps(answer, sort_keys=True, separators=(",", ":")))
        return 0
    client = Client(handoff)
    if args.list:
        for bound in (args.start, args.end):
            if bound is not None:
                check_day(bound)
        if args.start and args.end and args.start > args.end:
            parser.error("--from must not be after --to")
        for entry in client.listing(args.start, args.end):
            print(json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
        return 0
    if args.write is not None:
        try:
            items = json.loads(_read_input(args.write))
        except ValueError:
            raise EfferentError(f"{args.write} is not JSON") from None
        answer = client.post_edit(validate_items(items))
        print(json.dumps(answer, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
        return 0
    if args.day is not None:
        day = check_day(args.day)
        _print_events(expand_day(open_day(client.day(day), handoff.reading_private,
                                          handoff.bucket, day)))
        return 0
    if args.start is not None or args.end is not None:
        if args.start is None or args.end is None:
            parser.error("a range of days takes both --from and --to")
        check_day(args.start), check_day(args.end)
        if args.start > args.end:
            parser.error("--from must not be after --to")
        for day, sealed in client.range(args.start, args.end):
            body = open_day(sealed, handoff.reading_private, handoff.bucket, day)
            _print_events(expand_day(body), day)
        return 0
    parser.error("say what to do: --list, --day, --from/--to, --write, or an interop command")
    return 2


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return run(args, parser)
    except EfferentError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
