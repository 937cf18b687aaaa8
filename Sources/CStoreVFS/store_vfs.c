#include "CStoreVFS.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* What the store VFS keeps of the VFS it copies. */
static sqlite3_vfs store_vfs;
static char store_vfs_name[64];
static int (*resolving_full_pathname)(sqlite3_vfs *, const char *, int, char *);
static int (*unix_open)(sqlite3_vfs *, const char *, sqlite3_file *, int, int *);

/* A file's full path: the path as written when it is absolute, has no empty, "." or ".." component, and does not end
   in a symbolic link (one lstat); otherwise what the copied VFS says. */
static int full_pathname(sqlite3_vfs *vfs, const char *path, int size, char *out) {
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
    return resolving_full_pathname(vfs, path, size, out);
}

/* A write-ahead log opened through the store VFS: the unix file (`real`, right after this struct), and a frame's
   24-byte header held back until its page follows. SQLite appends each frame of a commit as two writes, the header
   and then, at the next offset, the page; held back, the two reach the file in one write, one system call instead
   of two. Only a header written where the last write ended is held: one written over an earlier frame (SQLite
   rewrites checksums so at commit, the commit frame's last) goes to the file at once, so nothing is held when a
   commit returns. Any other call on the file writes a held header first, so nothing can read the file without it.
   A crash while a header is held loses a frame not yet whole, which SQLite ignores, as it would had the crash come
   between the two writes. */
typedef struct log_file {
    sqlite3_file base;
    sqlite3_file *real;
    sqlite3_int64 held_offset;
    sqlite3_int64 end; /* where the last write to the file ended; -1 when unknown */
    int held;
    unsigned char header[24];
    unsigned char *joined; /* room for a header and its page, grown as pages need; freed at close */
    int joined_capacity;
    long writes;
} log_file;

/* The room a log file's wrapper takes before the unix file, rounded up to 16 bytes. */
static int log_file_size(void) { return (int)((sizeof(log_file) + 15) & ~(size_t)15); }

static int write_through(log_file *file, const void *bytes, int amount, sqlite3_int64 offset) {
    file->writes += 1;
    int rc = file->real->pMethods->xWrite(file->real, bytes, amount, offset);
    file->end = rc == SQLITE_OK ? offset + amount : -1;
    return rc;
}

/* Writes the header held back, if any. */
static int release(log_file *file) {
    if (file->held == 0) return SQLITE_OK;
    int held = file->held;
    file->held = 0;
    return write_through(file, file->header, held, file->held_offset);
}

static int log_close(sqlite3_file *f) {
    log_file *file = (log_file *)f;
    int released = release(file);
    int closed = file->real->pMethods->xClose(file->real);
    sqlite3_free(file->joined);
    file->joined = NULL;
    file->joined_capacity = 0;
    return released != SQLITE_OK ? released : closed;
}

/* The body of a method that lets a held header reach the file before it calls the unix file's `call`. */
#define RELEASING(call)                                                                                          \
    log_file *file = (log_file *)f;                                                                              \
    int released = release(file);                                                                                \
    return released != SQLITE_OK ? released : file->real->pMethods->call

static int log_read(sqlite3_file *f, void *bytes, int amount, sqlite3_int64 offset) {
    RELEASING(xRead(file->real, bytes, amount, offset));
}

static int log_write(sqlite3_file *f, const void *bytes, int amount, sqlite3_int64 offset) {
    log_file *file = (log_file *)f;
    if (file->held > 0 && offset == file->held_offset + file->held && amount > 0) {
        int total = file->held + amount;
        if (total > file->joined_capacity) {
            unsigned char *grown = sqlite3_realloc(file->joined, total);
            if (grown != NULL) {
                file->joined = grown;
                file->joined_capacity = total;
            }
        }
        if (total <= file->joined_capacity) {
            memcpy(file->joined, file->header, (size_t)file->held);
            memcpy(file->joined + file->held, bytes, (size_t)amount);
            sqlite3_int64 start = file->held_offset;
            file->held = 0;
            return write_through(file, file->joined, total, start);
        }
    }
    int rc = release(file);
    if (rc != SQLITE_OK) return rc;
    if (amount == (int)sizeof file->header && offset == file->end) {
        memcpy(file->header, bytes, sizeof file->header);
        file->held = amount;
        file->held_offset = offset;
        return SQLITE_OK;
    }
    return write_through(file, bytes, amount, offset);
}

static int log_truncate(sqlite3_file *f, sqlite3_int64 size) {
    log_file *file = (log_file *)f;
    int released = release(file);
    file->end = -1;
    return released != SQLITE_OK ? released : file->real->pMethods->xTruncate(file->real, size);
}

static int log_sync(sqlite3_file *f, int flags) { RELEASING(xSync(file->real, flags)); }

static int log_file_size_of(sqlite3_file *f, sqlite3_int64 *size) { RELEASING(xFileSize(file->real, size)); }

static int log_lock(sqlite3_file *f, int level) { RELEASING(xLock(file->real, level)); }

static int log_unlock(sqlite3_file *f, int level) { RELEASING(xUnlock(file->real, level)); }

static int log_check_reserved_lock(sqlite3_file *f, int *reserved) {
    log_file *file = (log_file *)f;
    return file->real->pMethods->xCheckReservedLock(file->real, reserved);
}

static int log_file_control(sqlite3_file *f, int operation, void *argument) {
    RELEASING(xFileControl(file->real, operation, argument));
}

static int log_sector_size(sqlite3_file *f) {
    log_file *file = (log_file *)f;
    return file->real->pMethods->xSectorSize(file->real);
}

static int log_device_characteristics(sqlite3_file *f) {
    log_file *file = (log_file *)f;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

/* A log has no shared memory or memory map of its own (SQLite asks the database file for those): version 1. */
static const sqlite3_io_methods log_methods = {
    1, log_close, log_read, log_write, log_truncate, log_sync, log_file_size_of, log_lock, log_unlock,
    log_check_reserved_lock, log_file_control, log_sector_size, log_device_characteristics,
    NULL, NULL, NULL, NULL, NULL, NULL
};

/* Opens write-ahead logs wrapped in a log_file, and every other file as the copied VFS does. */
static int store_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags) {
    if ((flags & SQLITE_OPEN_WAL) == 0) return unix_open(vfs, name, f, flags, out_flags);
    log_file *file = (log_file *)f;
    memset(file, 0, sizeof *file);
    file->end = -1;
    file->real = (sqlite3_file *)((char *)f + log_file_size());
    int rc = unix_open(vfs, name, file->real, flags, out_flags);
    /* SQLite closes a file whose methods are set, whether or not the open succeeded. */
    file->base.pMethods = file->real->pMethods != NULL ? &log_methods : NULL;
    return rc;
}

/* Registers the store VFS as a copy of `base`; NULL when there is no such VFS or SQLite refused it. */
static const char *register_copy(const char *base) {
    sqlite3_vfs *found = sqlite3_vfs_find(base);
    if (found == NULL || strlen(base) + 16 >= sizeof store_vfs_name) return NULL;
    snprintf(store_vfs_name, sizeof store_vfs_name, "%s-store", base);
    store_vfs = *found;
    store_vfs.zName = store_vfs_name;
    store_vfs.szOsFile = found->szOsFile + log_file_size();
    resolving_full_pathname = found->xFullPathname;
    unix_open = found->xOpen;
    store_vfs.xFullPathname = full_pathname;
    store_vfs.xOpen = store_open;
    return sqlite3_vfs_register(&store_vfs, 0) == SQLITE_OK ? store_vfs_name : NULL;
}

const char *chatter_store_vfs_register(const char *base) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static int attempted;
    static const char *registered;
    pthread_mutex_lock(&lock);
    if (!attempted) {
        attempted = 1;
        registered = register_copy(base);
    }
    const char *name = registered;
    pthread_mutex_unlock(&lock);
    return name;
}

long chatter_store_vfs_log_writes(struct sqlite3 *db) {
    sqlite3_file *log = NULL;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &log) != SQLITE_OK || log == NULL
        || log->pMethods != &log_methods) return -1;
    return ((log_file *)log)->writes;
}
