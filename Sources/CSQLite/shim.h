// SQLite. sqlite3_config is variadic: wrap what the store needs.
#pragma once
#include <sqlite3.h>
#include <string.h>

/// Process-wide settings, before the first connection opens (https://sqlite.org/c3ref/config.html).
/// Memory statistics off: with them on, every allocation SQLite makes takes a global mutex to count
/// itself, and nothing here reads the counts (sqlite3_memory_used, soft heap limits).
static inline int efferent_sqlite_configure(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static inline int efferent_sqlite_bind_blob(sqlite3_stmt *stmt, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(stmt, index, bytes, count, SQLITE_TRANSIENT);
}

static inline int efferent_sqlite_bind_text(sqlite3_stmt *stmt, int index, const char *text, int count) {
    return sqlite3_bind_text(stmt, index, text, count, SQLITE_TRANSIENT);
}

/// The pragmas that only report when given an argument (`PRAGMA table_info(events)`): with any
/// other pragma an argument sets something, which a reading connection refuses.
static inline int efferent_sqlite_pragma_reads_with_argument(const char *name) {
    static const char *const reading[] = {
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list",
        "function_list", "pragma_list", "collation_list", "compile_options", "database_list", "module_list", NULL,
    };
    for (int i = 0; reading[i] != NULL; i++) {
        if (name != NULL && sqlite3_stricmp(name, reading[i]) == 0) return 1;
    }
    return 0;
}

/// An authorizer (https://sqlite.org/c3ref/set_authorizer.html) that lets a statement read and
/// nothing else: SELECT, reading tables and views, functions, recursive CTEs, and pragmas that
/// report. Transactions, ATTACH, DETACH, writes, schema changes and pragmas that set something
/// are refused when the statement is prepared.
static int efferent_sqlite_reading_authorizer(void *user, int action, const char *first, const char *second,
                                              const char *database, const char *trigger) {
    (void)user; (void)database; (void)trigger;
    switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
        return SQLITE_OK;
    case SQLITE_FUNCTION:
        // Functions that load code or hand out (or re-point) a pointer into the process's memory.
        return (second != NULL && (sqlite3_stricmp(second, "fts3_tokenizer") == 0 || sqlite3_stricmp(second, "load_extension") == 0))
            ? SQLITE_DENY : SQLITE_OK;
    case SQLITE_UPDATE:
        // Reading a table-valued pragma (`pragma_table_info('daily')`) registers its virtual
        // table, which SQLite authorizes as an update of sqlite_master's columns; a real update
        // of sqlite_master is refused at prepare ("may not be modified") and by the read-only file.
        return (first != NULL && (sqlite3_stricmp(first, "sqlite_master") == 0 || sqlite3_stricmp(first, "sqlite_schema") == 0) && trigger == NULL) ? SQLITE_OK : SQLITE_DENY;
    case SQLITE_PRAGMA:
        return (second == NULL || efferent_sqlite_pragma_reads_with_argument(first)) ? SQLITE_OK : SQLITE_DENY;
    default:
        return SQLITE_DENY;
    }
}

static inline int efferent_sqlite_allow_only_reading(sqlite3 *db) {
    return sqlite3_set_authorizer(db, efferent_sqlite_reading_authorizer, NULL);
}

#include <time.h>

/// A statement's deadline, checked by a progress handler (https://sqlite.org/c3ref/progress_handler.html)
/// every 10,000 virtual-machine instructions: past it the statement stops with SQLITE_INTERRUPT.
typedef struct efferent_sqlite_deadline {
    long long deadline_ns;
    int expired;
} efferent_sqlite_deadline;

static long long efferent_sqlite_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static int efferent_sqlite_deadline_check(void *context) {
    efferent_sqlite_deadline *deadline = (efferent_sqlite_deadline *)context;
    if (efferent_sqlite_now_ns() > deadline->deadline_ns) { deadline->expired = 1; return 1; }
    return 0;
}

/// Bounds what one untrusted statement may take: a string or blob of at most `max_length` bytes
/// (randomblob, zeroblob, replace, group_concat), SQL text of at most 1 MiB, and `seconds` of
/// running, counted from now. `deadline` must outlive the connection's statements.
static inline void efferent_sqlite_limit_untrusted(sqlite3 *db, int max_length, double seconds, efferent_sqlite_deadline *deadline) {
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, max_length);
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 20);
    deadline->expired = 0;
    deadline->deadline_ns = efferent_sqlite_now_ns() + (long long)(seconds * 1e9);
    sqlite3_progress_handler(db, 10000, efferent_sqlite_deadline_check, deadline);
}
