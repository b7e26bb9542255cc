/*
 * What both Token Reporter floors (report-floor.c and report-floor-schema.c) do alike: read a
 * Token Reporter GET's query (the six values by name, percent-decoded, each within serve's
 * limit), refuse what serve refuses before it reads the store, and open a thread's database
 * connection with its statements prepared. Included once per program; everything here is
 * static.
 */
#ifndef REPORT_QUERY_H
#define REPORT_QUERY_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum field { SELECTOR, USERNAME, TOKEN_MSGS, APPID_MSGS, TOKEN_CALLS, APPID_CALLS, FIELDS };
static const char *const field_names[FIELDS] = {
    "selector", "username", "token_msgs", "appid_msgs", "token_calls", "appid_calls"};

/* serve refuses a longer value, and a shorter selector (docs/api/token-reporter.md). */
enum { VALUE_LIMIT = 4096, SELECTOR_MINIMUM = 16 };

/* A report's values, decoded; a length of -1 is a value the query did not carry. */
struct report {
    char value[FIELDS][VALUE_LIMIT];
    int length[FIELDS];
};

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Percent-decodes [from, to) into OUT; -1 when it would be longer than VALUE_LIMIT. */
static int decode(const char *from, const char *to, char *out) {
    int length = 0;
    while (from < to) {
        if (length == VALUE_LIMIT) return -1;
        int high, low;
        if (*from == '%' && to - from >= 3 && (high = hex_digit(from[1])) >= 0 && (low = hex_digit(from[2])) >= 0) {
            out[length++] = (char)(high * 16 + low);
            from += 3;
        } else {
            out[length++] = *from == '+' ? ' ' : *from;
            from++;
        }
    }
    return length;
}

static int field_named(const char *name, size_t length) {
    for (int field = 0; field < FIELDS; field++)
        if (strlen(field_names[field]) == length && memcmp(field_names[field], name, length) == 0) return field;
    return -1;
}

/* Reads the query of URI into REPORT; 0, or -1 for a value over the limit. */
static int parse(const char *uri, struct report *report) {
    for (int field = 0; field < FIELDS; field++) report->length[field] = -1;
    const char *pair = uri ? strchr(uri, '?') : NULL;
    while (pair) {
        pair++;
        const char *end = strchr(pair, '&');
        if (!end) end = pair + strlen(pair);
        const char *equals = memchr(pair, '=', (size_t)(end - pair));
        int field = equals ? field_named(pair, (size_t)(equals - pair)) : -1;
        if (field >= 0 && (report->length[field] = decode(equals + 1, end, report->value[field])) < 0) return -1;
        pair = *end ? end : NULL;
    }
    return 0;
}

/* Empty, `null` and `(null)` mean "not known yet" to serve: never a change. */
static int known(const struct report *report, int field) {
    int length = report->length[field];
    const char *value = report->value[field];
    return length > 0 && !(length == 4 && memcmp(value, "null", 4) == 0) &&
           !(length == 6 && memcmp(value, "(null)", 6) == 0);
}

/* Reads URI's query into REPORT; the answer serve gives a value over the limit or a selector too
 * short, or NULL for a report to look up. */
static const char *report_refusal(const char *uri, struct report *report) {
    if (parse(uri, report) != 0) return "Status: 400 Bad Request\r\nContent-Type: text/plain\r\n\r\na value is too long\n";
    if (report->length[SELECTOR] < SELECTOR_MINIMUM)
        return "Status: 400 Bad Request\r\nContent-Type: text/plain\r\n\r\nno selector\n";
    return NULL;
}

/* Opens PATH for one thread (NOMUTEX: no other thread uses the connection), runs PRAGMAS and
 * prepares the COUNT statements of SQL into STATEMENTS; exits with SQLite's message on a
 * failure. */
static sqlite3 *open_database(const char *path, const char *pragmas, size_t count, const char *const sql[],
                              sqlite3_stmt **const statements[]) {
    sqlite3 *database = NULL;
    int opened = sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (opened == SQLITE_OK) {
        sqlite3_busy_timeout(database, 5000);
        opened = sqlite3_exec(database, pragmas, NULL, NULL, NULL);
    }
    for (size_t i = 0; opened == SQLITE_OK && i < count; i++)
        opened = sqlite3_prepare_v3(database, sql[i], -1, SQLITE_PREPARE_PERSISTENT, statements[i], NULL);
    if (opened != SQLITE_OK) {
        fprintf(stderr, "report-floor: %s: %s\n", path, sqlite3_errmsg(database));
        exit(1);
    }
    return database;
}

#endif
