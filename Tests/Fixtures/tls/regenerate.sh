#!/bin/sh
# Regenerates the TEST-ONLY TLS fixtures of this folder (see README.md). Run from anywhere:
#   sh Tests/Fixtures/tls/regenerate.sh
# Every file here is replaced; the mocks and tests read them by name, so nothing else changes.
set -eu
cd "$(dirname "$0")"

DAYS=7300 # about 20 years: the fixtures should outlive the project's tests
EC="-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# 1. The server CA: what clients trust (PUSHGATE_CA_FILE, curl --cacert) to reach the mocks.
openssl req -x509 $EC -sha256 -days $DAYS \
  -subj "/O=pushgate tests/CN=pushgate test CA" \
  -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -keyout ca.key -out ca.pem

# 2. The mocks' server certificate, for 127.0.0.1 and localhost, signed by the server CA.
openssl req $EC -sha256 -subj "/O=pushgate tests/CN=localhost" -keyout server.key -out "$WORK/server.csr"
cat > "$WORK/server.ext" <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost
EXT
openssl x509 -req -sha256 -days $DAYS -in "$WORK/server.csr" -CA ca.pem -CAkey ca.key \
  -set_serial 0x$(openssl rand -hex 16) -extfile "$WORK/server.ext" -out server.pem

# 3. The client CA: what the mock APNs trusts for certificate-based provider auth.
openssl req -x509 $EC -sha256 -days $DAYS \
  -subj "/O=pushgate tests/CN=pushgate test client CA" \
  -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -keyout client-ca.key -out client-ca.pem

# 4. A provider client certificate, its subject shaped like Apple's push certificates
#    (UID = the topic, i.e. the bundle id), signed by the client CA.
openssl req $EC -sha256 \
  -subj "/UID=com.example.pushgate/CN=Apple Push Services: com.example.pushgate/OU=TEAM123456/O=pushgate tests/C=US" \
  -keyout client.key -out "$WORK/client.csr"
cat > "$WORK/client.ext" <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth
EXT
openssl x509 -req -sha256 -days $DAYS -in "$WORK/client.csr" -CA client-ca.pem -CAkey client-ca.key \
  -set_serial 0x$(openssl rand -hex 16) -extfile "$WORK/client.ext" -out client.pem

# 5. The same certificate and key as PKCS#12, as operators export them from Keychain:
#    one with an empty password, one with the password `test-only`.
openssl pkcs12 -export -in client.pem -inkey client.key -name "pushgate test client" \
  -passout pass: -out client.p12
openssl pkcs12 -export -in client.pem -inkey client.key -name "pushgate test client" \
  -passout pass:test-only -out client-protected.p12

# 6. A client certificate the client CA did not sign (self-signed): the mock must refuse it.
openssl req -x509 $EC -sha256 -days $DAYS \
  -subj "/UID=com.example.pushgate/CN=untrusted pushgate test client" \
  -addext "extendedKeyUsage=clientAuth" \
  -keyout untrusted-client.key -out untrusted-client.pem

rm -f ca.srl client-ca.srl
# Readable by whoever runs the tests (CI users, nginx workers): these keys guard nothing.
chmod 644 *.key *.pem *.p12
openssl verify -CAfile ca.pem server.pem
openssl verify -CAfile client-ca.pem client.pem
