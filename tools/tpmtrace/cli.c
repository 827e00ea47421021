/* Option tables: parsing, --help and the synopsis (cli.h). */
#include "cli.h"
#include "common.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* fmt printed to stderr for a terminal (db_text_print_term): a file name in it,
 * with an escape sequence or a newline, reaches it as text. */
static void vprint_term(const char *fmt, va_list ap)
{
	char small[1024], *m = small;
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	if (n >= (int)sizeof small && (m = malloc((size_t)n + 1)) != NULL)
		vsnprintf(m, (size_t)n + 1, fmt, again);
	va_end(again);
	db_text_print_term(stderr, m ? m : small);
	if (m && m != small)
		free(m);
}

int cli_error(const char *sub, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "tpmtrace %s: ", sub);
	va_start(ap, fmt);
	vprint_term(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

const char *cli_title(const struct subcommand *sc, char *b, size_t n)
{
	if (sc->program)
		return sc->program;
	snprintf(b, n, "tpmtrace %s", sc->name);
	return b;
}

int cli_usage_error(const struct subcommand *sc, const char *fmt, ...)
{
	va_list ap;
	char tb[128];
	const char *title = cli_title(sc, tb, sizeof tb);
	fprintf(stderr, "%s: ", title);
	va_start(ap, fmt);
	vprint_term(fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", title);
	return EXIT_USAGE;
}

int cli_want_help(const struct subcommand *sc, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cli_help(stdout, sc);
			return 1;
		}
	}
	return 0;
}

/* ---- parsing ---- */

static int is_short(int key)
{
	return key > 0 && key < 128 && isalpha(key);
}

void cli_parse_init(struct cli_parse *p, const struct subcommand *sc, int argc, char **argv)
{
	size_t ns = 0, nl = 0;
	memset(p, 0, sizeof *p);
	p->sc = sc;
	p->argc = argc;
	p->argv = argv;
	if (sc->stop_at_operand)
		p->shorts[ns++] = '+';
	p->shorts[ns++] = ':'; /* a missing value returns ':' */
	for (unsigned i = 0; i < sc->n_opts && i < CLI_MAX_OPTS; i++) {
		const struct cli_opt *o = &sc->opts[i];
		p->lo[nl++] = (struct option){o->name, o->arg ? required_argument : no_argument,
					      NULL, 1000 + (int)i};
		if (is_short(o->key)) {
			p->shorts[ns++] = (char)o->key;
			if (o->arg)
				p->shorts[ns++] = ':';
		}
	}
	p->lo[nl++] = (struct option){"help", no_argument, NULL, 'h'};
	p->lo[nl] = (struct option){0, 0, 0, 0};
	p->shorts[ns++] = 'h';
	p->shorts[ns] = 0;
	/* 0 re-initializes GNU getopt entirely (its permutation state too):
	 * subcommands may run more than once in a process (tests/fuzz). */
	optind = 0;
	opterr = 0;
}

static const struct cli_opt *opt_of(const struct cli_parse *p, int c)
{
	if (c >= 1000 && c < 1000 + (int)p->sc->n_opts)
		return &p->sc->opts[c - 1000];
	for (unsigned i = 0; i < p->sc->n_opts; i++)
		if (p->sc->opts[i].key == c && is_short(c))
			return &p->sc->opts[i];
	return NULL;
}

/* "--name" or "-o" as the user wrote it. */
static void spelled(const struct cli_opt *o, char *b, size_t n)
{
	snprintf(b, n, "--%s", o->name);
}

/* Whether word w is one of the space-separated words of list. */
static int word_in(const char *list, const char *w)
{
	size_t l = strlen(w);
	for (const char *s = list; s && *s;) {
		size_t k = strcspn(s, " ");
		if (k == l && l && !strncmp(s, w, l))
			return 1;
		s += k;
		while (*s == ' ')
			s++;
	}
	return 0;
}

/* "a, b or c" from "a b c". */
static void words_text(const char *list, char *b, size_t n)
{
	size_t used = 0, count = 0, total = 0;
	for (const char *s = list; *s;) {
		size_t k = strcspn(s, " ");
		total += k > 0;
		s += k;
		while (*s == ' ')
			s++;
	}
	b[0] = 0;
	for (const char *s = list; *s && used < n;) {
		size_t k = strcspn(s, " ");
		if (k) {
			count++;
			used += (size_t)snprintf(b + used, n - used, "%s%.*s",
						 count == 1	 ? ""
						 : count < total ? ", "
								 : " or ",
						 (int)k, s);
		}
		s += k;
		while (*s == ' ')
			s++;
	}
}

static int check_value(struct cli_parse *p, const struct cli_opt *o)
{
	const char *v = p->arg;
	char name[64], list[256];
	spelled(o, name, sizeof name);
	if (o->flags & CLI_NUM) {
		char *end;
		errno = 0;
		long long n = strtoll(v, &end, 10);
		if (!*v || *end || errno || n < o->min || n > o->max)
			return cli_usage_error(
			    p->sc, "%s takes a whole number from %lld to %lld, not '%s'", name,
			    o->min, o->max, v);
		p->num = n;
	}
	if (o->flags & CLI_REAL) {
		char *end;
		errno = 0;
		double d = strtod(v, &end);
		if (!*v || *end || errno || !(d >= (double)o->min) || !(d <= (double)o->max))
			return cli_usage_error(p->sc,
					       "%s takes a number from %lld to %lld, not '%s'",
					       name, o->min, o->max, v);
		p->real = d;
	}
	if (o->flags & CLI_U64) {
		char *end;
		errno = 0;
		unsigned long long n = strtoull(v, &end, 0);
		if (!*v || *end || errno || v[0] == '-')
			return cli_usage_error(p->sc, "%s takes an unsigned integer, not '%s'",
					       name, v);
		p->u64 = n;
	}
	if ((o->flags & CLI_CHOICE) && !word_in(o->values, v)) {
		words_text(o->values, list, sizeof list);
		return cli_usage_error(p->sc, "%s takes %s, not '%s'", name, list, v);
	}
	if (o->flags & CLI_TRACE) {
		char *end;
		errno = 0;
		long long n = strtoll(v, &end, 10);
		int num_ok = *v && !*end && !errno && n > 0 && isdigit((unsigned char)v[0]);
		if (!num_ok && strcmp(v, "latest") && strcmp(v, "latest-replay"))
			return cli_usage_error(
			    p->sc,
			    "%s takes a trace id (see 'tpmtrace list'), latest or "
			    "latest-replay, not '%s'",
			    name, v);
	}
	return 0;
}

int cli_next(struct cli_parse *p)
{
	int c = getopt_long(p->argc, p->argv, p->shorts, p->lo, NULL);
	if (c == -1) {
		p->ind = optind;
		return 0;
	}
	if (c == 'h') {
		cli_help(stdout, p->sc);
		return -1;
	}
	if (c == ':' || c == '?') {
		const struct cli_opt *o = opt_of(p, optopt);
		const char *bad = optind > 0 && optind <= p->argc ? p->argv[optind - 1] : "?";
		if (c == ':' && o)
			cli_usage_error(p->sc, "option '--%s' needs a value (%s)", o->name, o->arg);
		else if (o && !o->arg)
			cli_usage_error(p->sc, "option '--%s' takes no value", o->name);
		else if (optopt && optopt < 128)
			cli_usage_error(p->sc, "unknown option '-%c'", optopt);
		else
			cli_usage_error(p->sc, "unknown option '%.*s'", (int)strcspn(bad, "="),
					bad);
		return -1;
	}
	const struct cli_opt *o = opt_of(p, c);
	if (!o)
		return -1;
	p->opt = o;
	p->arg = optarg;
	p->seen |= 1ull << (o - p->sc->opts);
	if (o->arg && check_value(p, o))
		return -1;
	return o->key;
}

int cli_given(const struct cli_parse *p, int key)
{
	for (unsigned i = 0; i < p->sc->n_opts; i++)
		if (p->sc->opts[i].key == key && (p->seen & (1ull << i)))
			return 1;
	return 0;
}

const char *cli_db_operand(const struct cli_parse *p)
{
	if (p->ind == p->argc - 1)
		return p->argv[p->ind];
	cli_usage_error(p->sc,
			p->ind >= p->argc ? "which database? (DB)" : "expected one database file");
	return NULL;
}

int cli_only_mode(const struct cli_parse *p, unsigned mode, const char *why)
{
	for (unsigned i = 0; i < p->sc->n_opts; i++) {
		const struct cli_opt *o = &p->sc->opts[i];
		if ((p->seen & (1ull << i)) && o->modes && !(o->modes & mode))
			return cli_usage_error(p->sc, "--%s does not go %s", o->name, why);
	}
	return 0;
}

/* ---- help ---- */

struct line {
	FILE *f;
	int width, indent, col;
};

static void put_token(struct line *l, const char *s, size_t n)
{
	if (l->col + 1 + (int)n > l->width && l->col > l->indent) {
		fprintf(l->f, "\n%*s", l->indent, "");
		l->col = l->indent;
	} else if (l->col > 0) {
		fputc(' ', l->f);
		l->col++;
	}
	fwrite(s, 1, n, l->f);
	l->col += (int)n;
}

/* The option as the synopsis shows it: "--trace ID" (no brackets). */
static int opt_text(const struct cli_opt *o, char *b, size_t n)
{
	return snprintf(b, n, "%s%s%s%s", is_short(o->key) ? "-" : "--",
			is_short(o->key) ? (char[]){(char)o->key, 0} : o->name, o->arg ? " " : "",
			o->arg ? o->arg : "");
}

int cli_in_form(const struct cli_opt *o, const struct cli_form *fm)
{
	return !(o->flags & CLI_HIDDEN) && (!o->modes || !fm || (o->modes & fm->mode));
}

void cli_option_token(const struct subcommand *sc, const struct cli_form *fm, unsigned i, char *tok,
		      size_t n, uint64_t *done)
{
	const struct cli_opt *o = &sc->opts[i];
	char one[160];
	size_t used = 0;
	if (o->group) {
		/* Alternatives: (a | b) when one is required, else [a | b]. */
		int req = 0, cnt = 0;
		char alts[400];
		for (unsigned j = i; j < sc->n_opts; j++) {
			const struct cli_opt *q = &sc->opts[j];
			if (q->group != o->group || !cli_in_form(q, fm))
				continue;
			req |= !!(q->flags & CLI_REQ);
			opt_text(q, one, sizeof one);
			used += (size_t)snprintf(alts + used, sizeof alts - used, "%s%s",
						 cnt++ ? " | " : "", one);
			*done |= 1ull << j;
		}
		snprintf(tok, n, "%c%s%c", req ? '(' : '[', alts, req ? ')' : ']');
		return;
	}
	*done |= 1ull << i;
	opt_text(o, one, sizeof one);
	if (o->flags & CLI_REQ)
		snprintf(tok, n, "%s%s", one, o->flags & CLI_MULTI ? "..." : "");
	else
		snprintf(tok, n, "[%s]%s", one, o->flags & CLI_MULTI ? "..." : "");
}

void cli_synopsis_options(const struct subcommand *sc, const struct cli_form *fm,
			  void (*emit)(void *ctx, const char *tok), void *ctx)
{
	char tok[600];
	uint64_t done = 0;
	/* Required options and groups first, then the optional ones. */
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < sc->n_opts; i++) {
			const struct cli_opt *o = &sc->opts[i];
			if (!cli_in_form(o, fm) || (done & (1ull << i)))
				continue;
			int req = !!(o->flags & CLI_REQ);
			for (unsigned j = i; o->group && j < sc->n_opts; j++)
				if (sc->opts[j].group == o->group && cli_in_form(&sc->opts[j], fm))
					req |= !!(sc->opts[j].flags & CLI_REQ);
			if (req != !pass)
				continue;
			cli_option_token(sc, fm, i, tok, sizeof tok, &done);
			emit(ctx, tok);
		}
	}
}

static void synopsis_token(void *ctx, const char *tok)
{
	put_token(ctx, tok, strlen(tok));
}

void cli_synopsis(FILE *f, const struct subcommand *sc, const struct cli_form *fm, int width,
		  int indent)
{
	struct line l = {f, width, indent, 0};
	char tok[512];
	const char *title = cli_title(sc, tok, sizeof tok);
	put_token(&l, title, strlen(title));
	l.col = indent; /* "usage: " is already on the line */
	for (const char *s = fm && fm->head ? fm->head : ""; *s;) {
		size_t k = strcspn(s, " ");
		if (k)
			put_token(&l, s, k);
		s += k + (s[k] == ' ');
	}
	cli_synopsis_options(sc, fm, synopsis_token, &l);
	if (fm && fm->tail)
		put_token(&l, fm->tail, strlen(fm->tail));
	fputc('\n', f);
}

static void indented(FILE *f, const char *text, int indent)
{
	for (const char *s = text; s && *s;) {
		size_t k = strcspn(s, "\n");
		fprintf(f, "%*s%.*s\n", indent, "", (int)k, s);
		s += k + (s[k] == '\n');
	}
}

void cli_help(FILE *f, const struct subcommand *sc)
{
	char tb[128];
	int indent = 7 + (int)strlen(cli_title(sc, tb, sizeof tb)) + 1; /* "usage: TITLE " */
	static const struct cli_form any = {0, NULL, NULL};
	unsigned nf = sc->n_forms ? sc->n_forms : 1;
	for (unsigned i = 0; i < nf; i++) {
		fputs(i ? "       " : "usage: ", f);
		cli_synopsis(f, sc, sc->n_forms ? &sc->forms[i] : &any, 80, indent);
	}
	if (sc->description)
		fprintf(f, "\n%s", sc->description);
	fprintf(f, "\nOptions:\n");
	int w = 12;
	char left[160];
	for (unsigned i = 0; i < sc->n_opts; i++) {
		const struct cli_opt *o = &sc->opts[i];
		if (o->flags & CLI_HIDDEN)
			continue;
		int n = snprintf(left, sizeof left, "  %s%s--%s%s%s",
				 is_short(o->key) ? (char[]){'-', (char)o->key, 0} : "",
				 is_short(o->key) ? ", " : "", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		if (n > w && n <= 24)
			w = n;
	}
	for (unsigned i = 0; i <= sc->n_opts; i++) {
		const struct cli_opt *o = i < sc->n_opts ? &sc->opts[i] : NULL;
		const char *help = o ? o->help : "this text";
		if (o && (o->flags & CLI_HIDDEN))
			continue;
		int n = o ? snprintf(left, sizeof left, "  %s%s--%s%s%s",
				     is_short(o->key) ? (char[]){'-', (char)o->key, 0} : "",
				     is_short(o->key) ? ", " : "", o->name, o->arg ? " " : "",
				     o->arg ? o->arg : "")
			  : snprintf(left, sizeof left, "  -h, --help");
		size_t k = strcspn(help ? help : "", "\n");
		if (n > w) {
			fprintf(f, "%s\n", left);
			indented(f, help, w + 2);
		} else {
			fprintf(f, "%-*s  %.*s\n", w, left, (int)k, help ? help : "");
			if (help && help[k])
				indented(f, help + k + 1, w + 2);
		}
	}
	if (sc->more)
		fprintf(f, "\n%s", sc->more);
	if (sc->examples) {
		fprintf(f, "\nExamples:\n");
		indented(f, sc->examples, 2);
	}
}
