// SQLite. sqlite3_config is variadic: wrap what the store needs.
#pragma once
#include <sqlite3.h>

static inline int efferent_sqlite_bind_blob(sqlite3_stmt *stmt, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(stmt, index, bytes, count, SQLITE_TRANSIENT);
}

static inline int efferent_sqlite_bind_text(sqlite3_stmt *stmt, int index, const char *text, int count) {
    return sqlite3_bind_text(stmt, index, text, count, SQLITE_TRANSIENT);
}
