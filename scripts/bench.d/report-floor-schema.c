/*
 * The Token Reporter floor on serve's schema: a libfcgi responder in C that does the work a
 * Token Reporter GET must do in serve's data model, with serve's own statements, and nothing
 * else. Not the judged floor (that is report-floor.c, one table of its own): this one shows
 * how much of a report's cost is the schema's work, whoever runs it.
 *
 * It reads the query from REQUEST_URI (pushgate's nginx configuration sends no QUERY_STRING),
 * percent-decodes the six values and each token's base64 (devices are keyed by a token's
 * bytes), reads the selector's links with serve's one select, and only when the report changes
 * them writes what serve writes, inside BEGIN IMMEDIATE … COMMIT: the links read again, per
 * channel its device found or inserted (or its report recorded) and its link moved, then each
 * device a link left deleted when nothing owns it (its foreign keys cascading as serve's do);
 * then answers 200 with no body. No app or token checks, no logging, no metrics.
 *
 *   report-floor-schema SOCKET DATABASE [THREADS]    (default 4)
 *
 * DATABASE must be migrated by `pushgate migrate`. Its connections are as serve's: WAL,
 * synchronous=NORMAL (a commit is a WAL append; only checkpoints sync), foreign keys on; each
 * thread reads on a connection of its own, and writes go to one connection that commits
 * together what the threads queued meanwhile, as serve's group-commit writer does. It takes
 * connections as serve does (floor-connections.h). Runs until SIGTERM or SIGINT.
 * Run by `REPORT_FLOOR=schema scripts/bench.d/reporter-floor`.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "device-delete-sql.h"
#include "floor-connections.h"
#include "report-query.h"

/* A channel the report carries a token for: its name, app id, the token's bytes and the token
 * as reported (what serve keeps as `reported_token`). */
struct channel {
    const char *name;
    const char *app;
    int app_length;
    unsigned char token[VALUE_LIMIT];
    int token_length;
    const char *reported;
    int reported_length;
};

/* What a channel's link holds now: its device and that device's (app, token, spelling, time). */
struct link {
    int present;
    sqlite3_int64 device;
    int same_device;   /* the device is the report's (app, token) */
    int same_username; /* the report carries no username, or the link's */
    int recorded;      /* the same device, its spelling the report's, recorded today */
    int unchanged;     /* recorded, and the same username */
};

static const char *database_path;

/* serve's statements, as Sources/PushStore writes them (AcrobitsLinkQuery, DeviceTable,
 * AcrobitsAccountTable; the device's delete in device-delete-sql.h). */
static const char *const links_sql =
    "SELECT a.channel, a.device_id, a.username, d.app_id, d.token, d.reported_token, d.updated_at, d.sandbox"
    " FROM acrobits_accounts AS a JOIN devices AS d ON d.id = a.device_id WHERE a.selector = ?1";
static const char *const find_sql = "SELECT id FROM devices WHERE app_id = ?1 AND token = ?2";
static const char *const record_sql = "UPDATE devices SET reported_token = ?2, updated_at = ?3 WHERE id = ?1";
static const char *const insert_sql =
    "INSERT INTO devices (app_id, token, reported_token, platform, created_at, updated_at)"
    " VALUES (?1, ?2, ?3, (SELECT platform FROM apps WHERE id = ?1), ?4, ?4)";
static const char *const link_sql =
    "INSERT INTO acrobits_accounts (selector, channel, username, device_id, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)"
    " ON CONFLICT (selector, channel) DO UPDATE SET"
    " username = COALESCE(excluded.username, acrobits_accounts.username),"
    " device_id = excluded.device_id, updated_at = excluded.updated_at";
static const char *const rename_sql =
    "UPDATE acrobits_accounts SET username = ?3, updated_at = ?4 WHERE selector = ?1 AND channel = ?2";

enum statement { LINKS, FIND, RECORD, INSERT, LINK, RENAME, DELETE, BEGIN, COMMIT, ROLLBACK, STATEMENTS };
static const char *const statement_sql[STATEMENTS] = {
    links_sql, find_sql, record_sql, insert_sql, link_sql, rename_sql, delete_sql,
    "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"};

/* A connection and its statements, prepared once. */
struct store {
    sqlite3 *database;
    sqlite3_stmt *statement[STATEMENTS];
};

/* A report to write, queued for the writer. */
struct job {
    const struct report *report;
    const struct channel *channels;
    int count;
    sqlite3_int64 now;
    int done, failed;
    struct job *next;
};

/* The one connection every write goes to, committing the reports queued together in one
 * transaction, as serve's group-commit writer does: whichever thread finds nobody writing
 * takes the whole queue. A writer per thread, or one taking a report at a time, cost a
 * changing report more than serve spends on it (each commit emptied the other connections'
 * page caches, and appended the pages it changed to the WAL on its own). */
static struct store writer;
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t written = PTHREAD_COND_INITIALIZER;
static struct job *queued, **queue_end = &queued;
static int writing;

static int base64_digit(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Decodes the base64 TEXT into OUT; its length, -1 when it is not base64. */
static int base64_decode(const char *text, int length, unsigned char *out) {
    while (length > 0 && text[length - 1] == '=') length--;
    int bytes = 0, bits = 0;
    uint32_t buffer = 0;
    for (int i = 0; i < length; i++) {
        int digit = base64_digit(text[i]);
        if (digit < 0) return -1;
        buffer = buffer << 6 | (uint32_t)digit;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[bytes++] = (unsigned char)(buffer >> bits);
        }
    }
    return bytes;
}

/* The channels REPORT carries a token for, into CHANNELS; how many, -1 for a token that is not
 * base64 or has no app id. */
static int channels_of(const struct report *report, struct channel *channels) {
    static const struct { const char *name; int token, app; } names[] = {
        {"calls", TOKEN_CALLS, APPID_CALLS}, {"msgs", TOKEN_MSGS, APPID_MSGS}};
    int count = 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (!known(report, names[i].token)) continue;
        if (!known(report, names[i].app)) return -1;
        struct channel *channel = &channels[count++];
        channel->name = names[i].name;
        channel->app = report->value[names[i].app];
        channel->app_length = report->length[names[i].app];
        channel->reported = report->value[names[i].token];
        channel->reported_length = report->length[names[i].token];
        channel->token_length = base64_decode(channel->reported, channel->reported_length, channel->token);
        if (channel->token_length <= 0) return -1;
    }
    return count;
}

static int same_text(sqlite3_stmt *row, int column, const char *text, int length) {
    const void *stored = sqlite3_column_blob(row, column);
    return stored && sqlite3_column_bytes(row, column) == length && memcmp(stored, text, (size_t)length) == 0;
}

static sqlite3_int64 day_of(sqlite3_int64 time) { return time >= 0 ? time / 86400 : (time - 86399) / 86400; }

/* Reads the links of REPORT's selector into LINKS (one per channel); -1 when the database
 * failed. */
static int read_links(struct store *store, const struct report *report, const struct channel *channels, int count,
                      sqlite3_int64 now, struct link *links) {
    sqlite3_stmt *row = store->statement[LINKS];
    memset(links, 0, sizeof *links * (size_t)count);
    sqlite3_bind_text(row, 1, report->value[SELECTOR], report->length[SELECTOR], SQLITE_STATIC);
    int step;
    while ((step = sqlite3_step(row)) == SQLITE_ROW) {
        for (int i = 0; i < count; i++) {
            if (!same_text(row, 0, channels[i].name, (int)strlen(channels[i].name))) continue;
            struct link *link = &links[i];
            link->present = 1;
            link->device = sqlite3_column_int64(row, 1);
            link->same_device = same_text(row, 3, channels[i].app, channels[i].app_length) &&
                                same_text(row, 4, (const char *)channels[i].token, channels[i].token_length);
            link->same_username = !known(report, USERNAME) ||
                                  same_text(row, 2, report->value[USERNAME], report->length[USERNAME]);
            link->recorded = link->same_device &&
                             same_text(row, 5, channels[i].reported, channels[i].reported_length) &&
                             day_of(sqlite3_column_int64(row, 6)) >= day_of(now);
            link->unchanged = link->recorded && link->same_username;
        }
    }
    sqlite3_reset(row);
    return step == SQLITE_DONE ? 0 : -1;
}

static int run(sqlite3_stmt *statement) {
    int step = sqlite3_step(statement);
    sqlite3_reset(statement);
    return step == SQLITE_DONE || step == SQLITE_ROW ? 0 : -1;
}

static int record(struct store *store, const struct channel *channel, sqlite3_int64 device, sqlite3_int64 now) {
    sqlite3_stmt *statement = store->statement[RECORD];
    sqlite3_bind_int64(statement, 1, device);
    sqlite3_bind_text(statement, 2, channel->reported, channel->reported_length, SQLITE_STATIC);
    sqlite3_bind_int64(statement, 3, now);
    return run(statement);
}

/* CHANNEL's device: the one its (app, token) names, its report recorded, or a new one. */
static int device_of(struct store *store, const struct channel *channel, sqlite3_int64 now, sqlite3_int64 *device) {
    sqlite3_stmt *find = store->statement[FIND];
    sqlite3_bind_text(find, 1, channel->app, channel->app_length, SQLITE_STATIC);
    sqlite3_bind_blob(find, 2, channel->token, channel->token_length, SQLITE_STATIC);
    int step = sqlite3_step(find);
    *device = step == SQLITE_ROW ? sqlite3_column_int64(find, 0) : 0;
    sqlite3_reset(find);
    if (step == SQLITE_ROW) return record(store, channel, *device, now);
    if (step != SQLITE_DONE) return -1;
    sqlite3_stmt *insert = store->statement[INSERT];
    sqlite3_bind_text(insert, 1, channel->app, channel->app_length, SQLITE_STATIC);
    sqlite3_bind_blob(insert, 2, channel->token, channel->token_length, SQLITE_STATIC);
    sqlite3_bind_text(insert, 3, channel->reported, channel->reported_length, SQLITE_STATIC);
    sqlite3_bind_int64(insert, 4, now);
    if (run(insert) != 0) return -1;
    *device = sqlite3_last_insert_rowid(store->database);
    return 0;
}

/* Links CHANNEL of REPORT's selector to DEVICE (STATEMENT: LINK), or renames it (RENAME). */
static int write_link(struct store *store, enum statement which, const struct report *report,
                      const struct channel *channel, sqlite3_int64 device, sqlite3_int64 now) {
    sqlite3_stmt *statement = store->statement[which];
    sqlite3_bind_text(statement, 1, report->value[SELECTOR], report->length[SELECTOR], SQLITE_STATIC);
    sqlite3_bind_text(statement, 2, channel->name, -1, SQLITE_STATIC);
    if (known(report, USERNAME))
        sqlite3_bind_text(statement, 3, report->value[USERNAME], report->length[USERNAME], SQLITE_STATIC);
    else
        sqlite3_bind_null(statement, 3);
    if (which == LINK) {
        sqlite3_bind_int64(statement, 4, device);
        sqlite3_bind_int64(statement, 5, now);
    } else {
        sqlite3_bind_int64(statement, 4, now);
    }
    return run(statement);
}

/* What serve writes for a report that changes its links, in the open transaction: per channel
 * what changed of its device and link, then the devices the links left, deleted when nothing
 * owns them. */
static int write_links(struct store *store, const struct report *report, const struct channel *channels, int count,
                       sqlite3_int64 now) {
    struct link links[2];
    if (read_links(store, report, channels, count, now, links) != 0) return -1;
    sqlite3_int64 replaced[2];
    int replacements = 0;
    for (int i = 0; i < count; i++) {
        const struct link *link = &links[i];
        if (link->same_device) {
            if (!link->recorded && record(store, &channels[i], link->device, now) != 0) return -1;
            if (!link->same_username && write_link(store, RENAME, report, &channels[i], 0, now) != 0) return -1;
            continue;
        }
        sqlite3_int64 device;
        if (device_of(store, &channels[i], now, &device) != 0) return -1;
        if (link->present && link->device == device) {
            if (!link->same_username && write_link(store, RENAME, report, &channels[i], 0, now) != 0) return -1;
            continue;
        }
        if (write_link(store, LINK, report, &channels[i], device, now) != 0) return -1;
        if (link->present) replaced[replacements++] = link->device;
    }
    for (int i = 0; i < replacements; i++) {
        if (i == 1 && replaced[1] == replaced[0]) continue;
        sqlite3_bind_int64(store->statement[DELETE], 1, replaced[i]);
        if (run(store->statement[DELETE]) != 0) return -1;
    }
    return 0;
}

/* Writes BATCH in one transaction; a failure fails the whole batch (serve would run the others
 * again: a floor's database does not fail). */
static void write_batch(struct job *batch) {
    int failed = run(writer.statement[BEGIN]) != 0;
    for (struct job *job = batch; job && !failed; job = job->next)
        failed = write_links(&writer, job->report, job->channels, job->count, job->now) != 0;
    if (!failed) failed = run(writer.statement[COMMIT]) != 0;
    if (failed) run(writer.statement[ROLLBACK]);
    for (struct job *job = batch; job; job = job->next) job->failed = failed;
}

/* Stores REPORT unless its links hold it already; 0, or -1 when the database failed. */
static int save(struct store *reader, const struct report *report, const struct channel *channels, int count) {
    sqlite3_int64 now = (sqlite3_int64)time(NULL);
    struct link links[2];
    if (read_links(reader, report, channels, count, now, links) != 0) return -1;
    int unchanged = 1;
    for (int i = 0; i < count; i++) unchanged = unchanged && links[i].unchanged;
    if (unchanged) return 0;
    /* Decided again inside the write transaction: another thread may have written since. */
    struct job job = {.report = report, .channels = channels, .count = count, .now = now};
    pthread_mutex_lock(&queue_lock);
    *queue_end = &job;
    queue_end = &job.next;
    while (!job.done) {
        if (writing) {
            pthread_cond_wait(&written, &queue_lock);
            continue;
        }
        writing = 1;
        struct job *batch = queued;
        queued = NULL;
        queue_end = &queued;
        pthread_mutex_unlock(&queue_lock);
        write_batch(batch);
        pthread_mutex_lock(&queue_lock);
        for (struct job *each = batch; each; each = each->next) each->done = 1;
        writing = 0;
        pthread_cond_broadcast(&written);
    }
    pthread_mutex_unlock(&queue_lock);
    return job.failed ? -1 : 0;
}

static void open_store(struct store *store) {
    sqlite3_stmt **statements[STATEMENTS];
    for (int i = 0; i < STATEMENTS; i++) statements[i] = &store->statement[i];
    /* Per connection, as serve's (Sources/PushStore/Connection/Database.swift): WAL's default is
     * FULL, a sync at every commit, which serve does not pay; the cascades need foreign keys on. */
    store->database = open_database(database_path, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON",
                                    STATEMENTS, statement_sql, statements);
}

static void *respond(void *unused) {
    (void)unused;
    struct store store;
    open_store(&store);
    struct report report;
    struct channel channels[2];
    FCGX_Request request;
    FCGX_InitRequest(&request, -1, 0);
    for (;;) {
        floor_next_request(&request);
        const char *refusal = report_refusal(FCGX_GetParam("REQUEST_URI", request.envp), &report);
        if (refusal) {
            floor_answer(&request, refusal);
            continue;
        }
        int count = channels_of(&report, channels);
        if (count < 0) {
            floor_answer(&request, "Status: 400 Bad Request\r\nContent-Type: text/plain\r\n\r\nnot a token\n");
            continue;
        }
        int failed = count > 0 && save(&store, &report, channels, count) != 0;
        floor_answer(&request, failed ? "Status: 503 Service Unavailable\r\nContent-Type: text/plain\r\n\r\nthe database failed\n"
                                : "Status: 200 OK\r\nContent-Length: 0\r\n\r\n");
    }
    return NULL;
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
    open_store(&writer);
    return floor_serve("report-floor", argv[1], threads, respond);
}
