"""An independent opener of Efferent recovery kits, written from documents/protocol.md
("Recovery kits") with PyCA cryptography, hashlib and the BIP-39 `mnemonic` package only.

    python3 kit_check.py KIT --passphrase-file FILE [--server URL] [--words-only]

Reads the kit's file (or, with --words-only, only its 24 words and its Service line), finds its
sealed record (the file's QR text, or the service's copy under the locator), opens it and prints
what it holds as JSON with every key replaced by its public half: bucket, endpoint, zone,
writerPublic, readingPublic, editorPublic. Exits 1 with one line on stderr otherwise.
"""

import argparse
import base64
import hashlib
import json
import re
import struct
import sys
import urllib.error
import urllib.request

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.argon2 import Argon2id
from mnemonic import Mnemonic


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def rotl(v, c):
    return ((v << c) & 0xFFFFFFFF) | (v >> (32 - c))


def hchacha20(key: bytes, nonce16: bytes) -> bytes:
    """draft-irtf-cfrg-xchacha-03 §2.2."""
    s = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574] + list(struct.unpack("<8I", key)) + list(struct.unpack("<4I", nonce16))

    def qr(a, b, c, d):
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF; s[d] = rotl(s[d] ^ s[a], 16)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF; s[b] = rotl(s[b] ^ s[c], 12)
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF; s[d] = rotl(s[d] ^ s[a], 8)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF; s[b] = rotl(s[b] ^ s[c], 7)
    for _ in range(10):
        qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15)
        qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14)
    return struct.pack("<8I", *(s[0:4] + s[12:16]))


def xchacha_open(key: bytes, nonce: bytes, ciphertext: bytes, aad: bytes) -> bytes:
    """AEAD_XChaCha20_Poly1305: HChaCha20 subkey, then ChaCha20-Poly1305 with 4 zero bytes and the nonce's last 8."""
    return ChaCha20Poly1305(hchacha20(key, nonce[:16])).decrypt(b"\0\0\0\0" + nonce[16:], ciphertext, aad)


def fail(message: str):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)


def read_kit(text: str, words_only: bool):
    """The secret, the service address and the sealed record (None with words only)."""
    service = re.search(r"^Service:\s*(\S+)", text, re.M)
    if not words_only:
        qr = re.search(r"EFFERENT-KIT:([A-Za-z0-9_-]+)", text)
        if not qr:
            fail("no QR text in the kit's file")
        data = unb64url(qr.group(1))
        if hashlib.sha256(data[:-4]).digest()[:4] != data[-4:]:
            fail("the QR text's checksum does not match")
        if data[:3] != b"EK\x01" or data[3] != 0:
            fail("not a whole kit's QR text")
        secret = data[6:38]
        at = 38 + 8 + 26
        (n,) = struct.unpack(">H", data[at:at + 2]); endpoint = data[at + 2:at + 2 + n].decode(); at += 2 + n
        at += 1 + data[at]
        (n,) = struct.unpack(">H", data[at:at + 2]); record = data[at + 2:at + 2 + n]
        return secret, endpoint, record
    section = text.split("Words:", 1)[-1].split("Kit:", 1)[0]
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", section)]
    mnemo = Mnemonic("english")
    if len(words) != 24 or not mnemo.check(" ".join(words)):
        fail("the 24 words do not make a BIP-39 phrase")
    return bytes(mnemo.to_entropy(" ".join(words))), service.group(1) if service else None, None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("kit")
    parser.add_argument("--passphrase-file", required=True)
    parser.add_argument("--server")
    parser.add_argument("--words-only", action="store_true")
    args = parser.parse_args()
    secret, endpoint, record = read_kit(open(args.kit, encoding="utf-8").read(), args.words_only)
    passphrase = open(args.passphrase_file, encoding="utf-8").read().rstrip("\r\n").encode()
    # The locator: BLAKE2b-128 keyed with the secret over "efferent-kit/v1 locator", lower-case base32.
    locator = base64.b32encode(hashlib.blake2b(b"efferent-kit/v1 locator", key=secret, digest_size=16).digest()).decode().lower().rstrip("=")
    if record is None:
        server = args.server or endpoint
        try:
            with urllib.request.urlopen(f"{server}/kit/{locator}", timeout=30) as answer:
                record = answer.read()
        except urllib.error.HTTPError as e:
            fail(f"the service answered {e.code} for the kit's locator")
    if record[:4] != b"efk1":
        fail("the sealed record does not start with efk1")
    operations, memory_kib = struct.unpack(">II", record[4:12])
    salt, nonce, ciphertext = record[12:28], record[28:52], record[52:]
    if operations < 3 or memory_kib < 262144:
        fail("the record's Argon2id limits are below libsodium's MODERATE")
    # Argon2id v1.3 with one lane: libsodium's crypto_pwhash.
    stretched = Argon2id(salt=salt, length=32, iterations=operations, lanes=1, memory_cost=memory_kib).derive(passphrase)
    key = hashlib.blake2b(b"efferent-kit/v1 key", key=secret + stretched, digest_size=32).digest()
    aad = f"efferent-kit/v1\n{locator}\n".encode() + record[:52]
    try:
        contents = json.loads(xchacha_open(key, nonce, ciphertext, aad))
    except Exception:
        fail("the passphrase does not open the kit")
    writer = Ed25519PrivateKey.from_private_bytes(unb64url(contents["writer"])).public_key().public_bytes_raw()
    reading = X25519PrivateKey.from_private_bytes(unb64url(contents["reading"])).public_key().public_bytes_raw()
    editor = Ed25519PrivateKey.from_private_bytes(unb64url(contents["editor"])).public_key().public_bytes_raw()
    print(json.dumps({"bucket": contents["bucket"], "endpoint": contents["endpoint"], "timeZone": contents["timeZone"],
                      "writerPublic": b64url(writer), "readingPublic": b64url(reading), "editorPublic": b64url(editor),
                      "locator": locator}, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
