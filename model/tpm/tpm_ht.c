/* Handle types (model/tpm/tpm_ht.h): the names of tpm_ht.def. */
#include "model/tpm/tpm_ht.h"

#include <stddef.h>

const char *tpm_ht_name(uint8_t ht)
{
	switch (ht) {
#define TPM_HT(name, value, text)                                                                  \
	case value:                                                                                \
		return text;
#include "model/tpm/tpm_ht.def"
#undef TPM_HT
	}
	return NULL;
}
