/* YAML documents read with libyaml into a small tree, enough for
 * tpm2-algtest's performance.yaml (recorder/import/profile_import.c): block and flow
 * mappings and sequences, every scalar style. Aliases are refused (a file
 * that expands one anchor many times could exhaust memory), as are mapping
 * keys that are not scalars, nesting deeper than YDOC_MAX_DEPTH and more
 * than one document.
 *
 * The names start with ydoc_, not yaml_: libyaml exports yaml_* symbols
 * (yaml_free among them), and a function of the same name here would replace
 * libyaml's own at link time. */
#ifndef TPMTRACE_YAML_H
#define TPMTRACE_YAML_H

#include <stddef.h>

#define YDOC_MAX_DEPTH 64

enum ydoc_kind {
	YDOC_SCALAR = 0,
	YDOC_MAP,
	YDOC_SEQ,
};

struct ynode {
	enum ydoc_kind kind;
	char *key;	     /* the key when this node is a mapping value, else NULL */
	char *value;	     /* scalar text ("" for an empty value) */
	unsigned line;	     /* 1-based */
	struct ynode *child; /* first entry of a map or seq */
	struct ynode *next;  /* next sibling */
};

/* Parses text; name is used in messages ("NAME:LINE: what"). Returns 0 with
 * *root set (an empty document gives an empty mapping), or -EINVAL/-ENOMEM
 * with err filled. */
int import_ydoc_parse(const char *text, size_t len, const char *name, struct ynode **root,
		      char *err, size_t errlen);
void import_ydoc_free(struct ynode *n);
/* The value of key in a map, or NULL. */
const struct ynode *import_ydoc_get(const struct ynode *map, const char *key);

#endif
