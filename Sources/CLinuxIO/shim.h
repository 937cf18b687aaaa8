#ifndef CLINUXIO_SHIM_H
#define CLINUXIO_SHIM_H
// Linux I/O headers that Swift's Glibc module does not import (epoll, eventfd, accept4, pipe2, spawn extensions).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spawn.h>
#include <pthread.h>
// Declared here because glibc only exposes it under _GNU_SOURCE.
extern int accept4(int fd, struct sockaddr *addr, socklen_t *addr_len, int flags);
// Also _GNU_SOURCE-only: close-on-exec pipes, and closing every inherited descriptor and changing directory in
// the same step as a posix_spawn (glibc 2.34 and 2.29): the tests' child processes inherit nothing.
extern int pipe2(int fds[2], int flags);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);
// _GNU_SOURCE-only too: the name of a thread (15 bytes at most) as ps, perf and Foundation's Thread show it.
extern int pthread_setname_np(pthread_t thread, const char *name);
#endif
