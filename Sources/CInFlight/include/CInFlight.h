#ifndef CHATTERBOTS_CINFLIGHT_H
#define CHATTERBOTS_CINFLIGHT_H

#include <stdint.h>

/// Adds the in-flight table at `table` to those the crash report reads, and installs the report's handler for each
/// signal a crash raises (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT) whose handler is not the report's
/// already. The handler it replaces (Swift's backtracer, or one installed since) is the one the report runs after
/// its lines. The report's handler writes, for every busy slot of every table added, one line to standard error
/// naming the bot, the handler, the trace id and the work, runs the handler it replaced, writes the lines again so
/// that they end the output, and lets the signal end the process.
///
/// A slot is `slot_size` bytes: a uint32 state (`CHATTER_IN_FLIGHT_BUSY` when busy), a uint32 reserved, an int64
/// start time, then NUL-terminated strings: bot, handler, trace, key, summary. `slot_count` points at the number
/// of slots ever used, read at the time of the crash. Only async-signal-safe calls are made.
///
/// Returns 0, or -1 when `CHATTER_IN_FLIGHT_MAX_TABLES` tables are in the report already.
int chatter_in_flight_add_crash_report(const void *table, uint32_t slot_size, const volatile uint32_t *slot_count);

/// Removes `table` from the crash report; call it before the table is unmapped. The handlers stay installed.
/// Returns 0 when the table may be unmapped, or -1 while a crash is being reported: the handler may be reading the
/// table, so it must stay mapped (the process is ending).
int chatter_in_flight_remove_crash_report(const void *table);

#define CHATTER_IN_FLIGHT_BUSY 0x42555359u
#define CHATTER_IN_FLIGHT_MAX_TABLES 16

#endif
