/* libFuzzer target: YAML read through libyaml into the ynode tree, then the
 * tree walked as the TPMScan importer walks it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/import/yaml.h"

static unsigned walk(const struct ynode *n)
{
	unsigned k = 0;
	for (; n; n = n->next) {
		k += n->line + (n->key ? (unsigned)strlen(n->key) : 0);
		k += n->value ? (unsigned)strlen(n->value) : 0;
		k += walk(n->child);
		if (n->kind == YDOC_MAP && n->child && n->child->key)
			k += import_ydoc_get(n, n->child->key) == n->child;
	}
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ynode *root = NULL;
	char err[256];
	if (import_ydoc_parse((const char *)data, size, "fuzz", &root, err, sizeof err) == 0) {
		volatile unsigned sink = walk(root);
		(void)sink;
		import_ydoc_free(root);
	}
	return 0;
}
