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

/* A write-ahead log opened through the store VFS: the unix file (`real`, right after this struct), and the frames
   of a commit held back until the commit is whole. SQLite appends each frame as two writes, its 24-byte header and
   then its page, and a commit's frames one after the other, the commit frame last (its header carries the
   database's size after the commit; other frames carry zero). Held back, a commit's frames reach the file in one
   write: one system call per commit instead of two per frame. A run is held only while each write starts where the
   last ended, beginning with a header written where the last write to the file ended; anything else (a header
   written over an earlier frame, as when SQLite rewrites checksums at commit) writes the run first. Any other call
   on the file writes the run first too, so nothing can read the file without it, and nothing is held when a commit
   returns. A crash while frames are held loses only frames of a commit not yet whole, which SQLite ignores, as it
   would had the crash come between two of its writes. Frames a transaction spilled and then rolled back may stay
   held after the rollback returns, until the next call on the log: only one connection writes a log opened here
   (the store holds its file's lock), so no other can append at their offsets meanwhile. */
typedef struct log_file {
    sqlite3_file base;
    sqlite3_file *real;
    sqlite3_int64 end; /* where the last write to the file ended, or its size; -1 when unknown */
    sqlite3_int64 held_offset;
    int held;
    int held_capacity;
    int commit_frame_open; /* the last write held was a commit frame's header: its page completes the commit */
    unsigned char *held_bytes; /* allocated for a run, freed once it is written */
    long writes;
} log_file;

/* The unix VFS writes at most 128 KiB - 1 bytes in one call: a run is written before it grows past 120 KiB. */
enum { frame_header_size = 24, max_held = 120 * 1024 };

/* The room a log file's wrapper takes before the unix file, rounded up to 16 bytes. */
static int log_file_size(void) { return (int)((sizeof(log_file) + 15) & ~(size_t)15); }

static int write_through(log_file *file, const void *bytes, int amount, sqlite3_int64 offset) {
    file->writes += 1;
    int rc = file->real->pMethods->xWrite(file->real, bytes, amount, offset);
    file->end = rc == SQLITE_OK ? offset + amount : -1;
    return rc;
}

/* Writes the run held back, if any, in one write. */
static int release(log_file *file) {
    if (file->held == 0) return SQLITE_OK;
    int held = file->held;
    file->held = 0;
    file->commit_frame_open = 0;
    int rc = write_through(file, file->held_bytes, held, file->held_offset);
    sqlite3_free(file->held_bytes);
    file->held_bytes = NULL;
    file->held_capacity = 0;
    return rc;
}

/* Adds `amount` bytes to the run; false (nothing held) when they do not fit or memory is short. */
static int hold(log_file *file, const void *bytes, int amount, sqlite3_int64 offset) {
    int total = file->held + amount;
    if (total > max_held) return 0;
    if (total > file->held_capacity) {
        int capacity = file->held_capacity > 0 ? file->held_capacity : 8 * 4096;
        while (capacity < total) capacity *= 2;
        if (capacity > max_held) capacity = max_held;
        unsigned char *grown = sqlite3_realloc(file->held_bytes, capacity);
        if (grown == NULL) return 0;
        file->held_bytes = grown;
        file->held_capacity = capacity;
    }
    if (file->held == 0) file->held_offset = offset;
    memcpy(file->held_bytes + file->held, bytes, (size_t)amount);
    file->held = total;
    return 1;
}

static int log_close(sqlite3_file *f) {
    log_file *file = (log_file *)f;
    int released = release(file);
    int closed = file->real->pMethods->xClose(file->real);
    return released != SQLITE_OK ? released : closed;
}

/* The body of a method that lets a held run reach the file before it calls the unix file's `call`. */
#define RELEASING(call)                                                                                          \
    log_file *file = (log_file *)f;                                                                              \
    int released = release(file);                                                                                \
    return released != SQLITE_OK ? released : file->real->pMethods->call

static int log_read(sqlite3_file *f, void *bytes, int amount, sqlite3_int64 offset) {
    RELEASING(xRead(file->real, bytes, amount, offset));
}

/* Notes whether the bytes just held are a commit frame's header; once its page is held too, writes the run. */
static int held_one(log_file *file, const unsigned char *bytes, int amount) {
    if (amount == frame_header_size) {
        file->commit_frame_open = (bytes[4] | bytes[5] | bytes[6] | bytes[7]) != 0;
        return SQLITE_OK;
    }
    return file->commit_frame_open ? release(file) : SQLITE_OK;
}

static int log_write(sqlite3_file *f, const void *bytes, int amount, sqlite3_int64 offset) {
    log_file *file = (log_file *)f;
    if (file->held > 0 && offset == file->held_offset + file->held && hold(file, bytes, amount, offset)) {
        return held_one(file, bytes, amount);
    }
    int rc = release(file);
    if (rc != SQLITE_OK) return rc;
    if (amount == frame_header_size && file->end < 0) {
        /* The first frame since the log was opened or truncated: it appends if it starts at the file's end. */
        sqlite3_int64 size = 0;
        if (file->real->pMethods->xFileSize(file->real, &size) == SQLITE_OK) file->end = size;
    }
    if (amount == frame_header_size && offset == file->end && hold(file, bytes, amount, offset)) {
        return held_one(file, bytes, amount);
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
