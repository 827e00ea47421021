# Turns db/schema.sql into a C string constant (schema_sql) at build time.
# NAME: the constant's name (default schema_sql; db/pg/schema.sql is pg_schema_sql).
if(NOT NAME)
	set(NAME schema_sql)
endif()
file(READ ${IN} content)
string(REPLACE "\\" "\\\\" content "${content}")
string(REPLACE "\"" "\\\"" content "${content}")
string(REPLACE "\n" "\\n\"\n\"" content "${content}")
file(WRITE ${OUT} "/* generated from ${IN} */\nstatic const char ${NAME}[] = \"${content}\";\n")
