/* Text from files and databases made safe for a terminal: every
 * human-readable output (list, show, stats, the report, importer warnings,
 * error messages) passes names and details through these, so that nothing
 * read reaches a terminal as an escape sequence. */
#ifndef TPMTRACE_DB_TEXT_H
#define TPMTRACE_DB_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* s for a terminal: control characters, DEL, C1 controls and bytes that are
 * not UTF-8 as \xNN (a backslash as \\), so that a name or detail from a
 * database or a log never reaches the terminal as an escape sequence. Writes
 * at most len bytes into buf (cut with "..." when longer) and returns it; NULL
 * gives "". */
const char *db_text_safe(const char *s, char *buf, size_t len);
/* The same, printed. */
void db_text_print_safe(FILE *f, const char *s);
/* s printed with the bytes a terminal would act on (controls, DEL, C1,
 * bytes that are not UTF-8) as \xNN, a backslash left as it is: the command line's errors
 * (cli_error, cli_usage_error) print their whole message so, whatever names it holds. */
void db_text_print_term(FILE *f, const char *s);
/* Terminal text fits 100 columns: prints lead, then len bytes of text
 * wrapped at spaces so that no line passes width, the lines after the
 * first indented by indent spaces; a word longer than a line stays whole. */
#define DB_TEXT_WIDTH 100
void db_text_wrap(FILE *f, const char *lead, int indent, const char *text, size_t len, int width);

/* The message of a failure written into err (at most errlen bytes): the
 * convention of every room (docs/architecture.md); returns rc, so that a
 * caller writes `return db_errf(err, errlen, -EINVAL, "...", ...)`. */
__attribute__((format(printf, 4, 5))) int db_errf(char *err, size_t errlen, int rc, const char *fmt,
						  ...);

#endif
