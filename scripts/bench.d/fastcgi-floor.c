/*
 * The FastCGI floor: a libfcgi responder in C that answers every request 200 "ok", as
 * pushgate's /healthz does, and nothing else. Behind the same nginx configuration as
 * `pushgate serve`, what it costs per request is what the FastCGI exchange itself costs on
 * this machine; serve's /healthz can only add to it.
 *
 *   fastcgi-floor SOCKET [THREADS]     (default 24; scripts/bench.d/healthz passes as many
 *                                      as serve runs at once on SQLite)
 *
 * It takes connections as serve does (floor-connections.h). Runs until SIGTERM or SIGINT.
 */
#include <stdlib.h>

#include "floor-connections.h"

static void *respond(void *unused) {
    (void)unused;
    FCGX_Request request;
    FCGX_InitRequest(&request, -1, 0);
    for (;;) {
        floor_next_request(&request);
        floor_answer(&request,
                     "Status: 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 3\r\n\r\nok\n");
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s SOCKET [THREADS]\n", argv[0]);
        return 2;
    }
    int threads = argc == 3 ? atoi(argv[2]) : 24;
    if (threads < 1 || threads > 512) {
        fprintf(stderr, "fastcgi-floor: THREADS must be 1 to 512\n");
        return 2;
    }
    return floor_serve("fastcgi-floor", argv[1], threads, respond);
}
