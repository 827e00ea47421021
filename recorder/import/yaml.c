/* YAML through libyaml's event parser (see yaml.h). */
#include "recorder/import/yaml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

struct ybuild {
	yaml_parser_t p;
	const char *name;
	char *err;
	size_t errlen;
	int depth;
};

static int fail(struct ybuild *b, size_t line0, const char *msg, const char *detail)
{
	snprintf(b->err, b->errlen, "%s:%zu: %s%s%s", b->name, line0 + 1, msg, detail ? ": " : "",
		 detail ? detail : "");
	return -EINVAL;
}

static int parse_fail(struct ybuild *b)
{
	if (b->p.error == YAML_MEMORY_ERROR) {
		snprintf(b->err, b->errlen, "%s: out of memory", b->name);
		return -ENOMEM;
	}
	return fail(b, b->p.problem_mark.line, b->p.problem ? b->p.problem : "not valid YAML",
		    b->p.context);
}

static int next_event(struct ybuild *b, yaml_event_t *ev)
{
	return yaml_parser_parse(&b->p, ev) ? 0 : parse_fail(b);
}

void import_ydoc_free(struct ynode *n)
{
	while (n) {
		struct ynode *next = n->next;
		import_ydoc_free(n->child);
		free(n->key);
		free(n->value);
		free(n);
		n = next;
	}
}

const struct ynode *import_ydoc_get(const struct ynode *map, const char *key)
{
	if (!map || map->kind != YDOC_MAP)
		return NULL;
	for (const struct ynode *c = map->child; c; c = c->next)
		if (c->key && !strcmp(c->key, key))
			return c;
	return NULL;
}

static struct ynode *node_new(enum ydoc_kind kind, size_t line0)
{
	struct ynode *n = calloc(1, sizeof *n);
	if (n) {
		n->kind = kind;
		n->line = (unsigned)(line0 + 1);
	}
	return n;
}

static int build_node(struct ybuild *b, yaml_event_t *ev, struct ynode **out);

/* Reads the entries of a collection up to its end event. */
static int build_children(struct ybuild *b, struct ynode *parent, yaml_event_type_t end)
{
	struct ynode **tail = &parent->child;
	int rc = 0;
	for (;;) {
		yaml_event_t ev;
		char *key = NULL;
		if ((rc = next_event(b, &ev)))
			return rc;
		if (ev.type == end) {
			yaml_event_delete(&ev);
			return 0;
		}
		if (parent->kind == YDOC_MAP) {
			if (ev.type != YAML_SCALAR_EVENT) {
				rc = fail(b, ev.start_mark.line,
					  "a mapping key that is not a scalar", NULL);
				yaml_event_delete(&ev);
				return rc;
			}
			key = strndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
			yaml_event_delete(&ev);
			if (!key)
				return -ENOMEM;
			if ((rc = next_event(b, &ev))) {
				free(key);
				return rc;
			}
		}
		struct ynode *n = NULL;
		rc = build_node(b, &ev, &n);
		yaml_event_delete(&ev);
		if (rc) {
			free(key);
			return rc;
		}
		n->key = key;
		*tail = n;
		tail = &n->next;
	}
}

/* Builds the node that starts with ev (which the caller deletes). */
static int build_node(struct ybuild *b, yaml_event_t *ev, struct ynode **out)
{
	struct ynode *n;
	int rc;
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		if (!(n = node_new(YDOC_SCALAR, ev->start_mark.line)))
			return -ENOMEM;
		n->value = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		if (!n->value) {
			free(n);
			return -ENOMEM;
		}
		*out = n;
		return 0;
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT:
		if (b->depth >= YDOC_MAX_DEPTH)
			return fail(b, ev->start_mark.line, "nested too deeply", NULL);
		n = node_new(ev->type == YAML_MAPPING_START_EVENT ? YDOC_MAP : YDOC_SEQ,
			     ev->start_mark.line);
		if (!n)
			return -ENOMEM;
		b->depth++;
		rc = build_children(
		    b, n, n->kind == YDOC_MAP ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT);
		b->depth--;
		if (rc) {
			import_ydoc_free(n);
			return rc;
		}
		*out = n;
		return 0;
	case YAML_ALIAS_EVENT:
		return fail(b, ev->start_mark.line, "aliases are not supported", NULL);
	default:
		return fail(b, ev->start_mark.line, "unexpected YAML event", NULL);
	}
}

int import_ydoc_parse(const char *text, size_t len, const char *name, struct ynode **root,
		      char *err, size_t errlen)
{
	struct ybuild b = {.name = name, .err = err, .errlen = errlen};
	struct ynode *doc = NULL;
	yaml_event_t ev;
	int rc;

	*root = NULL;
	if (!yaml_parser_initialize(&b.p)) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&b.p, (const unsigned char *)text, len);
	/* STREAM-START, then DOCUMENT-START or STREAM-END for an empty file. */
	for (;;) {
		if ((rc = next_event(&b, &ev)))
			goto out;
		yaml_event_type_t t = ev.type;
		size_t line0 = ev.start_mark.line;
		if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_START_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		if (t == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (t == YAML_DOCUMENT_END_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		if (doc) {
			yaml_event_delete(&ev);
			rc = fail(&b, line0, "more than one document", NULL);
			goto out;
		}
		rc = build_node(&b, &ev, &doc);
		yaml_event_delete(&ev);
		if (rc)
			goto out;
	}
	if (!doc && !(doc = node_new(YDOC_MAP, 0))) {
		rc = -ENOMEM;
		goto out;
	}
	*root = doc;
	doc = NULL;
out:
	import_ydoc_free(doc);
	yaml_parser_delete(&b.p);
	return rc;
}
