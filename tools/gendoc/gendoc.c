/* tpmtrace-gendoc: writes tpmtrace(1), tpm-cuse-proxy(8) and their bash
 * completions from the option tables (tools/tpmtrace/cli.h: the
 * subcommands', and tools/tpm-cuse-proxy/cuse_options.c's), at build time,
 * so that none can drift from the programs:
 *	tpmtrace-gendoc man docs/man/tpmtrace.1.in OUT
 *	tpmtrace-gendoc bash OUT
 *	tpmtrace-gendoc cuse-man docs/man/tpm-cuse-proxy.8.in OUT
 *	tpmtrace-gendoc cuse-bash OUT
 * A man page template holds the prose; lines @SUBCOMMANDS@ (tpmtrace),
 * @SYNOPSIS@, @OPTIONS@ and @EXAMPLES@ (a program of one table) stand for
 * the generated parts, and @VERSION@ for the version. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/policy.h"
#include "model/profile.h"
#include "tools/tpm-cuse-proxy/cuse_options.h"
#include "tools/tpmtrace/cli.h"

/* Text for roff: backslashes and hyphens escaped. */
static void roff(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		if (s[i] == '\\')
			fputs("\\e", f);
		else if (s[i] == '-')
			fputs("\\-", f);
		else
			fputc(s[i], f);
	}
}

/* One line of text: a leading '.' or '\'' would be a request. */
static void roff_line(FILE *f, const char *s, size_t n)
{
	if (n && (s[0] == '.' || s[0] == '\''))
		fputs("\\&", f);
	roff(f, s, n);
	fputc('\n', f);
}

/* Paragraphs separated by blank lines; one with indented lines is kept as
 * it is laid out (.nf), others are filled. */
static void roff_text(FILE *f, const char *text)
{
	const char *s = text;
	while (s && *s) {
		const char *end = strstr(s, "\n\n");
		size_t plen = end ? (size_t)(end - s) : strlen(s);
		int pre = 0;
		for (const char *q = s; q < s + plen; q += strcspn(q, "\n") + 1) {
			if (*q == ' ')
				pre = 1;
			if (!q[strcspn(q, "\n")])
				break;
		}
		fputs(".PP\n", f);
		if (pre)
			fputs(".nf\n", f);
		for (const char *q = s; q < s + plen;) {
			size_t k = strcspn(q, "\n");
			if (q + k > s + plen)
				k = (size_t)(s + plen - q);
			roff_line(f, q, k);
			q += k + 1;
		}
		if (pre)
			fputs(".fi\n", f);
		s = end ? end + 2 : NULL;
	}
}

/* A synopsis word: options bold, names of values italic. */
static void roff_token_(FILE *f, const char *tok);
static void roff_token(FILE *f, const char *tok)
{
	roff_token_(f, tok);
	/* "FILE..." ends no sentence: no extra space after it. */
	if (*tok && tok[strlen(tok) - 1] == '.')
		fputs("\\&", f);
}

static void roff_token_(FILE *f, const char *tok)
{
	for (const char *s = tok; *s;) {
		if (*s == '-' && (s == tok || strchr(" [(|", s[-1]))) {
			size_t k = strcspn(s, " ]|)");
			fputs("\\fB", f);
			roff(f, s, k);
			fputs("\\fR", f);
			s += k;
		} else if (isupper((unsigned char)*s) || (*s == 't' && !strncmp(s, "tcp:", 4))) {
			size_t k = strcspn(s, " ]|)");
			fputs("\\fI", f);
			roff(f, s, k);
			fputs("\\fR", f);
			s += k;
		} else if (*s == ' ' && s[1] != '|' && (s == tok || s[-1] != '|')) {
			fputs("\\ ", f); /* no line break inside an option and its value */
			s++;
		} else {
			roff(f, s, 1);
			s++;
		}
	}
}

static void man_token(void *f, const char *tok)
{
	roff_token(f, tok);
	fputc('\n', f);
}

static void man_synopsis(FILE *f, const struct subcommand *sc, const struct cli_form *fm)
{
	char tok[600];
	/* .SY/.YS (groff's man extensions): the form as one hanging block. */
	fprintf(f, ".SY \"%s\"\n", cli_title(sc, tok, sizeof tok));
	for (const char *s = fm && fm->head ? fm->head : ""; *s;) {
		size_t k = strcspn(s, " ");
		snprintf(tok, sizeof tok, "%.*s", (int)k, s);
		if (isupper((unsigned char)tok[0]) || tok[0] == '[') {
			roff_token(f, tok);
		} else {
			fputs("\\fB", f);
			roff(f, tok, k);
			fputs("\\fR", f);
		}
		fputc('\n', f);
		s += k + (s[k] == ' ');
	}
	cli_synopsis_options(sc, fm, man_token, f);
	if (fm && fm->tail) {
		roff_token(f, fm->tail);
		fputc('\n', f);
	}
	fputs(".YS\n", f);
}

static void man_synopses(FILE *f, const struct subcommand *sc)
{
	static const struct cli_form any = {0, NULL, NULL};
	unsigned nf = sc->n_forms ? sc->n_forms : 1;
	for (unsigned i = 0; i < nf; i++)
		man_synopsis(f, sc, sc->n_forms ? &sc->forms[i] : &any);
}

/* Each option shown, as a tagged paragraph, and -h, --help. */
static void man_options(FILE *f, const struct subcommand *sc, int with_help)
{
	for (unsigned i = 0; i < sc->n_opts; i++) {
		const struct cli_opt *o = &sc->opts[i];
		if (o->flags & CLI_HIDDEN)
			continue;
		fputs(".TP\n", f);
		if (o->key > 0 && o->key < 128 && isalpha(o->key))
			fprintf(f, "\\fB\\-%c\\fR, ", o->key);
		fputs("\\fB\\-\\-", f);
		roff(f, o->name, strlen(o->name));
		fputs("\\fR", f);
		if (o->arg) {
			fputs(" \\fI", f);
			roff(f, o->arg, strlen(o->arg));
			fputs("\\fR", f);
		}
		fputc('\n', f);
		for (const char *s = o->help; s && *s;) {
			size_t k = strcspn(s, "\n");
			roff_line(f, s, k);
			s += k + (s[k] == '\n');
		}
	}
	if (with_help)
		fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nprint the usage and exit.\n", f);
}

/* The examples, one command a line, indented and not filled. */
static void man_examples(FILE *f, const struct subcommand *sc)
{
	fputs(".PP\n.RS\n.nf\n", f);
	for (const char *s = sc->examples; s && *s;) {
		size_t k = strcspn(s, "\n");
		roff_line(f, s, k);
		s += k + (s[k] == '\n');
	}
	fputs(".fi\n.RE\n", f);
}

static void man_subcommand(FILE *f, const struct subcommand *sc)
{
	fprintf(f, ".SS %s\n", sc->name);
	man_synopses(f, sc);
	if (sc->description)
		roff_text(f, sc->description);
	fputs(".PP\nOptions:\n", f);
	man_options(f, sc, 0);
	if (sc->more)
		roff_text(f, sc->more);
	if (sc->examples) {
		fputs(".PP\nExamples:\n", f);
		man_examples(f, sc);
	}
}

/* The template with its @...@ lines filled: tpmtrace's subcommands when sc
 * is NULL, else the synopsis, options and examples of program sc. */
static int man(const char *tmpl, FILE *out, const struct subcommand *sc)
{
	FILE *in = fopen(tmpl, "r");
	char line[4096];
	if (!in) {
		fprintf(stderr, "tpmtrace-gendoc: %s: %s\n", tmpl, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof line, in)) {
		if (!sc && !strcmp(line, "@SUBCOMMANDS@\n")) {
			for (unsigned i = 0; i < cli_n_subcommands; i++)
				man_subcommand(out, cli_subcommands[i]);
			continue;
		}
		if (sc && !strcmp(line, "@SYNOPSIS@\n")) {
			man_synopses(out, sc);
			continue;
		}
		if (sc && !strcmp(line, "@OPTIONS@\n")) {
			man_options(out, sc, 1);
			continue;
		}
		if (sc && !strcmp(line, "@EXAMPLES@\n")) {
			man_examples(out, sc);
			continue;
		}
		char *v = strstr(line, "@VERSION@");
		if (v) {
			*v = 0;
			fprintf(out, "%s%s%s", line, TPMTRACE_VERSION, v + 9);
			continue;
		}
		fputs(line, out);
	}
	fclose(in);
	return 0;
}

/* What to offer for an option's value. */
static void bash_values(FILE *f, const char *values)
{
	if (!values || !strcmp(values, "@file")) {
		fputs("COMPREPLY=($(compgen -f -- \"$cur\"))", f);
	} else if (!strcmp(values, "@dir")) {
		fputs("COMPREPLY=($(compgen -d -- \"$cur\"))", f);
	} else if (!strcmp(values, "@profile")) {
		char buf[128];
		fputs("COMPREPLY=($(compgen -W \"", f);
		for (unsigned i = 0; i < profile_builtin_count(); i++)
			fprintf(f, "%s%s", i ? " " : "", profile_builtin_name(i, buf, sizeof buf));
		fputs("\" -- \"$cur\") $(compgen -f -- \"$cur\"))", f);
	} else if (!strcmp(values, "@policy") || !strcmp(values, "@policy-all")) {
		const char *n;
		fputs("COMPREPLY=($(compgen -W \"", f);
		for (unsigned i = 0; (n = policy_preset_name(i)); i++)
			fprintf(f, "%s%s", i ? " " : "", n);
		fprintf(f, "%s\" -- \"$cur\"))", values[7] ? " all" : "");
	} else if (!strcmp(values, "@tcti")) {
		fputs("COMPREPLY=($(compgen -W \"spawn device:/dev/tpmrm0 device:/dev/tpm0 swtpm: "
		      "mssim: tabrmd\" -- \"$cur\"))",
		      f);
	} else {
		fprintf(f, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))", values);
	}
}

/* The COMPREPLY line for the value of option o. */
static void bash_option_value(FILE *f, const struct cli_opt *o)
{
	if (!o->values && !(o->flags & (CLI_TRACE | CLI_NUM | CLI_REAL)) &&
	    strcmp(o->arg, "FILE") && strcmp(o->arg, "OUT") && strcmp(o->arg, "DB"))
		fputs("COMPREPLY=()", f);
	else if (o->flags & CLI_TRACE)
		fputs("COMPREPLY=($(compgen -W \"latest latest-replay\" -- \"$cur\"))", f);
	else if (o->flags & (CLI_NUM | CLI_REAL))
		fputs("COMPREPLY=()", f);
	else
		bash_values(f, o->values);
}

static int bash(FILE *f)
{
	fputs("# bash completion for tpmtrace(1), generated by tpmtrace-gendoc from the option\n"
	      "# tables of tools/tpmtrace/cmd_*.c: do not edit.\n"
	      "_tpmtrace()\n{\n"
	      "\tlocal cur prev words cword\n"
	      "\t_init_completion 2>/dev/null || {\n"
	      "\t\tcur=${COMP_WORDS[COMP_CWORD]}\n"
	      "\t\tprev=${COMP_WORDS[COMP_CWORD - 1]}\n"
	      "\t\twords=(\"${COMP_WORDS[@]}\")\n"
	      "\t\tcword=$COMP_CWORD\n"
	      "\t}\n"
	      "\tif [ \"$cword\" -eq 1 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"",
	      f);
	for (unsigned i = 0; i < cli_n_subcommands; i++)
		fprintf(f, "%s ", cli_subcommands[i]->name);
	fputs("--help --version\" -- \"$cur\"))\n\t\treturn\n\tfi\n"
	      "\tlocal sub=${words[1]} i\n"
	      "\t# After --: a command and its arguments (record, vm-record).\n"
	      "\tfor ((i = 2; i < cword; i++)); do\n"
	      "\t\tif [ \"${words[i]}\" = -- ]; then\n"
	      "\t\t\tif [ $((i + 1)) -eq \"$cword\" ]; then COMPREPLY=($(compgen -c -- \"$cur\"));"
	      " else COMPREPLY=($(compgen -f -- \"$cur\")); fi\n"
	      "\t\t\treturn\n\t\tfi\n\tdone\n"
	      "\tcase \"$sub $prev\" in\n",
	      f);
	for (unsigned i = 0; i < cli_n_subcommands; i++) {
		const struct subcommand *sc = cli_subcommands[i];
		for (unsigned j = 0; j < sc->n_opts; j++) {
			const struct cli_opt *o = &sc->opts[j];
			if (!o->arg)
				continue;
			fprintf(f, "\t\"%s --%s\"", sc->name, o->name);
			if (o->key > 0 && o->key < 128 && isalpha(o->key))
				fprintf(f, " | \"%s -%c\"", sc->name, o->key);
			fputs(")\n\t\t", f);
			bash_option_value(f, o);
			fputs("\n\t\treturn ;;\n", f);
		}
	}
	fputs("\tesac\n\tlocal opts= first=\n\tcase $sub in\n", f);
	for (unsigned i = 0; i < cli_n_subcommands; i++) {
		const struct subcommand *sc = cli_subcommands[i];
		fprintf(f, "\t%s)\n\t\topts=\"", sc->name);
		for (unsigned j = 0; j < sc->n_opts; j++) {
			const struct cli_opt *o = &sc->opts[j];
			if (o->flags & CLI_HIDDEN)
				continue;
			fprintf(f, "--%s ", o->name);
			if (o->key > 0 && o->key < 128 && isalpha(o->key))
				fprintf(f, "-%c ", o->key);
		}
		fputs("--help\"", f);
		if (sc->first_words)
			fprintf(f, "\n\t\tfirst=\"%s\"", sc->first_words);
		fputs(" ;;\n", f);
	}
	fputs("\tesac\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\t\treturn\n\tfi\n"
	      "\tif [ -n \"$first\" ] && [ \"$cword\" -eq 2 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$first\" -- \"$cur\"))\n"
	      "\t\treturn\n\tfi\n"
	      "\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "}\ncomplete -F _tpmtrace tpmtrace\n",
	      f);
	return 0;
}

/* The completion of a program of one table (tpm-cuse-proxy): an option's
 * value after it, the options after "-", files otherwise. */
static int bash_program(FILE *f, const struct subcommand *sc)
{
	char fn[64];
	size_t n = 0;
	for (const char *s = sc->program; *s && n + 2 < sizeof fn; s++)
		fn[n++] = isalnum((unsigned char)*s) ? *s : '_';
	fn[n] = 0;
	fprintf(f,
		"# bash completion for %s, generated by tpmtrace-gendoc from its option\n"
		"# table (tools/tpm-cuse-proxy/cuse_options.c): do not edit.\n"
		"_%s()\n{\n"
		"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
		"\tcase $prev in\n",
		sc->program, fn);
	for (unsigned j = 0; j < sc->n_opts; j++) {
		const struct cli_opt *o = &sc->opts[j];
		if (!o->arg)
			continue;
		fprintf(f, "\t--%s", o->name);
		if (o->key > 0 && o->key < 128 && isalpha(o->key))
			fprintf(f, " | -%c", o->key);
		fputs(")\n\t\t", f);
		bash_option_value(f, o);
		fputs("\n\t\treturn ;;\n", f);
	}
	fputs("\tesac\n\tif [[ $cur == -* ]]; then\n\t\tCOMPREPLY=($(compgen -W \"", f);
	for (unsigned j = 0; j < sc->n_opts; j++) {
		const struct cli_opt *o = &sc->opts[j];
		if (o->flags & CLI_HIDDEN)
			continue;
		fprintf(f, "--%s ", o->name);
		if (o->key > 0 && o->key < 128 && isalpha(o->key))
			fprintf(f, "-%c ", o->key);
	}
	fprintf(f,
		"--help\" -- \"$cur\"))\n\t\treturn\n\tfi\n"
		"\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
		"}\ncomplete -F _%s %s\n",
		fn, sc->program);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int man_mode = argc == 4 && (!strcmp(mode, "man") || !strcmp(mode, "cuse-man"));
	int cuse = !strncmp(mode, "cuse-", 5);
	if (!man_mode && !(argc == 3 && (!strcmp(mode, "bash") || !strcmp(mode, "cuse-bash")))) {
		fprintf(stderr, "usage: tpmtrace-gendoc man TEMPLATE OUT | bash OUT"
				" | cuse-man TEMPLATE OUT | cuse-bash OUT\n");
		return 2;
	}
	const char *path = argv[argc - 1];
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "tpmtrace-gendoc: %s: %s\n", path, strerror(errno));
		return 1;
	}
	const struct subcommand *sc = cuse ? &cuse_proxy_cli : NULL;
	int rc = man_mode ? man(argv[2], f, sc) : sc ? bash_program(f, sc) : bash(f);
	if (fclose(f) || rc) {
		remove(path);
		return 1;
	}
	return 0;
}
