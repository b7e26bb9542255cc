#!/usr/bin/env python3
"""Independent check of pushgate's JWTs, with the `cryptography` package rather than OpenSSL
through Swift: verifies an ES256 or RS256 signature and compares header and claims.

usage: verify_jwt.py ALG PUBLIC_KEY_PEM TOKEN_FILE EXPECTED_HEADER_JSON EXPECTED_CLAIMS_JSON

Exit status: 0 valid and as expected; 1 signature invalid; 2 token malformed or header/claims
differ; 3 the `cryptography` package is missing; 4 usage.
"""
import base64
import json
import re
import sys

try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
except ImportError as error:
    print(f"python package 'cryptography' is missing ({error}): run `pip install cryptography`")
    sys.exit(3)

BASE64URL = re.compile(r"^[A-Za-z0-9_-]*$")


def fail(status, message):
    print(message)
    sys.exit(status)


def b64url(part, name):
    # JWS forbids padding (RFC 7515 §2): a token carrying it is malformed, not leniently read.
    if not BASE64URL.match(part):
        fail(2, f"{name} is not unpadded base64url: {part!r}")
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def main():
    if len(sys.argv) != 6:
        fail(4, __doc__)
    alg, key_path, token_path, header_path, claims_path = sys.argv[1:]
    with open(key_path, "rb") as file:
        key = serialization.load_pem_public_key(file.read())
    with open(token_path) as file:
        token = file.read().strip()
    with open(header_path) as file:
        expected_header = json.load(file)
    with open(claims_path) as file:
        expected_claims = json.load(file)
    verify_token(alg, key, token, expected_header, expected_claims)


def verify_token(alg, key, token, expected_header, expected_claims):
    """Exits as the module's docstring says unless `token` is valid and as expected."""
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
    if header.get("alg") != alg:
        fail(2, f"header alg {header.get('alg')!r}, expected {alg!r}")

    signing_input = (parts[0] + "." + parts[1]).encode("ascii")
    try:
        if alg == "ES256":
            if not isinstance(key, ec.EllipticCurvePublicKey) or key.curve.name != "secp256r1":
                fail(2, "ES256 needs an EC P-256 public key")
            if len(signature) != 64:
                fail(1, f"ES256 signature is {len(signature)} bytes, expected 64 (r || s)")
            r = int.from_bytes(signature[:32], "big")
            s = int.from_bytes(signature[32:], "big")
            key.verify(encode_dss_signature(r, s), signing_input, ec.ECDSA(hashes.SHA256()))
        elif alg == "RS256":
            if not isinstance(key, rsa.RSAPublicKey):
                fail(2, "RS256 needs an RSA public key")
            key.verify(signature, signing_input, padding.PKCS1v15(), hashes.SHA256())
        else:
            fail(4, f"unknown algorithm {alg}")
    except InvalidSignature:
        fail(1, "signature invalid")
    print("valid")


if __name__ == "__main__":
    main()
