#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>
/* SQLITE_TRANSIENT is a macro of a function-pointer cast that Swift cannot import. */
static inline void (*csqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }
/* sqlite3_config is variadic, which Swift cannot call. Turns off the page cache's up-front allocation of room for
   20 pages per connection (SQLITE_DEFAULT_PCACHE_INITSZ), so a connection holds only the pages it has read: a
   process with thousands of small databases (one per bot) saves ~57 KiB each. Call before sqlite3_initialize. */
static inline int csqlite_disable_page_cache_preallocation(void) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}
/* Turns off SQLite's memory statistics (sqlite3_memory_used, heap limits), kept under a process-wide mutex taken
   around every allocation SQLite makes. Call before sqlite3_initialize. */
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
/* sqlite3_db_config is variadic too. With `on` 0, closing the last connection leaves the write-ahead log as it is
   instead of checkpointing it into the database (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE); the next open reads it back. */
static inline int csqlite_set_checkpoint_on_close(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, on ? 0 : 1, (int *)0);
}
/* Cuts the write-ahead log of `db` after its first `frames` frames when the file is longer. A log that restarted after a
   checkpoint writes over the frames of the one before from its start and leaves the rest of them in the file, where
   no one reads them again (they carry the earlier log's salts): cutting them is what SQLite does at the first commit
   after a restart, with a journal_size_limit smaller than the file. The frames' size comes from the log's header.
   Returns SQLITE_OK when the log is as short as that, or has no file or header. */
static inline int csqlite_truncate_log_after(sqlite3 *db, sqlite3_int64 frames) {
    sqlite3_file *log = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &log) != SQLITE_OK || log == 0
        || log->pMethods == 0) return SQLITE_OK;
    sqlite3_int64 size = 0;
    int rc = log->pMethods->xFileSize(log, &size);
    if (rc != SQLITE_OK || size < 32) return rc;
    unsigned char header[32];
    rc = log->pMethods->xRead(log, header, 32, 0);
    if (rc != SQLITE_OK) return rc;
    sqlite3_int64 page = (sqlite3_int64)header[8] << 24 | header[9] << 16 | header[10] << 8 | header[11];
    if (page < 512 || page > 65536 || (page & (page - 1)) != 0) return SQLITE_OK;
    sqlite3_int64 end = 32 + frames * (24 + page);
    return size > end ? log->pMethods->xTruncate(log, end) : SQLITE_OK;
}
#include <stdlib.h> /* defines __GLIBC__ on glibc */
#if defined(__GLIBC__)
#include <malloc.h>
#endif
/* Asks the C allocator to give the heap's free pages back to the system (glibc's malloc_trim), so that memory
   freed by closing connections stops counting as resident. Elsewhere it does nothing. Returns 1 when memory was
   released. */
static inline int csqlite_return_freed_memory(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
/* Takes an exclusive open-file-description lock on the bytes SQLite locks (PENDING_BYTE, 0x40000000, and the 511
   after it: RESERVED and SHARED), so that any other connection, in this process or another, finds the file locked
   exactly as if this descriptor's owner held SQLite's EXCLUSIVE lock. Returns 0, or the errno (EAGAIN: another
   descriptor holds a lock there). OFD locks are Linux's; elsewhere returns ENOSYS. */
static inline int csqlite_lock_file_exclusively(int fd) {
#if defined(__linux__)
#ifndef F_OFD_SETLK
#define F_OFD_SETLK 37
#endif
    struct flock lock = {0};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = 0x40000000;
    lock.l_len = 512;
    return fcntl(fd, F_OFD_SETLK, &lock) == 0 ? 0 : errno;
#else
    (void)fd;
    return ENOSYS;
#endif
}
/* Opens a new file without a name in `directory` (O_TMPFILE), readable and writable by its owner only; it
   disappears with its last descriptor unless csqlite_link_unnamed_file gives it a name. Returns the descriptor, or -1
   with errno set (EOPNOTSUPP or EISDIR where the file system cannot, ENOSYS off Linux). */
#if defined(__linux__) && !defined(O_TMPFILE)
#define O_TMPFILE (020000000 | O_DIRECTORY) /* glibc defines it only with _GNU_SOURCE */
#endif
static inline int csqlite_open_unnamed_file(const char *directory) {
#if defined(__linux__)
    return open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#else
    (void)directory;
    errno = ENOSYS;
    return -1;
#endif
}
/* Gives the unnamed file open as `fd` the name `path`, unless something already has that name (then -1 with errno
   EEXIST, and the file stays unnamed). Goes through /proc/self/fd, which needs no privilege. Returns 0 or -1. */
#include <stdio.h>
static inline int csqlite_link_unnamed_file(int fd, const char *path) {
#if defined(__linux__)
    char name[64];
    snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, name, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
#else
    (void)fd; (void)path;
    errno = ENOSYS;
    return -1;
#endif
}
#endif
