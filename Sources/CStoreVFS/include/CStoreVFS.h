#ifndef CHATTERBOTS_CSTOREVFS_H
#define CHATTERBOTS_CSTOREVFS_H

struct sqlite3;

/// Registers, once for the process (later calls return the same answer), the VFS of bot stores: a copy of SQLite's
/// VFS named `base` (`unix-none`) that
/// - takes a plain absolute path (no empty, "." or ".." component, not ending in a symbolic link) as the file's full
///   path, where the unix VFS looks up each of its directories with an lstat at every open to resolve links (a link
///   among the directories does not change where the log goes, beside the file);
/// - writes the frames a commit appends to a write-ahead log in one call, where the unix VFS makes two per frame (the
///   frame's 24-byte header, then its page).
/// Returns the VFS's name, or NULL when there is no VFS named `base` or registering failed. Not the default VFS.
const char *chatter_store_vfs_register(const char *base);

/// How many writes reached the write-ahead log of `db`'s main database since the log was opened, or -1 when it is
/// not open or was not opened through the store VFS. For tests; call it where the connection is used.
long chatter_store_vfs_log_writes(struct sqlite3 *db);

#endif
