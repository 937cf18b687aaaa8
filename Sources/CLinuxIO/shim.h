#ifndef CLINUXIO_SHIM_H
#define CLINUXIO_SHIM_H
// Linux I/O headers that Swift's Glibc module does not import (epoll, eventfd, accept4).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
// Declared here because glibc only exposes it under _GNU_SOURCE.
extern int accept4(int fd, struct sockaddr *addr, socklen_t *addr_len, int flags);
#endif
