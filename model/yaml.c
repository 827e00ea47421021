#include "model/yaml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct yline {
	unsigned no;	 /* 1-based line number */
	unsigned indent; /* columns of leading spaces */
	char *s;	 /* content after the indentation, comment stripped */
};

struct yparser {
	struct yline *l;
	size_t n, i;
	const char *name;
	char *err;
	size_t errlen;
	int depth;
};

static int fail(struct yparser *y, unsigned line, const char *msg, const char *detail)
{
	snprintf(y->err, y->errlen, "%s:%u: %s%s%s", y->name, line, msg, detail ? ": " : "",
		 detail ? detail : "");
	return -EINVAL;
}

void yaml_free(struct ynode *n)
{
	while (n) {
		struct ynode *next = n->next;
		yaml_free(n->child);
		free(n->key);
		free(n->value);
		free(n);
		n = next;
	}
}

const struct ynode *yaml_get(const struct ynode *map, const char *key)
{
	if (!map || map->kind != YAML_MAP)
		return NULL;
	for (const struct ynode *c = map->child; c; c = c->next)
		if (c->key && !strcmp(c->key, key))
			return c;
	return NULL;
}

/* Strips a comment: '#' at the start or after a blank, outside quotes. */
static void strip_comment(char *s)
{
	char q = 0;
	for (char *p = s; *p; p++) {
		if (q) {
			if (*p == '\\' && q == '"' && p[1])
				p++;
			else if (*p == q)
				q = 0;
		} else if (*p == '"' || *p == '\'') {
			q = *p;
		} else if (*p == '#' && (p == s || p[-1] == ' ')) {
			*p = 0;
			break;
		}
	}
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = 0;
}

/* Finds the ':' that ends a key (followed by a blank or the end), outside
 * quotes. Returns NULL if the text is not "key: ...". */
static char *key_colon(char *s)
{
	char q = 0;
	for (char *p = s; *p; p++) {
		if (q) {
			if (*p == '\\' && q == '"' && p[1])
				p++;
			else if (*p == q)
				q = 0;
		} else if ((*p == '"' || *p == '\'') && p == s) {
			q = *p;
		} else if (*p == ':' && (p[1] == 0 || p[1] == ' ')) {
			return p;
		}
	}
	return NULL;
}

/* Decodes a scalar (plain or quoted) into a new string. */
static int scalar(struct yparser *y, unsigned line, const char *s, char **out)
{
	size_t n = strlen(s);
	char *o = malloc(n + 1), *w = o;
	if (!o)
		return -ENOMEM;
	if (*s == '"' || *s == '\'') {
		char q = *s++;
		for (;; s++) {
			if (!*s) {
				free(o);
				return fail(y, line, "unterminated quoted string", NULL);
			}
			if (*s == q) {
				if (q == '\'' && s[1] == '\'') {
					*w++ = *s++;
					continue;
				}
				break;
			}
			if (q == '"' && *s == '\\') {
				s++;
				switch (*s) {
				case 'n':
					*w++ = '\n';
					break;
				case 't':
					*w++ = '\t';
					break;
				case '"':
				case '\\':
				case '/':
					*w++ = *s;
					break;
				default:
					free(o);
					return fail(y, line,
						    "unsupported escape in a quoted string", NULL);
				}
				continue;
			}
			*w++ = *s;
		}
		if (s[1]) {
			free(o);
			return fail(y, line, "text after a quoted string", s + 1);
		}
	} else {
		if (strchr("[{&*!|>%@`", *s) && *s) {
			free(o);
			return fail(y, line, "unsupported YAML (flow, anchor, tag or block scalar)",
				    s);
		}
		memcpy(o, s, n);
		w = o + n;
	}
	*w = 0;
	*out = o;
	return 0;
}

static int is_item(const char *s)
{
	return s[0] == '-' && (s[1] == 0 || s[1] == ' ');
}

static int parse_node(struct yparser *y, unsigned indent, struct ynode **out);

static struct ynode *node_new(enum ynode_kind k, unsigned line)
{
	struct ynode *n = calloc(1, sizeof *n);
	if (n) {
		n->kind = k;
		n->line = line;
	}
	return n;
}

/* The value after "key:" or "-" with nothing on the line: the block below,
 * or an empty scalar. A sequence may sit at its key's indent. */
static int parse_child_block(struct yparser *y, unsigned indent, int allow_same_indent_seq,
			     unsigned line, struct ynode **out)
{
	if (y->i < y->n &&
	    (y->l[y->i].indent > indent ||
	     (allow_same_indent_seq && y->l[y->i].indent == indent && is_item(y->l[y->i].s))))
		return parse_node(y, y->l[y->i].indent, out);
	*out = node_new(YAML_SCALAR, line);
	if (!*out || !((*out)->value = strdup("")))
		return -ENOMEM;
	return 0;
}

static int parse_map(struct yparser *y, unsigned indent, struct ynode *map)
{
	struct ynode **tail = &map->child;
	while (y->i < y->n && y->l[y->i].indent == indent && !is_item(y->l[y->i].s)) {
		struct yline *ln = &y->l[y->i];
		char *colon = key_colon(ln->s);
		struct ynode *v = NULL;
		char *key = NULL;
		int rc;
		if (!colon)
			return fail(y, ln->no, "expected 'key: value'", ln->s);
		*colon = 0;
		if ((rc = scalar(y, ln->no, ln->s, &key)))
			return rc;
		if (yaml_get(map, key)) {
			rc = fail(y, ln->no, "duplicate key", key);
			free(key);
			return rc;
		}
		char *val = colon + 1;
		while (*val == ' ')
			val++;
		y->i++;
		if (*val) {
			v = node_new(YAML_SCALAR, ln->no);
			if (!v) {
				free(key);
				return -ENOMEM;
			}
			rc = scalar(y, ln->no, val, &v->value);
		} else {
			rc = parse_child_block(y, indent, 1, ln->no, &v);
		}
		if (v) {
			v->key = key;
			*tail = v;
			tail = &v->next;
		} else {
			free(key);
		}
		if (rc)
			return rc;
	}
	if (y->i < y->n && y->l[y->i].indent > indent)
		return fail(y, y->l[y->i].no, "unexpected indentation", NULL);
	return 0;
}

static int parse_seq(struct yparser *y, unsigned indent, struct ynode *seq)
{
	struct ynode **tail = &seq->child;
	while (y->i < y->n && y->l[y->i].indent == indent && is_item(y->l[y->i].s)) {
		struct yline *ln = &y->l[y->i];
		struct ynode *v = NULL;
		int rc;
		char *rest = ln->s + 1;
		while (*rest == ' ')
			rest++;
		if (!*rest) {
			y->i++;
			rc = parse_child_block(y, indent, 0, ln->no, &v);
		} else if (key_colon(rest)) {
			/* "- key: value": a mapping whose keys line up with this one. */
			ln->indent += (unsigned)(rest - ln->s);
			ln->s = rest;
			rc = parse_node(y, ln->indent, &v);
		} else {
			y->i++;
			v = node_new(YAML_SCALAR, ln->no);
			rc = v ? scalar(y, ln->no, rest, &v->value) : -ENOMEM;
		}
		if (v) {
			*tail = v;
			tail = &v->next;
		}
		if (rc)
			return rc;
	}
	if (y->i < y->n && y->l[y->i].indent > indent)
		return fail(y, y->l[y->i].no, "unexpected indentation", NULL);
	return 0;
}

static int parse_node(struct yparser *y, unsigned indent, struct ynode **out)
{
	struct ynode *n;
	int rc;
	if (++y->depth > 64)
		return fail(y, y->l[y->i].no, "nesting deeper than 64 levels", NULL);
	n = node_new(is_item(y->l[y->i].s) ? YAML_SEQ : YAML_MAP, y->l[y->i].no);
	if (!n)
		return -ENOMEM;
	*out = n;
	rc = n->kind == YAML_SEQ ? parse_seq(y, indent, n) : parse_map(y, indent, n);
	y->depth--;
	return rc;
}

int yaml_parse(const char *text, size_t len, const char *name, struct ynode **root, char *err,
	       size_t errlen)
{
	struct yparser y = {.name = name, .err = err, .errlen = errlen};
	char *buf = malloc(len + 1);
	size_t cap = 0;
	unsigned no = 0;
	int rc = 0;

	*root = NULL;
	if (!buf)
		return -ENOMEM;
	memcpy(buf, text, len);
	buf[len] = 0;
	if (memchr(text, 0, len)) {
		rc = fail(&y, 1, "binary data (NUL byte), not YAML", NULL);
		goto out;
	}
	for (char *line = buf, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		no++;
		unsigned ind = 0;
		while (line[ind] == ' ')
			ind++;
		if (line[ind] == '\t') {
			rc = fail(&y, no, "tab in indentation (YAML allows spaces only)", NULL);
			goto out;
		}
		char *s = line + ind;
		strip_comment(s);
		if (!*s)
			continue;
		if (!strcmp(s, "---") && !y.n)
			continue;
		if (!strcmp(s, "---") || !strcmp(s, "...")) {
			rc = fail(&y, no, "several YAML documents are not supported", NULL);
			goto out;
		}
		if (y.n == cap) {
			cap = cap ? cap * 2 : 256;
			struct yline *nl = realloc(y.l, cap * sizeof *nl);
			if (!nl) {
				rc = -ENOMEM;
				goto out;
			}
			y.l = nl;
		}
		y.l[y.n++] = (struct yline){.no = no, .indent = ind, .s = s};
	}
	if (!y.n) {
		rc = fail(&y, no ? no : 1, "empty document", NULL);
		goto out;
	}
	if (y.l[0].indent) {
		rc = fail(&y, y.l[0].no, "the document must start at column 1", NULL);
		goto out;
	}
	rc = parse_node(&y, 0, root);
	if (!rc && y.i < y.n)
		rc = fail(&y, y.l[y.i].no, "unexpected text", y.l[y.i].s);
out:
	if (rc) {
		yaml_free(*root);
		*root = NULL;
	}
	free(y.l);
	free(buf);
	return rc;
}
