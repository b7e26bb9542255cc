/*
 * How the C floors (fastcgi-floor.c, report-floor.c) take nginx's connections: the way serve
 * does (Sources/FastCGI/ReadyConnections.swift), so that a floor differs from serve in what a
 * request does and not in how it arrives. The listening socket and every connection nginx
 * keeps (`fastcgi_keep_conn on`) sit in one epoll set, one-shot, that all threads wait on; a
 * thread reads one request with libfcgi, answers it, and parks the connection again. (Threads
 * that each kept a connection, as libfcgi's own accept loop does, would leave nginx's other
 * connections waiting: not a floor.)
 *
 * A header of static functions: each floor is one file built with one `cc` line.
 */
#ifndef FLOOR_CONNECTIONS_H
#define FLOOR_CONNECTIONS_H

#include <errno.h>
#include <fcgiapp.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int floor_listener = -1;
static int floor_ready = -1;

/* Watches DESCRIPTOR for one readiness. */
static void floor_arm(int descriptor) {
    struct epoll_event event = {.events = EPOLLIN | EPOLLONESHOT, .data.fd = descriptor};
    if (epoll_ctl(floor_ready, EPOLL_CTL_MOD, descriptor, &event) != 0 &&
        (errno != ENOENT || epoll_ctl(floor_ready, EPOLL_CTL_ADD, descriptor, &event) != 0))
        close(descriptor);
}

/* Waits for the next request on any connection and reads its head into REQUEST (which
 * FCGX_InitRequest made with no descriptor). */
static void floor_next_request(FCGX_Request *request) {
    for (;;) {
        struct epoll_event event;
        if (epoll_wait(floor_ready, &event, 1, -1) != 1) continue;
        int connection = event.data.fd;
        if (connection == floor_listener) {
            connection = accept(floor_listener, NULL, NULL);
            floor_arm(floor_listener);
            if (connection < 0) continue;
        }
        /* With a connection set, FCGX_Accept_r reads its next request instead of accepting;
         * it fails (and closes it) when nginx closed the connection instead. */
        request->ipcFd = connection;
        request->keepConnection = 1;
        if (FCGX_Accept_r(request) == 0) return;
        request->ipcFd = -1;
    }
}

/* Ends REQUEST's answer and parks its connection for nginx's next request on it. */
static void floor_finish(FCGX_Request *request) {
    FCGX_Finish_r(request);
    if (request->ipcFd >= 0) floor_arm(request->ipcFd);
    request->ipcFd = -1;
}

/* Writes HEAD_AND_BODY (the CGI head, a blank line and the body) as REQUEST's answer and
 * finishes it. */
static void floor_answer(FCGX_Request *request, const char *head_and_body) {
    FCGX_PutS(head_and_body, request->out);
    floor_finish(request);
}

/* Listens on the Unix socket PATH (mode 0660, as serve's), runs THREADS threads of RESPOND,
 * and returns 0 at SIGTERM or SIGINT (libfcgi's own SIGTERM handler only asks its accept
 * loop, unused here, to stop), 1 when it could not start. NAME prefixes its errors. */
static int floor_serve(const char *name, const char *path, int threads, void *(*respond)(void *)) {
    if (FCGX_Init() != 0) return 1;
    unlink(path);
    floor_listener = FCGX_OpenSocket(path, 1024);
    floor_ready = epoll_create1(EPOLL_CLOEXEC);
    if (floor_listener < 0 || floor_ready < 0) {
        fprintf(stderr, "%s: opening %s: %s\n", name, path, strerror(errno));
        return 1;
    }
    chmod(path, 0660);
    fcntl(floor_listener, F_SETFL, fcntl(floor_listener, F_GETFL) | O_NONBLOCK);
    floor_arm(floor_listener);
    /* The threads block the stopping signals; this one waits for them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    for (int i = 0; i < threads; i++) {
        pthread_t id;
        if (pthread_create(&id, NULL, respond, NULL) != 0) {
            fprintf(stderr, "%s: starting a thread: %s\n", name, strerror(errno));
            return 1;
        }
    }
    int signal_number;
    sigwait(&stop, &signal_number);
    unlink(path);
    return 0;
}

#endif
