/*
 * What deleting one device costs SQLite on serve's schema, and how much of it the foreign keys
 * that cascade from `devices` take: the statement a Token Reporter report runs for each device
 * its links left (serve's DeviceTable.deleteIfOwnerlessSQL, four owner checks then the
 * delete), on devices nothing owns, in transactions of 100 as a group commit writes them.
 *
 *   device-delete DATABASE [COUNT]     (default 20,000 devices)
 *
 * DATABASE must be made by `pushgate migrate`, or be a copy of one whose schema the caller
 * changed (scripts/bench.d/device-delete does both). WAL, synchronous=NORMAL and foreign keys
 * on, as serve's connections. Prints the CPU each delete cost this process, in µs.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "device-delete-sql.h"

/* Random tokens, as phones' are: the (app_id, token) index takes them in no order. */
static const char *const insert_sql =
    "INSERT INTO devices (app_id, token, reported_token, created_at, updated_at)"
    " VALUES ('com.example.bench', randomblob(32), 'token', 1, 1)";

static void fail(sqlite3 *database, const char *what) {
    fprintf(stderr, "device-delete: %s: %s\n", what, sqlite3_errmsg(database));
    exit(1);
}

static void execute(sqlite3 *database, const char *sql) {
    if (sqlite3_exec(database, sql, NULL, NULL, NULL) != SQLITE_OK) fail(database, sql);
}

static double cpu_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: device-delete DATABASE [COUNT]\n");
        return 2;
    }
    const int batch = 100;
    int count = argc > 2 ? atoi(argv[2]) : 20000;
    count -= count % batch;
    if (count <= 0) {
        fprintf(stderr, "device-delete: COUNT is at least %d\n", batch);
        return 2;
    }
    sqlite3 *database;
    if (sqlite3_open(argv[1], &database) != SQLITE_OK) fail(database, argv[1]);
    execute(database, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON");

    sqlite3_stmt *insert, *delete;
    if (sqlite3_prepare_v2(database, insert_sql, -1, &insert, NULL) != SQLITE_OK) fail(database, "insert");
    if (sqlite3_prepare_v2(database, delete_sql, -1, &delete, NULL) != SQLITE_OK) fail(database, "delete");
    execute(database, "BEGIN IMMEDIATE");
    for (int i = 0; i < count; i++) {
        if (sqlite3_step(insert) != SQLITE_DONE) fail(database, "insert");
        sqlite3_reset(insert);
    }
    execute(database, "COMMIT");
    sqlite3_int64 first = sqlite3_last_insert_rowid(database) - count + 1;

    int deleted = 0;
    double start = cpu_seconds();
    for (int done = 0; done < count; done += batch) {
        execute(database, "BEGIN IMMEDIATE");
        for (int i = 0; i < batch; i++) {
            sqlite3_bind_int64(delete, 1, first + done + i);
            if (sqlite3_step(delete) != SQLITE_DONE) fail(database, "delete");
            deleted += sqlite3_changes(database);
            sqlite3_reset(delete);
        }
        execute(database, "COMMIT");
    }
    double spent = cpu_seconds() - start;
    /* Each device had no owner: a delete that found one would have measured the checks alone. */
    if (deleted != count) {
        fprintf(stderr, "device-delete: %d of %d devices deleted\n", deleted, count);
        return 1;
    }
    printf("%.2f\n", spent / count * 1e6);
    sqlite3_finalize(insert);
    sqlite3_finalize(delete);
    sqlite3_close(database);
    return 0;
}
