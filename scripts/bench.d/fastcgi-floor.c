/*
 * The FastCGI floor: a libfcgi responder in C that answers every request 200 "ok", as
 * pushgate's /healthz does, and nothing else. Behind the same nginx configuration as
 * `pushgate serve`, what it costs per request is what the FastCGI exchange itself costs on
 * this machine; serve's /healthz can only add to it.
 *
 *   fastcgi-floor SOCKET [THREADS]     (default 24; scripts/bench.d/healthz passes as many
 *                                      as serve runs at once on SQLite)
 *
 * It takes connections as serve does (Sources/FastCGI/ReadyConnections.swift): the listening
 * socket and every connection nginx keeps (`fastcgi_keep_conn on`) in one epoll set, one-shot,
 * that all threads wait on; a thread reads one request with libfcgi, answers it, and parks the
 * connection again. (Threads that each kept a connection, as libfcgi's own accept loop does,
 * would leave nginx's other connections waiting: not a floor.) Runs until SIGTERM or SIGINT
 * (libfcgi's own SIGTERM handler only asks its accept loop, unused here, to stop).
 */
#include <errno.h>
#include <fcgiapp.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int listener;
static int ready;

/* Watches DESCRIPTOR for one readiness. */
static void arm(int descriptor) {
    struct epoll_event event = {.events = EPOLLIN | EPOLLONESHOT, .data.fd = descriptor};
    if (epoll_ctl(ready, EPOLL_CTL_MOD, descriptor, &event) != 0 &&
        (errno != ENOENT || epoll_ctl(ready, EPOLL_CTL_ADD, descriptor, &event) != 0))
        close(descriptor);
}

static void *respond(void *unused) {
    (void)unused;
    FCGX_Request request;
    FCGX_InitRequest(&request, -1, 0);
    for (;;) {
        struct epoll_event event;
        if (epoll_wait(ready, &event, 1, -1) != 1) continue;
        int connection = event.data.fd;
        if (connection == listener) {
            connection = accept(listener, NULL, NULL);
            arm(listener);
            if (connection < 0) continue;
        }
        /* With a connection set, FCGX_Accept_r reads its next request instead of accepting;
         * it fails (and closes it) when nginx closed the connection instead. */
        request.ipcFd = connection;
        request.keepConnection = 1;
        if (FCGX_Accept_r(&request) < 0) {
            request.ipcFd = -1;
            continue;
        }
        FCGX_PutS("Status: 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 3\r\n\r\nok\n",
                  request.out);
        FCGX_Finish_r(&request);
        if (request.ipcFd >= 0) arm(request.ipcFd);
        request.ipcFd = -1;
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
    if (FCGX_Init() != 0) return 1;
    unlink(argv[1]);
    listener = FCGX_OpenSocket(argv[1], 1024);
    ready = epoll_create1(EPOLL_CLOEXEC);
    if (listener < 0 || ready < 0) {
        perror("fastcgi-floor: opening the socket");
        return 1;
    }
    chmod(argv[1], 0660);
    fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK);
    arm(listener);
    /* The threads block the stopping signals; this one waits for them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    for (int i = 0; i < threads; i++) {
        pthread_t id;
        if (pthread_create(&id, NULL, respond, NULL) != 0) {
            perror("fastcgi-floor: starting a thread");
            return 1;
        }
    }
    int signal_number;
    sigwait(&stop, &signal_number);
    unlink(argv[1]);
    return 0;
}
