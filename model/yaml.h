/* A small YAML subset, enough for tpm2-algtest's performance.yaml: block
 * mappings ("key: value", "key:" + indented block), block sequences ("- ",
 * also compact "- key: value" items and sequences at their key's indent),
 * plain, single- and double-quoted scalars, '#' comments. Anything else
 * (flow collections, anchors, tags, block scalars, tabs in indentation,
 * several documents) is rejected with FILE:LINE. */
#ifndef TPMTRACE_YAML_H
#define TPMTRACE_YAML_H

#include <stddef.h>

enum ynode_kind {
	YAML_SCALAR = 0,
	YAML_MAP,
	YAML_SEQ,
};

struct ynode {
	enum ynode_kind kind;
	char *key;   /* the key when this node is a mapping value, else NULL */
	char *value; /* scalar text ("" for an empty value) */
	unsigned line;
	struct ynode *child; /* first entry of a map or seq */
	struct ynode *next;  /* next sibling */
};

/* Parses text; name is used in messages. Returns 0 or -EINVAL/-ENOMEM. */
int yaml_parse(const char *text, size_t len, const char *name, struct ynode **root, char *err,
	       size_t errlen);
void yaml_free(struct ynode *n);
/* The value of key in a map, or NULL. */
const struct ynode *yaml_get(const struct ynode *map, const char *key);

#endif
