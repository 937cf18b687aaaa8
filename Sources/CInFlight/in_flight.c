#include "CInFlight.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/// The tables the report reads. An entry's fields are written before its table is published, so the handler reads
/// whole entries; `reporting` keeps a removed table mapped while a handler may still be reading it.
typedef struct {
    _Atomic(const unsigned char *) table;
    uint32_t slot_size;
    const volatile uint32_t *slot_count;
} report_entry;

static report_entry report_entries[CHATTER_IN_FLIGHT_MAX_TABLES];
/// What an entry's table holds while its fields are being written.
static const unsigned char entry_reserved;
/// Set by the handler before it reads any entry. `chatter_in_flight_remove_crash_report` clears the entry first and
/// reads this after (both sequentially consistent): either the handler no longer finds the table, or the remove
/// sees the flag and tells its caller to keep the table mapped.
static atomic_int reporting;
/// Held while handlers are checked and installed, so that two adds do not both save "the one before".
static atomic_flag installing = ATOMIC_FLAG_INIT;
static volatile sig_atomic_t report_entered;

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT};
#define CRASH_SIGNAL_COUNT (sizeof(crash_signals) / sizeof(crash_signals[0]))
static struct sigaction previous_actions[CRASH_SIGNAL_COUNT];

static void put(const char *text, size_t length) {
    while (length > 0) {
        ssize_t written = write(2, text, length);
        if (written <= 0) return;
        text += written;
        length -= (size_t)written;
    }
}

static void put_string(const char *text) { put(text, strlen(text)); }

static void put_number(long value) {
    char digits[24];
    int count = 0;
    unsigned long magnitude = value < 0 ? (unsigned long)(-value) : (unsigned long)value;
    do {
        digits[sizeof(digits) - 1 - count++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude > 0 && count < (int)sizeof(digits) - 1);
    if (value < 0) digits[sizeof(digits) - 1 - count++] = '-';
    put(digits + sizeof(digits) - count, (size_t)count);
}

/// The next NUL-terminated field of a slot's strings, or NULL when the slot ends first.
static const char *next_field(const char *field, const char *end) {
    const char *nul = memchr(field, 0, (size_t)(end - field));
    return nul == NULL || nul + 1 >= end ? NULL : nul + 1;
}

/// Writes one line for each busy slot of `table`; returns how many it wrote.
static int report_table(int signal_number, const unsigned char *table, uint32_t slot_size, uint32_t count) {
    int written = 0;
    for (uint32_t index = 0; index < count; index++) {
        const unsigned char *slot = table + (size_t)slot_size * (index + 1);
        uint32_t state;
        memcpy(&state, slot, sizeof(state));
        if (state != CHATTER_IN_FLIGHT_BUSY) continue;
        const char *end = (const char *)slot + slot_size;
        const char *bot = (const char *)slot + 16;
        const char *handler = next_field(bot, end);
        const char *trace = handler ? next_field(handler, end) : NULL;
        const char *key = trace ? next_field(trace, end) : NULL;
        if (key == NULL || memchr(key, 0, (size_t)(end - key)) == NULL) continue;
        put_string("chatterbots: the process died on signal ");
        put_number(signal_number);
        put_string(" while bot ");
        put_string(bot);
        put_string(" ran ");
        put_string(handler);
        put_string(" (trace ");
        put_string(trace);
        put_string(", ");
        put_string(key);
        put_string(")\n");
        written++;
    }
    return written;
}

static void report(int signal_number) {
    int tables = 0;
    int written = 0;
    for (size_t entry = 0; entry < CHATTER_IN_FLIGHT_MAX_TABLES; entry++) {
        const unsigned char *table = atomic_load(&report_entries[entry].table);
        if (table == NULL || table == &entry_reserved) continue;
        tables++;
        written += report_table(signal_number, table, report_entries[entry].slot_size, *report_entries[entry].slot_count);
    }
    if (tables > 0 && written == 0) {
        put_string("chatterbots: the process died on signal ");
        put_number(signal_number);
        put_string(" while no bot handler was running\n");
    }
}

static void crash_handler(int signal_number, siginfo_t *info, void *context);

/// Whether `action` runs the report's handler, whichever way it was installed (`sigaction` or `signal`).
static int is_report_handler(const struct sigaction *action) {
    return (action->sa_flags & SA_SIGINFO) ? action->sa_sigaction == crash_handler
                                           : (void (*)(int, siginfo_t *, void *))(void *)action->sa_handler == crash_handler;
}

static void crash_handler(int signal_number, siginfo_t *info, void *context) {
    if (report_entered) {
        signal(signal_number, SIG_DFL);
        raise(signal_number);
        return;
    }
    report_entered = 1;
    atomic_store(&reporting, 1);
    report(signal_number);
    for (size_t index = 0; index < CRASH_SIGNAL_COUNT; index++) {
        if (crash_signals[index] != signal_number) continue;
        struct sigaction *previous = &previous_actions[index];
        // The handler before also blocks the signals it asked to block.
        sigset_t unblocked;
        pthread_sigmask(SIG_BLOCK, &previous->sa_mask, &unblocked);
        if (is_report_handler(previous)) {
            // Never itself (restored by code that saved it with `signal`): that would end the process here.
        } else if (previous->sa_flags & SA_SIGINFO) {
            if (previous->sa_sigaction != NULL) previous->sa_sigaction(signal_number, info, context);
        } else if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN && previous->sa_handler != NULL) {
            previous->sa_handler(signal_number);
        }
        pthread_sigmask(SIG_SETMASK, &unblocked, NULL);
    }
    report(signal_number);
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

/// Installs `crash_handler` for each crash signal whose handler is not it, keeping the one it replaces to run after
/// the report: Swift's backtracer at the first call, a handler installed since at a later one. Called with
/// `installing` held.
static void install_handlers(void) {
    for (size_t index = 0; index < CRASH_SIGNAL_COUNT; index++) {
        struct sigaction current;
        if (sigaction(crash_signals[index], NULL, &current) != 0) continue;
        if (is_report_handler(&current)) continue;
        // Saved before the report's handler goes live, so that a crash in between finds it.
        previous_actions[index] = current;
        struct sigaction action;
        memset(&action, 0, sizeof(action));
        action.sa_sigaction = crash_handler;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
        // Other signals wait while the report and the backtrace are written; another crash signal still ends it.
        sigfillset(&action.sa_mask);
        for (size_t other = 0; other < CRASH_SIGNAL_COUNT; other++) sigdelset(&action.sa_mask, crash_signals[other]);
        sigaction(crash_signals[index], &action, NULL);
    }
}

int chatter_in_flight_add_crash_report(const void *table, uint32_t slot_size, const volatile uint32_t *slot_count) {
    while (atomic_flag_test_and_set_explicit(&installing, memory_order_acquire)) {}
    install_handlers();
    atomic_flag_clear_explicit(&installing, memory_order_release);
    for (size_t entry = 0; entry < CHATTER_IN_FLIGHT_MAX_TABLES; entry++) {
        if (atomic_load_explicit(&report_entries[entry].table, memory_order_acquire) == table) return 0;
    }
    for (size_t entry = 0; entry < CHATTER_IN_FLIGHT_MAX_TABLES; entry++) {
        // Reserved first, so that the handler skips the entry until its fields are written.
        const unsigned char *expected = NULL;
        if (!atomic_compare_exchange_strong(&report_entries[entry].table, &expected, &entry_reserved)) continue;
        report_entries[entry].slot_size = slot_size;
        report_entries[entry].slot_count = slot_count;
        atomic_store_explicit(&report_entries[entry].table, (const unsigned char *)table, memory_order_release);
        return 0;
    }
    return -1;
}

int chatter_in_flight_remove_crash_report(const void *table) {
    for (size_t entry = 0; entry < CHATTER_IN_FLIGHT_MAX_TABLES; entry++) {
        const unsigned char *expected = table;
        atomic_compare_exchange_strong(&report_entries[entry].table, &expected, NULL);
    }
    // A crash is being reported, and its handler may have found the table before it was cleared.
    return atomic_load(&reporting) ? -1 : 0;
}
