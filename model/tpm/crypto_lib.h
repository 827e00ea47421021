/* OpenSSL's libcrypto, loaded by the first call that needs it (dlopen,
 * model/tpm/dl.h) rather than by every tpmtrace process: a recorder never
 * calls it, and mapping it cost ~1.4 MB of a recorder's resident memory
 * (its relocations alone 392 kB), a sixth of `record --kernel`'s. The files
 * that call libcrypto include this instead of OpenSSL's headers and call it
 * as usual: each function name below is a macro for the function looked up in
 * libcrypto.so.3. tpm_crypto_load must succeed before the first call; the
 * rooms' entry points (the session contexts' first use, pcr_sim_init, the
 * replay's salt, the host id's digest) call it. */
#ifndef TPMTRACE_MODEL_TPM_CRYPTO_LIB_H
#define TPMTRACE_MODEL_TPM_CRYPTO_LIB_H

#include <stddef.h>

/* SHA256_Init and its kin: deprecated in 3.0, not removed (db/host_id.c). */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>

/* The soname loaded: OpenSSL 3's ABI. */
#define TPM_CRYPTO_SONAME "libcrypto.so.3"

/* Every libcrypto function called (a new one is added here and below). */
/* clang-format off */
#define TPM_CRYPTO_FUNCS(X) \
	X(BN_bin2bn) \
	X(BN_free) \
	X(BN_new) \
	X(BN_set_word) \
	X(CRYPTO_free) \
	X(CRYPTO_memcmp) \
	X(CRYPTO_strdup) \
	X(EVP_CIPHER_CTX_free) \
	X(EVP_CIPHER_CTX_new) \
	X(EVP_CIPHER_fetch) \
	X(EVP_CIPHER_free) \
	X(EVP_CipherInit_ex2) \
	X(EVP_CipherUpdate) \
	X(EVP_DigestFinal_ex) \
	X(EVP_DigestInit_ex2) \
	X(EVP_DigestUpdate) \
	X(EVP_MAC_CTX_free) \
	X(EVP_MAC_CTX_new) \
	X(EVP_MAC_CTX_set_params) \
	X(EVP_MAC_fetch) \
	X(EVP_MAC_final) \
	X(EVP_MAC_free) \
	X(EVP_MAC_init) \
	X(EVP_MAC_update) \
	X(EVP_MD_CTX_free) \
	X(EVP_MD_CTX_new) \
	X(EVP_MD_fetch) \
	X(EVP_MD_free) \
	X(EVP_PKEY_CTX_free) \
	X(EVP_PKEY_CTX_new) \
	X(EVP_PKEY_CTX_new_from_name) \
	X(EVP_PKEY_CTX_new_from_pkey) \
	X(EVP_PKEY_CTX_set0_rsa_oaep_label) \
	X(EVP_PKEY_CTX_set_group_name) \
	X(EVP_PKEY_CTX_set_rsa_mgf1_md) \
	X(EVP_PKEY_CTX_set_rsa_oaep_md) \
	X(EVP_PKEY_CTX_set_rsa_padding) \
	X(EVP_PKEY_derive) \
	X(EVP_PKEY_derive_init) \
	X(EVP_PKEY_derive_set_peer_ex) \
	X(EVP_PKEY_encrypt) \
	X(EVP_PKEY_encrypt_init) \
	X(EVP_PKEY_free) \
	X(EVP_PKEY_fromdata) \
	X(EVP_PKEY_fromdata_init) \
	X(EVP_PKEY_generate) \
	X(EVP_PKEY_get_octet_string_param) \
	X(EVP_PKEY_keygen_init) \
	X(EVP_PKEY_public_check_quick) \
	X(EVP_get_digestbyname) \
	X(OSSL_PARAM_BLD_free) \
	X(OSSL_PARAM_BLD_new) \
	X(OSSL_PARAM_BLD_push_BN) \
	X(OSSL_PARAM_BLD_to_param) \
	X(OSSL_PARAM_construct_end) \
	X(OSSL_PARAM_construct_octet_string) \
	X(OSSL_PARAM_construct_utf8_string) \
	X(OSSL_PARAM_free) \
	X(RAND_bytes) \
	X(SHA256_Final) \
	X(SHA256_Init) \
	X(SHA256_Update)
/* clang-format on */

struct tpm_crypto {
#define TPM_CRYPTO_MEMBER(f) __typeof__(f) *f_##f;
	TPM_CRYPTO_FUNCS(TPM_CRYPTO_MEMBER)
#undef TPM_CRYPTO_MEMBER
};
extern struct tpm_crypto tpm_crypto;

/* Loads libcrypto (once; safe from any thread): 0, or -ENOENT with err saying
 * what is missing and which package has it. */
int tpm_crypto_load(char *err, size_t errlen);

/* Whether it is loaded: what was made with it is to be freed with it. */
int tpm_crypto_loaded(void);

#define BN_bin2bn			  tpm_crypto.f_BN_bin2bn
#define BN_free				  tpm_crypto.f_BN_free
#define BN_new				  tpm_crypto.f_BN_new
#define BN_set_word			  tpm_crypto.f_BN_set_word
#define CRYPTO_free			  tpm_crypto.f_CRYPTO_free
#define CRYPTO_memcmp			  tpm_crypto.f_CRYPTO_memcmp
#define CRYPTO_strdup			  tpm_crypto.f_CRYPTO_strdup
#define EVP_CIPHER_CTX_free		  tpm_crypto.f_EVP_CIPHER_CTX_free
#define EVP_CIPHER_CTX_new		  tpm_crypto.f_EVP_CIPHER_CTX_new
#define EVP_CIPHER_fetch		  tpm_crypto.f_EVP_CIPHER_fetch
#define EVP_CIPHER_free			  tpm_crypto.f_EVP_CIPHER_free
#define EVP_CipherInit_ex2		  tpm_crypto.f_EVP_CipherInit_ex2
#define EVP_CipherUpdate		  tpm_crypto.f_EVP_CipherUpdate
#define EVP_DigestFinal_ex		  tpm_crypto.f_EVP_DigestFinal_ex
#define EVP_DigestInit_ex2		  tpm_crypto.f_EVP_DigestInit_ex2
#define EVP_DigestUpdate		  tpm_crypto.f_EVP_DigestUpdate
#define EVP_MAC_CTX_free		  tpm_crypto.f_EVP_MAC_CTX_free
#define EVP_MAC_CTX_new			  tpm_crypto.f_EVP_MAC_CTX_new
#define EVP_MAC_CTX_set_params		  tpm_crypto.f_EVP_MAC_CTX_set_params
#define EVP_MAC_fetch			  tpm_crypto.f_EVP_MAC_fetch
#define EVP_MAC_final			  tpm_crypto.f_EVP_MAC_final
#define EVP_MAC_free			  tpm_crypto.f_EVP_MAC_free
#define EVP_MAC_init			  tpm_crypto.f_EVP_MAC_init
#define EVP_MAC_update			  tpm_crypto.f_EVP_MAC_update
#define EVP_MD_CTX_free			  tpm_crypto.f_EVP_MD_CTX_free
#define EVP_MD_CTX_new			  tpm_crypto.f_EVP_MD_CTX_new
#define EVP_MD_fetch			  tpm_crypto.f_EVP_MD_fetch
#define EVP_MD_free			  tpm_crypto.f_EVP_MD_free
#define EVP_PKEY_CTX_free		  tpm_crypto.f_EVP_PKEY_CTX_free
#define EVP_PKEY_CTX_new		  tpm_crypto.f_EVP_PKEY_CTX_new
#define EVP_PKEY_CTX_new_from_name	  tpm_crypto.f_EVP_PKEY_CTX_new_from_name
#define EVP_PKEY_CTX_new_from_pkey	  tpm_crypto.f_EVP_PKEY_CTX_new_from_pkey
#define EVP_PKEY_CTX_set0_rsa_oaep_label  tpm_crypto.f_EVP_PKEY_CTX_set0_rsa_oaep_label
#define EVP_PKEY_CTX_set_group_name	  tpm_crypto.f_EVP_PKEY_CTX_set_group_name
#define EVP_PKEY_CTX_set_rsa_mgf1_md	  tpm_crypto.f_EVP_PKEY_CTX_set_rsa_mgf1_md
#define EVP_PKEY_CTX_set_rsa_oaep_md	  tpm_crypto.f_EVP_PKEY_CTX_set_rsa_oaep_md
#define EVP_PKEY_CTX_set_rsa_padding	  tpm_crypto.f_EVP_PKEY_CTX_set_rsa_padding
#define EVP_PKEY_derive			  tpm_crypto.f_EVP_PKEY_derive
#define EVP_PKEY_derive_init		  tpm_crypto.f_EVP_PKEY_derive_init
#define EVP_PKEY_derive_set_peer_ex	  tpm_crypto.f_EVP_PKEY_derive_set_peer_ex
#define EVP_PKEY_encrypt		  tpm_crypto.f_EVP_PKEY_encrypt
#define EVP_PKEY_encrypt_init		  tpm_crypto.f_EVP_PKEY_encrypt_init
#define EVP_PKEY_free			  tpm_crypto.f_EVP_PKEY_free
#define EVP_PKEY_fromdata		  tpm_crypto.f_EVP_PKEY_fromdata
#define EVP_PKEY_fromdata_init		  tpm_crypto.f_EVP_PKEY_fromdata_init
#define EVP_PKEY_generate		  tpm_crypto.f_EVP_PKEY_generate
#define EVP_PKEY_get_octet_string_param	  tpm_crypto.f_EVP_PKEY_get_octet_string_param
#define EVP_PKEY_keygen_init		  tpm_crypto.f_EVP_PKEY_keygen_init
#define EVP_PKEY_public_check_quick	  tpm_crypto.f_EVP_PKEY_public_check_quick
#define EVP_get_digestbyname		  tpm_crypto.f_EVP_get_digestbyname
#define OSSL_PARAM_BLD_free		  tpm_crypto.f_OSSL_PARAM_BLD_free
#define OSSL_PARAM_BLD_new		  tpm_crypto.f_OSSL_PARAM_BLD_new
#define OSSL_PARAM_BLD_push_BN		  tpm_crypto.f_OSSL_PARAM_BLD_push_BN
#define OSSL_PARAM_BLD_to_param		  tpm_crypto.f_OSSL_PARAM_BLD_to_param
#define OSSL_PARAM_construct_end	  tpm_crypto.f_OSSL_PARAM_construct_end
#define OSSL_PARAM_construct_octet_string tpm_crypto.f_OSSL_PARAM_construct_octet_string
#define OSSL_PARAM_construct_utf8_string  tpm_crypto.f_OSSL_PARAM_construct_utf8_string
#define OSSL_PARAM_free			  tpm_crypto.f_OSSL_PARAM_free
#define RAND_bytes			  tpm_crypto.f_RAND_bytes
#define SHA256_Final			  tpm_crypto.f_SHA256_Final
#define SHA256_Init			  tpm_crypto.f_SHA256_Init
#define SHA256_Update			  tpm_crypto.f_SHA256_Update

#endif
