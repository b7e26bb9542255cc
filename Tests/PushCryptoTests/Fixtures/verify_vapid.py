#!/usr/bin/env python3
"""Independent check of pushgate's VAPID headers (RFC 8292) with the `cryptography` package:
reads `vapid t=<JWT>, k=<key>`, loads k as a raw P-256 point, verifies the ES256 signature
(raw r || s) against it and compares the header and claims.

usage: verify_vapid.py AUTHORIZATION_FILE EXPECTED_HEADER_JSON EXPECTED_CLAIMS_JSON

Exit status: 0 valid and as expected; 1 signature invalid; 2 malformed or header/claims
differ; 3 the `cryptography` package is missing; 4 usage.
"""
import json
import os
import re
import sys

# The JWT half is verify_jwt.py's (which also exits 3 without `cryptography`); this script
# adds reading the header and the key from `k`.
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verify_jwt import b64url, fail, verify_token  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402


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

    verify_token("ES256", key, token, expected_header, expected_claims)

if __name__ == "__main__":
    main()
