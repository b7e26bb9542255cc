#ifndef PUSHGATE_CSQLITE_SHIM_H
#define PUSHGATE_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: bind through these instead.
static inline int pushgate_sqlite3_bind_text(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}

static inline int pushgate_sqlite3_bind_blob(sqlite3_stmt *stmt, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(stmt, index, bytes, length, SQLITE_TRANSIENT);
}

// sqlite3_config is variadic. Memory statistics take a process-wide mutex around every
// malloc and free SQLite makes; pushgate never reads them.
static inline int pushgate_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
