# Turns db/schema.sql into a C string constant (schema_sql) at build time.
file(READ ${IN} content)
string(REPLACE "\\" "\\\\" content "${content}")
string(REPLACE "\"" "\\\"" content "${content}")
string(REPLACE "\n" "\\n\"\n\"" content "${content}")
file(WRITE ${OUT} "/* generated from db/schema.sql */\nstatic const char schema_sql[] = \"${content}\";\n")
