#ifndef PUSHGATE_COPENSSL_SHIM_H
#define PUSHGATE_COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/core_names.h>
#include <openssl/x509.h>
#include <openssl/pkcs12.h>
#include <openssl/param_build.h>
#include <openssl/hmac.h>

// OPENSSL_free is a macro: Swift needs a function to call.
static inline void pushgate_openssl_free(void *pointer) {
    OPENSSL_free(pointer);
}

// EVP_PKEY_KEYPAIR and EVP_PKEY_PUBLIC_KEY are macros built from other macros, which Swift
// does not import.
static inline int pushgate_evp_pkey_keypair(void) {
    return EVP_PKEY_KEYPAIR;
}

static inline int pushgate_evp_pkey_public_key(void) {
    return EVP_PKEY_PUBLIC_KEY;
}
#endif
