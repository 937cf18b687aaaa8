#ifndef CHATTERBOTS_CINFLIGHT_H
#define CHATTERBOTS_CINFLIGHT_H

#include <stdint.h>

/// Adds the in-flight table at `table` to those the crash report reads. The first call installs handlers for the
/// signals a crash raises (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT); later calls keep them, so the handler
/// that was installed before the first (Swift's backtracer) stays the one they run after the report. Each handler
/// writes, for every busy slot of every table added, one line to standard error naming the bot, the handler, the
/// trace id and the work, runs the handler installed before, writes the lines again so that they end the output,
/// and lets the signal end the process.
///
/// A slot is `slot_size` bytes: a uint32 state (`CHATTER_IN_FLIGHT_BUSY` when busy), a uint32 reserved, an int64
/// start time, then NUL-terminated strings: bot, handler, trace, key, summary. `slot_count` points at the number
/// of slots ever used, read at the time of the crash. Only async-signal-safe calls are made.
///
/// Returns 0, or -1 when `CHATTER_IN_FLIGHT_MAX_TABLES` tables are in the report already.
int chatter_in_flight_add_crash_report(const void *table, uint32_t slot_size, const volatile uint32_t *slot_count);

/// Removes `table` from the crash report; call it before the table is unmapped. The handlers stay installed.
void chatter_in_flight_remove_crash_report(const void *table);

#define CHATTER_IN_FLIGHT_BUSY 0x42555359u
#define CHATTER_IN_FLIGHT_MAX_TABLES 16

#endif
