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
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
typedef int (*csqlite_full_pathname_function)(sqlite3_vfs *, const char *, int, char *);
/* Where csqlite_register_vfs_trusting_plain_paths keeps the full-path function of the VFS it copies (a static inside
   a function: Swift does not emit a header's global variables). */
static inline csqlite_full_pathname_function *csqlite_resolving_full_pathname(void) {
    static csqlite_full_pathname_function function;
    return &function;
}
/* A file's full path: the path as written when it is absolute, has no empty, "." or ".." component, and does not end
   in a symbolic link; otherwise what the unix VFS says. The unix VFS resolves each component with an lstat of its
   own (six for a path six deep) so that the log goes beside the file a symbolic link points to; a link among the
   directories changes nothing there, so only the last component is looked at. */
static inline int csqlite_full_pathname(sqlite3_vfs *vfs, const char *path, int size, char *out) {
    size_t length = strlen(path);
    int plain = path[0] == '/' && length < (size_t)size && strstr(path, "//") == NULL && strstr(path, "/./") == NULL
        && strstr(path, "/../") == NULL && !(length >= 2 && strcmp(path + length - 2, "/.") == 0)
        && !(length >= 3 && strcmp(path + length - 3, "/..") == 0);
    if (plain) {
        struct stat status;
        if (lstat(path, &status) == 0 ? !S_ISLNK(status.st_mode) : errno == ENOENT) {
            memcpy(out, path, length + 1);
            return SQLITE_OK;
        }
    }
    return (*csqlite_resolving_full_pathname())(vfs, path, size, out);
}
/* Registers (once: the caller keeps the answer) a copy of the VFS named `base` whose full paths come from
   csqlite_full_pathname, and returns its name, or NULL when there is no such VFS. Not the default VFS. The copy
   lives in a static of this header, so only one Swift module may call this. */
static inline const char *csqlite_register_vfs_trusting_plain_paths(const char *base) {
    static sqlite3_vfs vfs;
    static char name[64];
    sqlite3_vfs *found = sqlite3_vfs_find(base);
    if (found == NULL || strlen(base) + 16 >= sizeof name) return NULL;
    snprintf(name, sizeof name, "%s-plain-paths", base);
    vfs = *found;
    vfs.zName = name;
    *csqlite_resolving_full_pathname() = found->xFullPathname;
    vfs.xFullPathname = csqlite_full_pathname;
    return sqlite3_vfs_register(&vfs, 0) == SQLITE_OK ? vfs.zName : NULL;
}
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
