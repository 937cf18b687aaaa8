#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>
/* SQLITE_TRANSIENT is a macro of a function-pointer cast that Swift cannot import. */
static inline void (*csqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }
#endif
