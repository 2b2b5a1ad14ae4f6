// SQLite. sqlite3_config is variadic: wrap what the store needs.
#pragma once
#include <sqlite3.h>
#include <string.h>
#include <stddef.h>

/// Process-wide settings, before the first connection opens (https://sqlite.org/c3ref/config.html).
/// Memory statistics off: with them on, every allocation SQLite makes takes a global mutex to count
/// itself, and nothing here reads the counts (sqlite3_memory_used, soft heap limits).
static inline int efferent_sqlite_configure(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// Turns memory accounting back on, which a hard heap limit needs (SQLite checks the limit only
/// while it counts, https://sqlite.org/c3ref/hard_heap_limit64.html); SQLITE_MISUSE once SQLite
/// has initialized, when it is too late.
static inline int efferent_sqlite_count_memory(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1);
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


/// A `printf` and `format` that fail where SQLite's return NULL. SQLite's printf gives NULL when
/// its text would pass the length limit (`printf('%.*c', 1e9, 'x')`), so a query answers
/// "nothing" where it asked for too much. These run the built-in function on a second, plain
/// connection (which has the same length limit and no override) and turn a NULL made from a
/// non-NULL format into SQLITE_TOOBIG; everything else is the built-in's own result. Statements
/// are kept per argument count, up to SQLite's default maximum of 127 arguments.
typedef struct efferent_sqlite_printf {
    sqlite3 *plain;
    sqlite3_stmt *statements[128];
} efferent_sqlite_printf;

static void efferent_sqlite_strict_printf(sqlite3_context *context, int argc, sqlite3_value **argv) {
    efferent_sqlite_printf *state = (efferent_sqlite_printf *)sqlite3_user_data(context);
    if (argc < 1 || argc > 127) { sqlite3_result_error(context, "printf takes 1 to 127 arguments", -1); return; }
    sqlite3_stmt *statement = state->statements[argc];
    if (statement == NULL) {
        char sql[16 + 2 * 128];
        int at = 0;
        memcpy(sql, "SELECT printf(?", 15); at = 15;
        for (int i = 1; i < argc; i++) { sql[at++] = ','; sql[at++] = '?'; }
        sql[at++] = ')'; sql[at] = 0;
        if (sqlite3_prepare_v2(state->plain, sql, -1, &statement, NULL) != SQLITE_OK) {
            sqlite3_result_error(context, sqlite3_errmsg(state->plain), -1);
            return;
        }
        state->statements[argc] = statement;
    }
    for (int i = 0; i < argc; i++) sqlite3_bind_value(statement, i + 1, argv[i]);
    int rc = sqlite3_step(statement);
    if (rc == SQLITE_ROW) {
        if (sqlite3_column_type(statement, 0) == SQLITE_NULL && sqlite3_value_type(argv[0]) != SQLITE_NULL) {
            sqlite3_result_error_toobig(context);
        } else {
            sqlite3_result_value(context, sqlite3_column_value(statement, 0));
        }
    } else if (rc == SQLITE_NOMEM) {
        sqlite3_result_error_nomem(context);
    } else {
        sqlite3_result_error(context, sqlite3_errmsg(state->plain), -1);
    }
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
}

/// Closes the plain connection and frees the state (the function's destructor).
static void efferent_sqlite_strict_printf_free(void *context) {
    efferent_sqlite_printf *state = (efferent_sqlite_printf *)context;
    for (int i = 0; i < 128; i++) sqlite3_finalize(state->statements[i]);
    sqlite3_close_v2(state->plain);
    sqlite3_free(state);
}

/// Registers the strict `printf` and `format` on `db`; the plain connection takes `max_length`.
static inline int efferent_sqlite_strict_printf_install(sqlite3 *db, int max_length) {
    efferent_sqlite_printf *state = (efferent_sqlite_printf *)sqlite3_malloc(sizeof(efferent_sqlite_printf));
    if (state == NULL) return SQLITE_NOMEM;
    memset(state, 0, sizeof(*state));
    int rc = sqlite3_open_v2(":memory:", &state->plain, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) { sqlite3_close_v2(state->plain); sqlite3_free(state); return rc; }
    sqlite3_limit(state->plain, SQLITE_LIMIT_LENGTH, max_length);
    // The destructor runs once, when `format`'s registration (the later one, which owns the
    // state) is replaced or the connection closes; `printf` shares the state without owning it.
    rc = sqlite3_create_function_v2(db, "printf", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, state,
                                    efferent_sqlite_strict_printf, NULL, NULL, NULL);
    if (rc != SQLITE_OK) { efferent_sqlite_strict_printf_free(state); return rc; }
    rc = sqlite3_create_function_v2(db, "format", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, state,
                                    efferent_sqlite_strict_printf, NULL, NULL, efferent_sqlite_strict_printf_free);
    // On failure SQLite has already run the destructor: take `printf` back to the built-in.
    if (rc != SQLITE_OK) sqlite3_create_function_v2(db, "printf", -1, SQLITE_UTF8, NULL, NULL, NULL, NULL, NULL);
    return rc;
}


/// A VFS that caps the temporary files of the one connection opened through it
/// (https://sqlite.org/vfs.html): sorts that spill, DISTINCT's and GROUP BY's transient tables,
/// the temp database and statement journals. Their sizes add up across the connection's open
/// temporary files; a write that would pass the cap fails with SQLITE_FULL, so an untrusted
/// statement (a recursive CTE without an end under count(DISTINCT …)) stops instead of filling the
/// disk. Everything else is the default VFS's own: each file is the default VFS's file with the
/// cap's bookkeeping after it, and only temporary files get the methods that count. Each capped
/// connection has its own VFS (its own name, counter and cap), unregistered when it closes.
typedef struct efferent_capped_vfs {
    sqlite3_vfs base;                 /* the default VFS's, with xOpen and the file size ours */
    sqlite3_vfs *real;
    sqlite3_int64 total;              /* bytes the connection's temporary files hold */
    sqlite3_int64 limit;
    char name[48];
} efferent_capped_vfs;

typedef struct efferent_capped_temp_file {
    efferent_capped_vfs *owner;
    const sqlite3_io_methods *real;   /* the default VFS's methods for this file */
    sqlite3_io_methods counting;      /* `real` with xWrite, xTruncate and xClose counting */
    sqlite3_int64 size;               /* the furthest byte written */
} efferent_capped_temp_file;

static int efferent_capped_offset(const sqlite3_vfs *real) { return (real->szOsFile + 15) & ~15; }

static efferent_capped_temp_file *efferent_capped_extra(sqlite3_file *file) {
    // The file's own methods table is the `counting` member of its bookkeeping.
    return (efferent_capped_temp_file *)((char *)file->pMethods - offsetof(efferent_capped_temp_file, counting));
}

static int efferent_capped_write(sqlite3_file *file, const void *bytes, int amount, sqlite3_int64 offset) {
    efferent_capped_temp_file *extra = efferent_capped_extra(file);
    sqlite3_int64 end = offset + amount;
    if (end > extra->size) {
        if (extra->owner->total + (end - extra->size) > extra->owner->limit) return SQLITE_FULL;
        extra->owner->total += end - extra->size;
        extra->size = end;
    }
    return extra->real->xWrite(file, bytes, amount, offset);
}

static int efferent_capped_truncate(sqlite3_file *file, sqlite3_int64 size) {
    efferent_capped_temp_file *extra = efferent_capped_extra(file);
    if (size < extra->size) {
        extra->owner->total -= extra->size - size;
        extra->size = size;
    }
    return extra->real->xTruncate(file, size);
}

static int efferent_capped_close(sqlite3_file *file) {
    efferent_capped_temp_file *extra = efferent_capped_extra(file);
    extra->owner->total -= extra->size;
    extra->size = 0;
    file->pMethods = extra->real;
    return extra->real->xClose(file);
}

static int efferent_capped_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags) {
    efferent_capped_vfs *capped = (efferent_capped_vfs *)vfs;
    int rc = capped->real->xOpen(capped->real, name, file, flags, out_flags);
    const int temporary = SQLITE_OPEN_TEMP_DB | SQLITE_OPEN_TEMP_JOURNAL | SQLITE_OPEN_TRANSIENT_DB | SQLITE_OPEN_SUBJOURNAL;
    if (rc != SQLITE_OK || file->pMethods == NULL || (flags & temporary) == 0) return rc;
    efferent_capped_temp_file *extra = (efferent_capped_temp_file *)((char *)file + efferent_capped_offset(capped->real));
    extra->owner = capped;
    extra->real = file->pMethods;
    extra->counting = *file->pMethods;
    extra->counting.xWrite = efferent_capped_write;
    extra->counting.xTruncate = efferent_capped_truncate;
    extra->counting.xClose = efferent_capped_close;
    extra->size = 0;
    file->pMethods = &extra->counting;
    return rc;
}

/// A new capping VFS over the default one, registered under a name of its own (to pass to
/// sqlite3_open_v2), its temporary files together held to `limit` bytes; NULL when SQLite has no
/// default VFS or no memory. Free it with efferent_sqlite_capped_vfs_free once its connection closed.
static inline efferent_capped_vfs *efferent_sqlite_capped_vfs_new(sqlite3_int64 limit) {
    static unsigned long long made;
    sqlite3_vfs *real = sqlite3_vfs_find(NULL);
    if (real == NULL) return NULL;
    efferent_capped_vfs *capped = (efferent_capped_vfs *)sqlite3_malloc(sizeof(efferent_capped_vfs));
    if (capped == NULL) return NULL;
    memset(capped, 0, sizeof(*capped));
    capped->base = *real;
    capped->real = real;
    capped->limit = limit;
    sqlite3_snprintf(sizeof(capped->name), capped->name, "efferent-capped-temp-%llu", __atomic_add_fetch(&made, 1, __ATOMIC_RELAXED));
    capped->base.pNext = NULL;
    capped->base.zName = capped->name;
    capped->base.szOsFile = efferent_capped_offset(real) + (int)sizeof(efferent_capped_temp_file);
    capped->base.xOpen = efferent_capped_open;
    if (sqlite3_vfs_register(&capped->base, 0) != SQLITE_OK) { sqlite3_free(capped); return NULL; }
    return capped;
}

static inline const char *efferent_sqlite_capped_vfs_name(efferent_capped_vfs *capped) { return capped->name; }

/// Bytes the connection's temporary files hold now.
static inline sqlite3_int64 efferent_sqlite_capped_vfs_bytes(efferent_capped_vfs *capped) { return capped->total; }

static inline void efferent_sqlite_capped_vfs_free(efferent_capped_vfs *capped) {
    sqlite3_vfs_unregister(&capped->base);
    sqlite3_free(capped);
}
