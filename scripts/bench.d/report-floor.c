/*
 * The Token Reporter floor: a libfcgi responder in C that does what a Token Reporter GET
 * (`/token/?username=…&selector=…&token_msgs=…&appid_msgs=…&token_calls=…&appid_calls=…`,
 * docs/api/token-reporter.md) needs and nothing else. It reads the query from REQUEST_URI
 * (the one parameter of pushgate's nginx configuration that carries it: no QUERY_STRING is
 * sent), percent-decodes the six values, looks the selector up with one prepared SELECT on
 * the table's primary-key index, and only when a known value differs from the stored one
 * writes the row (one upsert inside BEGIN IMMEDIATE … COMMIT); then answers 200 with no
 * body. No token checks, no logging, no metrics, one table instead of serve's devices and
 * account links: what a report costs it is the least any responder pays for the same
 * exchange, parsing, lookup and write on this machine.
 *
 *   report-floor SOCKET DATABASE [THREADS]    (default 4; scripts/bench.d/reporter-floor
 *                                             passes as many as serve runs at once on SQLite)
 *
 * The database is SQLite in WAL mode with synchronous=NORMAL, as serve's (a commit is a WAL
 * append; only checkpoints sync), and each thread has its own connection and statements, so
 * that no lock but SQLite's write lock is shared. It takes connections as serve does
 * (floor-connections.h). Runs until SIGTERM or SIGINT.
 */
#include <sqlite3.h>
#include <stdlib.h>

#include "floor-connections.h"
#include "report-query.h"

static const char *database_path;

static const char *const schema =
    "PRAGMA journal_mode = WAL;"
    "CREATE TABLE IF NOT EXISTS reports (selector TEXT PRIMARY KEY, username TEXT, token_msgs TEXT,"
    " appid_msgs TEXT, token_calls TEXT, appid_calls TEXT, reported INTEGER NOT NULL)";
static const char *const lookup_sql =
    "SELECT username, token_msgs, appid_msgs, token_calls, appid_calls FROM reports WHERE selector = ?1";
/* A value the report did not carry keeps the stored one, as in serve. */
static const char *const upsert_sql =
    "INSERT INTO reports VALUES (?1, ?2, ?3, ?4, ?5, ?6, CAST(strftime('%s', 'now') AS INTEGER))"
    " ON CONFLICT (selector) DO UPDATE SET username = coalesce(excluded.username, username),"
    " token_msgs = coalesce(excluded.token_msgs, token_msgs), appid_msgs = coalesce(excluded.appid_msgs, appid_msgs),"
    " token_calls = coalesce(excluded.token_calls, token_calls),"
    " appid_calls = coalesce(excluded.appid_calls, appid_calls), reported = excluded.reported";

/* One thread's connection and its statements, prepared once. */
struct store {
    sqlite3 *database;
    sqlite3_stmt *lookup, *begin, *upsert, *commit, *rollback;
};

/* Whether the stored row of REPORT's selector already holds every value it carries. */
static int unchanged(struct store *store, const struct report *report, int *failed) {
    sqlite3_bind_text(store->lookup, 1, report->value[SELECTOR], report->length[SELECTOR], SQLITE_STATIC);
    int step = sqlite3_step(store->lookup);
    int same = step == SQLITE_ROW;
    for (int field = USERNAME; same && field < FIELDS; field++) {
        if (!known(report, field)) continue;
        const void *stored = sqlite3_column_blob(store->lookup, field - USERNAME);
        same = stored && sqlite3_column_bytes(store->lookup, field - USERNAME) == report->length[field] &&
               memcmp(stored, report->value[field], (size_t)report->length[field]) == 0;
    }
    *failed = step != SQLITE_ROW && step != SQLITE_DONE;
    sqlite3_reset(store->lookup);
    return same;
}

static int run(sqlite3_stmt *statement) {
    int step = sqlite3_step(statement);
    sqlite3_reset(statement);
    return step == SQLITE_DONE ? 0 : -1;
}

static int write_report(struct store *store, const struct report *report) {
    for (int field = 0; field < FIELDS; field++) {
        if (known(report, field))
            sqlite3_bind_text(store->upsert, field + 1, report->value[field], report->length[field], SQLITE_STATIC);
        else
            sqlite3_bind_null(store->upsert, field + 1);
    }
    if (run(store->begin) != 0) return -1;
    if (run(store->upsert) != 0 || run(store->commit) != 0) {
        run(store->rollback);
        return -1;
    }
    return 0;
}

static void open_store(struct store *store) {
    const char *const sql[] = {lookup_sql, "BEGIN IMMEDIATE", upsert_sql, "COMMIT", "ROLLBACK"};
    sqlite3_stmt **const statements[] = {&store->lookup, &store->begin, &store->upsert, &store->commit, &store->rollback};
    /* Per connection: WAL's default is FULL, a sync at every commit, which serve does not pay. */
    store->database = open_database(database_path, "PRAGMA synchronous = NORMAL", sizeof sql / sizeof *sql, sql,
                                    statements);
}

static void *respond(void *unused) {
    (void)unused;
    struct store store;
    open_store(&store);
    struct report report;
    FCGX_Request request;
    FCGX_InitRequest(&request, -1, 0);
    for (;;) {
        floor_next_request(&request);
        const char *refusal = report_refusal(FCGX_GetParam("REQUEST_URI", request.envp), &report);
        if (refusal) {
            floor_answer(&request, refusal);
            continue;
        }
        int failed = 0;
        if (!unchanged(&store, &report, &failed) && !failed) failed = write_report(&store, &report) != 0;
        floor_answer(&request, failed ? "Status: 503 Service Unavailable\r\nContent-Type: text/plain\r\n\r\nthe database failed\n"
                                : "Status: 200 OK\r\nContent-Length: 0\r\n\r\n");
    }
    return NULL;
}

/* Makes the table and puts the database in WAL mode (which stays with the file). */
static int create_schema(void) {
    sqlite3 *database;
    int created = sqlite3_open(database_path, &database);
    if (created == SQLITE_OK) created = sqlite3_exec(database, schema, NULL, NULL, NULL);
    if (created != SQLITE_OK) fprintf(stderr, "report-floor: %s: %s\n", database_path, sqlite3_errmsg(database));
    sqlite3_close(database);
    return created == SQLITE_OK ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s SOCKET DATABASE [THREADS]\n", argv[0]);
        return 2;
    }
    database_path = argv[2];
    int threads = argc == 4 ? atoi(argv[3]) : 4;
    if (threads < 1 || threads > 512) {
        fprintf(stderr, "report-floor: THREADS must be 1 to 512\n");
        return 2;
    }
    if (create_schema() != 0) return 1;
    return floor_serve("report-floor", argv[1], threads, respond);
}
