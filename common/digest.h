/*
 * digest.h -- SHA-256 and HMAC-SHA256 as lowercase hex (libcrypto's EVP).
 *
 * In its own library (libeggdigest.a), so that what links libeggcommon.a alone
 * (egg-cc) never loads libcrypto.  The cache's keys and signatures and the
 * harness's prepared objects are named by these.
 */
#ifndef EGG_DIGEST_H
#define EGG_DIGEST_H

#include <stddef.h>

#define EGG_SHA256_HEX_LEN 64

/* SHA-256 of data as 64 lowercase hex digits and a NUL. */
void egg_sha256_hex(const void *data, size_t len, char hex[EGG_SHA256_HEX_LEN + 1]);

/* HMAC-SHA256 of data under secret, as 64 hex digits and a NUL. */
void egg_hmac_sha256_hex(const char *secret, const void *data, size_t len,
                         char hex[EGG_SHA256_HEX_LEN + 1]);

#endif
