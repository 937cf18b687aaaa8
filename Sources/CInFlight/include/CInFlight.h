#ifndef CHATTERBOTS_CINFLIGHT_H
#define CHATTERBOTS_CINFLIGHT_H

#include <stdint.h>

/// Installs handlers for the signals a crash raises (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT). Each
/// writes, for every busy slot of the in-flight table at `table`, one line to standard error naming the bot, the
/// handler, the trace id and the work, runs the handler that was installed before (Swift's backtracer), writes
/// the lines again so that they end the output, and lets the signal end the process.
///
/// A slot is `slot_size` bytes: a uint32 state (`CHATTER_IN_FLIGHT_BUSY` when busy), a uint32 reserved, an int64
/// start time, then NUL-terminated strings: bot, handler, trace, key, summary. `slot_count` points at the number
/// of slots ever used, read at the time of the crash. Only async-signal-safe calls are made.
void chatter_in_flight_install_crash_report(const void *table, uint32_t slot_size, const volatile uint32_t *slot_count);

#define CHATTER_IN_FLIGHT_BUSY 0x42555359u

#endif
