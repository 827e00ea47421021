/* The JSON string writer shared by the library's exports and the command
 * line's --json outputs. */
#ifndef TPMTRACE_DB_JSON_H
#define TPMTRACE_DB_JSON_H

#include <stdio.h>

/* Writes s to f as a JSON string: quoted, '"' and '\' escaped, control
 * characters as \u00XX; NULL as null. */
void json_str(FILE *f, const char *s);

#endif
