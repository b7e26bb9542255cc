#!/usr/bin/env python3
"""Independent check of pushgate's VAPID headers (RFC 8292) with the `cryptography` package:
reads `vapid t=<JWT>, k=<key>`, loads k as a raw P-256 point, verifies the ES256 signature
(raw r || s) against it and compares the header and claims.

usage: verify_vapid.py AUTHORIZATION_FILE EXPECTED_HEADER_JSON EXPECTED_CLAIMS_JSON

Exit status: 0 valid and as expected; 1 signature invalid; 2 malformed or header/claims
differ; 3 the `cryptography` package is missing; 4 usage.
"""
import base64
import json
import re
import sys

try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
except ImportError as error:
    print(f"python package 'cryptography' is missing ({error}): run `pip install cryptography`")
    sys.exit(3)

BASE64URL = re.compile(r"^[A-Za-z0-9_-]*$")


def fail(status, message):
    print(message)
    sys.exit(status)


def b64url(part, name):
    if not BASE64URL.match(part):
        fail(2, f"{name} is not unpadded base64url: {part!r}")
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def main():
    if len(sys.argv) != 4:
        fail(4, __doc__)
    authorization_path, header_path, claims_path = sys.argv[1:]
    with open(authorization_path) as file:
        authorization = file.read().strip()
    with open(header_path) as file:
        expected_header = json.load(file)
    with open(claims_path) as file:
        expected_claims = json.load(file)

    match = re.fullmatch(r"vapid t=([A-Za-z0-9_.-]+), k=([A-Za-z0-9_-]+)", authorization)
    if not match:
        fail(2, f"not 'vapid t=..., k=...': {authorization!r}")
    token, k = match.groups()
    point = b64url(k, "k")
    if len(point) != 65 or point[0] != 4:
        fail(2, f"k is not a 65-byte uncompressed point ({len(point)} bytes)")
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)

    parts = token.split(".")
    if len(parts) != 3:
        fail(2, f"expected 3 parts, found {len(parts)}")
    header = json.loads(b64url(parts[0], "header"))
    claims = json.loads(b64url(parts[1], "claims"))
    signature = b64url(parts[2], "signature")
    if header != expected_header:
        fail(2, f"header {header} != expected {expected_header}")
    if claims != expected_claims:
        fail(2, f"claims {claims} != expected {expected_claims}")
    if len(signature) != 64:
        fail(1, f"ES256 signature is {len(signature)} bytes, expected 64 (r || s)")
    r = int.from_bytes(signature[:32], "big")
    s = int.from_bytes(signature[32:], "big")
    try:
        key.verify(encode_dss_signature(r, s), (parts[0] + "." + parts[1]).encode("ascii"), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        fail(1, "signature invalid")
    print("valid")


if __name__ == "__main__":
    main()
