/* recorder/import/yaml.c: documents read through libyaml into the ynode tree that the
 * TPMScan importer walks; the refusals (aliases, non-scalar keys, depth, two
 * documents, syntax errors) name the file and line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "recorder/import/yaml.h"
#include "testlib.h"

static struct ynode *parse_ok(const char *text)
{
	struct ynode *root = NULL;
	char err[256] = "";
	int rc = import_ydoc_parse(text, strlen(text), "t.yaml", &root, err, sizeof err);
	CHECK(rc == 0 && root, "parses: %s", err);
	return root;
}

static void parse_bad(const char *text, const char *want)
{
	struct ynode *root = NULL;
	char err[256] = "";
	int rc = import_ydoc_parse(text, strlen(text), "t.yaml", &root, err, sizeof err);
	CHECK(rc == -EINVAL && !root, "refused (%d): %s", rc, text);
	CHECK(strstr(err, want) != NULL, "message '%s' contains '%s'", err, want);
}

static void test_tree(void)
{
	const char *doc = "# a comment\n"
			  "Manufacturer: IFX\n"
			  "Firmware version: '7.85'\n"
			  "empty:\n"
			  "TPM2_Create:\n"
			  "- operation info:\n"
			  "    key params: RSA 2048\n"
			  "  operation stats (ms/op):\n"
			  "    avg op: 12.5\n"
			  "- {operation info: {key params: ECC 0x0003}, flow: [1, 2]}\n";
	struct ynode *r = parse_ok(doc);
	if (!r)
		return;
	CHECK(r->kind == YDOC_MAP && r->line == 2, "top is a mapping from line 2 (%u)", r->line);
	const struct ynode *m = import_ydoc_get(r, "Manufacturer");
	CHECK(m && m->kind == YDOC_SCALAR && !strcmp(m->value, "IFX"), "plain scalar");
	const struct ynode *f = import_ydoc_get(r, "Firmware version");
	CHECK(f && !strcmp(f->value, "7.85") && f->line == 3, "quoted scalar on line 3");
	const struct ynode *e = import_ydoc_get(r, "empty");
	CHECK(e && e->kind == YDOC_SCALAR && !strcmp(e->value, ""), "an empty value is \"\"");
	CHECK(!import_ydoc_get(r, "missing") && !import_ydoc_get(m, "x"),
	      "absent keys and non-maps give NULL");
	const struct ynode *c = import_ydoc_get(r, "TPM2_Create");
	CHECK(c && c->kind == YDOC_SEQ, "block sequence");
	const struct ynode *it = c ? c->child : NULL;
	const struct ynode *kp =
	    import_ydoc_get(import_ydoc_get(it, "operation info"), "key params");
	CHECK(kp && !strcmp(kp->value, "RSA 2048") && kp->line == 7, "nested block mapping");
	const struct ynode *avg =
	    import_ydoc_get(import_ydoc_get(it, "operation stats (ms/op)"), "avg op");
	CHECK(avg && !strcmp(avg->value, "12.5"), "key with blanks and parentheses");
	const struct ynode *it2 = it ? it->next : NULL;
	const struct ynode *kp2 =
	    import_ydoc_get(import_ydoc_get(it2, "operation info"), "key params");
	CHECK(kp2 && !strcmp(kp2->value, "ECC 0x0003") && kp2->line == 10, "flow mapping");
	const struct ynode *fl = import_ydoc_get(it2, "flow");
	CHECK(fl && fl->kind == YDOC_SEQ && fl->child && fl->child->next &&
		  !strcmp(fl->child->next->value, "2") && !fl->child->next->next,
	      "flow sequence of two");
	import_ydoc_free(r);
}

static void test_empty(void)
{
	struct ynode *r = parse_ok("");
	CHECK(r && r->kind == YDOC_MAP && !r->child, "an empty file is an empty mapping");
	import_ydoc_free(r);
	r = parse_ok("# only a comment\n");
	CHECK(r && r->kind == YDOC_MAP && !r->child, "a comment alone is an empty mapping");
	import_ydoc_free(r);
}

static void test_refusals(void)
{
	parse_bad("a: &x 1\nb: *x\n", "t.yaml:2: aliases are not supported");
	parse_bad("? [1, 2]\n: v\n", "t.yaml:1: a mapping key that is not a scalar");
	parse_bad("a: 1\n---\nb: 2\n", "t.yaml:3: more than one document");
	parse_bad("a: [1, 2\nb: 3\n", "t.yaml:");
	parse_bad("a: 'unterminated\n", "t.yaml:");
	char deep[4 * YDOC_MAX_DEPTH + 8];
	size_t n = 0;
	for (int i = 0; i <= YDOC_MAX_DEPTH; i++)
		deep[n++] = '[';
	for (int i = 0; i <= YDOC_MAX_DEPTH; i++)
		deep[n++] = ']';
	deep[n] = 0;
	parse_bad(deep, "t.yaml:1: nested too deeply");
}

int main(void)
{
	test_tree();
	test_empty();
	test_refusals();
	return tl_finish("test_yaml");
}
