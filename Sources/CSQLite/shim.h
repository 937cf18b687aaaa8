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
typedef int (*csqlite_open_function)(sqlite3_vfs *, const char *, sqlite3_file *, int, int *);
/* What csqlite_register_store_vfs keeps of the VFS it copies, in statics inside functions: Swift does not emit a
   header's global variables. */
static inline csqlite_full_pathname_function *csqlite_resolving_full_pathname(void) {
    static csqlite_full_pathname_function function;
    return &function;
}
static inline csqlite_open_function *csqlite_unix_open(void) {
    static csqlite_open_function function;
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

/* A write-ahead log opened through the store VFS: the unix file (`real`, right after this struct), and a frame's
   24-byte header held back until its page follows. SQLite writes each frame of a commit as two writes, the header
   and then, at the next offset, the page; held back, the two reach the file in one write, one system call instead
   of two. Any other call on the file writes a held header first, so nothing can read the file without it. A crash
   while a header is held loses a frame not yet whole, which SQLite ignores, as it would had the crash come between
   the two writes. */
typedef struct csqlite_log_file {
    sqlite3_file base;
    sqlite3_file *real;
    sqlite3_int64 heldOffset;
    int held;
    unsigned char header[24];
    unsigned char *joined;
    int joinedCapacity;
    long writes;
} csqlite_log_file;
/* The room a log file's wrapper takes before the unix file, rounded up to 16 bytes. */
static inline int csqlite_log_file_size(void) { return (int)((sizeof(csqlite_log_file) + 15) & ~(size_t)15); }
static inline int csqlite_log_write_through(csqlite_log_file *file, const void *bytes, int amount, sqlite3_int64 offset) {
    file->writes += 1;
    return file->real->pMethods->xWrite(file->real, bytes, amount, offset);
}
/* Writes the header held back, if any. */
static inline int csqlite_log_release(csqlite_log_file *file) {
    if (file->held == 0) return SQLITE_OK;
    int held = file->held;
    file->held = 0;
    return csqlite_log_write_through(file, file->header, held, file->heldOffset);
}
static inline int csqlite_log_close(sqlite3_file *f) {
    csqlite_log_file *file = (csqlite_log_file *)f;
    int released = csqlite_log_release(file);
    int closed = file->real->pMethods->xClose(file->real);
    sqlite3_free(file->joined);
    file->joined = NULL;
    file->joinedCapacity = 0;
    return released != SQLITE_OK ? released : closed;
}
/* The body of a log method that lets a held header reach the file before it calls the unix file's `call`. */
#define CSQLITE_LOG_RELEASING(call)                                                                           \
    csqlite_log_file *file = (csqlite_log_file *)f;                                                           \
    int released = csqlite_log_release(file);                                                                 \
    return released != SQLITE_OK ? released : file->real->pMethods->call
static inline int csqlite_log_read(sqlite3_file *f, void *bytes, int amount, sqlite3_int64 offset) {
    CSQLITE_LOG_RELEASING(xRead(file->real, bytes, amount, offset));
}
static inline int csqlite_log_write(sqlite3_file *f, const void *bytes, int amount, sqlite3_int64 offset) {
    csqlite_log_file *file = (csqlite_log_file *)f;
    if (file->held > 0 && offset == file->heldOffset + file->held && amount > 0) {
        int total = file->held + amount;
        if (total > file->joinedCapacity) {
            unsigned char *grown = sqlite3_realloc(file->joined, total);
            if (grown != NULL) {
                file->joined = grown;
                file->joinedCapacity = total;
            }
        }
        if (total <= file->joinedCapacity) {
            memcpy(file->joined, file->header, (size_t)file->held);
            memcpy(file->joined + file->held, bytes, (size_t)amount);
            sqlite3_int64 start = file->heldOffset;
            file->held = 0;
            return csqlite_log_write_through(file, file->joined, total, start);
        }
    }
    int rc = csqlite_log_release(file);
    if (rc != SQLITE_OK) return rc;
    if (amount == (int)sizeof file->header) {
        memcpy(file->header, bytes, sizeof file->header);
        file->held = amount;
        file->heldOffset = offset;
        return SQLITE_OK;
    }
    return csqlite_log_write_through(file, bytes, amount, offset);
}
static inline int csqlite_log_truncate(sqlite3_file *f, sqlite3_int64 size) {
    CSQLITE_LOG_RELEASING(xTruncate(file->real, size));
}
static inline int csqlite_log_sync(sqlite3_file *f, int flags) { CSQLITE_LOG_RELEASING(xSync(file->real, flags)); }
static inline int csqlite_log_file_size_of(sqlite3_file *f, sqlite3_int64 *size) {
    CSQLITE_LOG_RELEASING(xFileSize(file->real, size));
}
static inline int csqlite_log_lock(sqlite3_file *f, int level) { CSQLITE_LOG_RELEASING(xLock(file->real, level)); }
static inline int csqlite_log_unlock(sqlite3_file *f, int level) { CSQLITE_LOG_RELEASING(xUnlock(file->real, level)); }
static inline int csqlite_log_check_reserved_lock(sqlite3_file *f, int *reserved) {
    csqlite_log_file *file = (csqlite_log_file *)f;
    return file->real->pMethods->xCheckReservedLock(file->real, reserved);
}
static inline int csqlite_log_file_control(sqlite3_file *f, int operation, void *argument) {
    CSQLITE_LOG_RELEASING(xFileControl(file->real, operation, argument));
}
static inline int csqlite_log_sector_size(sqlite3_file *f) {
    csqlite_log_file *file = (csqlite_log_file *)f;
    return file->real->pMethods->xSectorSize(file->real);
}
static inline int csqlite_log_device_characteristics(sqlite3_file *f) {
    csqlite_log_file *file = (csqlite_log_file *)f;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}
/* A log has no shared memory or memory map of its own (SQLite asks the database file for those): version 1. */
static inline const sqlite3_io_methods *csqlite_log_methods(void) {
    static const sqlite3_io_methods methods = {
        1, csqlite_log_close, csqlite_log_read, csqlite_log_write, csqlite_log_truncate, csqlite_log_sync,
        csqlite_log_file_size_of, csqlite_log_lock, csqlite_log_unlock, csqlite_log_check_reserved_lock,
        csqlite_log_file_control, csqlite_log_sector_size, csqlite_log_device_characteristics,
        NULL, NULL, NULL, NULL, NULL, NULL
    };
    return &methods;
}
/* How many writes reached the write-ahead log of `db`'s main database since it was opened, or -1 when the log is not
   open or was not opened through the store VFS. For tests; call it on the connection's thread. */
static inline long csqlite_log_writes(sqlite3 *db) {
    sqlite3_file *log = NULL;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &log) != SQLITE_OK || log == NULL
        || log->pMethods != csqlite_log_methods()) return -1;
    return ((csqlite_log_file *)log)->writes;
}
/* Opens write-ahead logs wrapped in a csqlite_log_file, and every other file as the unix VFS does. */
static inline int csqlite_store_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *outFlags) {
    if ((flags & SQLITE_OPEN_WAL) == 0) return (*csqlite_unix_open())(vfs, name, f, flags, outFlags);
    csqlite_log_file *file = (csqlite_log_file *)f;
    memset(file, 0, sizeof *file);
    file->real = (sqlite3_file *)((char *)f + csqlite_log_file_size());
    int rc = (*csqlite_unix_open())(vfs, name, file->real, flags, outFlags);
    /* SQLite closes a file whose methods are set, whether or not the open succeeded. */
    file->base.pMethods = file->real->pMethods != NULL ? csqlite_log_methods() : NULL;
    return rc;
}
/* Registers (once: the caller keeps the answer) the VFS of bot stores, a copy of the unix VFS named `base`: full
   paths from csqlite_full_pathname, and write-ahead logs that write each frame in one call (csqlite_log_file).
   Returns its name, or NULL when there is no such VFS. Not the default VFS. The copy lives in a static of this
   header, so only one Swift module may call this. */
static inline const char *csqlite_register_store_vfs(const char *base) {
    static sqlite3_vfs vfs;
    static char name[64];
    sqlite3_vfs *found = sqlite3_vfs_find(base);
    if (found == NULL || found->iVersion < 1 || strlen(base) + 16 >= sizeof name) return NULL;
    snprintf(name, sizeof name, "%s-store", base);
    vfs = *found;
    vfs.zName = name;
    vfs.szOsFile = found->szOsFile + csqlite_log_file_size();
    *csqlite_resolving_full_pathname() = found->xFullPathname;
    *csqlite_unix_open() = found->xOpen;
    vfs.xFullPathname = csqlite_full_pathname;
    vfs.xOpen = csqlite_store_open;
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
