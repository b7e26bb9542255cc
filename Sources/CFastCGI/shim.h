#ifndef PUSHGATE_CFASTCGI_SHIM_H
#define PUSHGATE_CFASTCGI_SHIM_H
#include <fcgiapp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/epoll.h>
#include <signal.h>
#include <pthread.h>
#endif
