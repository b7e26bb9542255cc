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

// OPENSSL_free is a macro: Swift needs a function to call.
static inline void pushgate_openssl_free(void *pointer) {
    OPENSSL_free(pointer);
}
#endif
