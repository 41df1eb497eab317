/*
 * digest.c -- SHA-256 and HMAC-SHA256 through libcrypto (see digest.h).
 */
#include "config.h"
#include "common/digest.h"
#include "common/util.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>
#include <string.h>

static void
to_hex(const unsigned char *md, unsigned n, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	for (unsigned i = 0; i < n; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[2 * n] = '\0';
}

void
egg_sha256_hex(const void *data, size_t len, char hex[EGG_SHA256_HEX_LEN + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	/* EVP_Digest fails only on allocation failure inside libcrypto. */
	if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n != 32) {
		egg_error("libcrypto could not compute SHA-256 (out of memory?)");
		exit(1);
	}
	to_hex(md, n, hex);
}

void
egg_hmac_sha256_hex(const char *secret, const void *data, size_t len,
                    char hex[EGG_SHA256_HEX_LEN + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	if (!HMAC(EVP_sha256(), secret, (int)strlen(secret), data, len, md, &n) || n != 32) {
		egg_error("libcrypto could not compute HMAC-SHA256 (out of memory?)");
		exit(1);
	}
	to_hex(md, n, hex);
}
