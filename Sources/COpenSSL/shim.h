#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/sha.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/bio.h>

/* TLS: functions for OpenSSL macros that Swift cannot import (they expand to SSL_ctrl / SSL_CTX_ctrl / BIO_ctrl). */

static inline int copenssl_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

static inline int copenssl_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

static inline long copenssl_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

static inline int copenssl_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *cert) {
    return (int)SSL_CTX_add1_chain_cert(ctx, cert);
}

static inline int copenssl_BIO_set_mem_eof_return(BIO *bio, int value) {
    return (int)BIO_set_mem_eof_return(bio, value);
}

static inline uint64_t copenssl_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }

static inline uint64_t copenssl_SSL_OP_CIPHER_SERVER_PREFERENCE(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }

#endif
