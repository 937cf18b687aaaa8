import CInFlight
import Foundation
import Glibc
import Synchronization

/// The handler work running now in this process, kept in a file mapped into memory
/// (`<dataDirectory>/in-flight.table`): a handler claims a slot before it runs and clears it when it returns.
///
/// A write to the mapping is a write to the page cache, which outlives the process however it dies (a trap, an
/// abort, a SIGKILL from the kernel's OOM killer), and costs no system call: a slot still busy when the next
/// process opens the table is work that was running when the process died (a leftover). It does not survive a
/// power loss, which is not what it guards against. The same slots name what was running in the crash report
/// that the process writes to standard error when it dies on a signal.
///
/// One process at a time uses a data directory's table: opening takes an exclusive lock on the file.
package final class InFlightTable: @unchecked Sendable {
    // Unchecked: `base` points into a shared mapping; each slot is written only by the task that claimed it, under
    // the claim made through `slots`' lock, and the mapping lives as long as the table.

    /// One piece of handler work, as a slot holds it.
    package struct Record: Hashable, Sendable {
        /// The bot's configured name.
        package var bot: String
        /// The handler, e.g. `onMessage`.
        package var handler: String
        /// The trace id of the work.
        package var trace: String
        /// What names the work across restarts (see `HandlerWork.workKey`).
        package var key: String
        /// A short description for people: a message's text, shortened.
        package var summary: String
        /// When the handler started.
        package var startedAt: Date

        package init(bot: String, handler: String, trace: String, key: String, summary: String, startedAt: Date) {
            self.bot = bot
            self.handler = handler
            self.trace = trace
            self.key = key
            self.summary = summary
            self.startedAt = startedAt
        }
    }

    /// A claimed slot, to be released once.
    package struct Slot: Sendable, Hashable {
        fileprivate let index: UInt32
    }

    package static let fileName = "in-flight.table"
    static let slotSize = 512
    static let magic: UInt64 = 0x3154_4C46_4E49_4243  // "CBINFLT1" read little-endian
    static let busy = UInt32(CHATTER_IN_FLIGHT_BUSY)

    private struct Slots {
        var free: [UInt32] = []
        var used: UInt32 = 0
    }

    private let base: UnsafeMutableRawPointer
    private let length: Int
    private let capacity: UInt32
    private let descriptor: Int32
    private let slots = Mutex(Slots())
    /// The work found running when the table was opened: what the previous process was doing when it died.
    package let leftovers: [Record]

    /// Opens (or creates) the table of `directory`, reads its leftovers, and keeps them until ``forgetLeftovers()``.
    ///
    /// - Parameter capacity: how many handlers may be marked at once; the file is sparse, so unused slots cost
    ///   neither disk nor memory. A handler that finds every slot taken runs unmarked.
    /// - Throws: `InFlightTableError` when the file cannot be opened, locked or mapped.
    package init(directory: URL, capacity: Int = 65_536) throws(InFlightTableError) {
        let path = directory.appendingPathComponent(Self.fileName).path
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotOpen(path, errno: errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw code == EWOULDBLOCK ? .inUse(path) : .cannotOpen(path, errno: code)
        }
        let length = Self.slotSize * (capacity + 1)
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size >= length || ftruncate(fd, off_t(length)) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw .cannotOpen(path, errno: code)
        }
        let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let mapped, mapped != MAP_FAILED else {
            let code = errno
            Glibc.close(fd)
            throw .cannotMap(path, errno: code)
        }
        self.base = mapped
        self.length = length
        self.capacity = UInt32(capacity)
        self.descriptor = fd
        if mapped.load(as: UInt64.self) != Self.magic {
            memset(mapped, 0, Self.slotSize)
            mapped.storeBytes(of: UInt32(Self.slotSize), toByteOffset: 8, as: UInt32.self)
            mapped.storeBytes(of: Self.magic, as: UInt64.self)
        }
        let used = min(mapped.load(fromByteOffset: 12, as: UInt32.self), UInt32(capacity))
        var found: [Record] = []
        for index in 0..<used {
            if let record = Self.record(at: mapped.advanced(by: Self.slotSize * Int(index + 1))) { found.append(record) }
        }
        self.leftovers = found
        slots.withLock { $0.used = used }
    }

    deinit {
        // While a crash is being reported, the handler may be reading the mapping: it stays until the process ends.
        if chatter_in_flight_remove_crash_report(base) == 0 {
            munmap(base, length)
        }
        Glibc.close(descriptor)
    }

    /// The lock of a data directory's table, held without using the table: while it lives, no `run` starts on the
    /// directory (its table would be `inUse`).
    package final class IdleLock: Sendable {
        private let descriptor: Int32

        fileprivate init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        deinit {
            Glibc.close(descriptor)
        }
    }

    /// Takes the table's lock of `directory` (creating the table's file when missing), for work on the directory's
    /// stores while no process runs bots from it.
    ///
    /// - Throws: `.inUse` when a running process has the table.
    package static func lockIdle(directory: URL) throws(InFlightTableError) -> IdleLock {
        let path = directory.appendingPathComponent(fileName).path
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotOpen(path, errno: errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw code == EWOULDBLOCK ? .inUse(path) : .cannotOpen(path, errno: code)
        }
        return IdleLock(descriptor: fd)
    }

    /// Clears every slot: the leftovers were recorded where they belong (each bot's store). Call it at a start,
    /// before any handler claims a slot.
    package func forgetLeftovers() {
        slots.withLock { slots in
            memset(base.advanced(by: Self.slotSize), 0, Self.slotSize * Int(slots.used))
            slots.used = 0
            slots.free = []
            base.storeBytes(of: UInt32(0), toByteOffset: 12, as: UInt32.self)
        }
    }

    /// Unmarks every slot in use, keeping them claimed: at an orderly end of the process, what still runs (a handler
    /// that ignored its timeout) did not crash it. Its owner's later `release` stays safe.
    package func unmarkRunning() {
        slots.withLock { slots in
            for index in 0..<Int(slots.used) {
                base.advanced(by: Self.slotSize * (index + 1)).storeBytes(of: UInt32(0), as: UInt32.self)
            }
        }
    }

    /// Marks `record` as running; nil when every slot is taken (the work then runs unmarked).
    package func claim(_ record: Record) -> Slot? {
        let index: UInt32? = slots.withLock { slots in
            if let index = slots.free.popLast() { return index }
            guard slots.used < capacity else { return nil }
            slots.used += 1
            base.storeBytes(of: slots.used, toByteOffset: 12, as: UInt32.self)
            return slots.used - 1
        }
        guard let index else { return nil }
        let slot = base.advanced(by: Self.slotSize * Int(index + 1))
        slot.storeBytes(of: UInt64(bitPattern: Int64(record.startedAt.timeIntervalSince1970 * 1000)), toByteOffset: 8, as: UInt64.self)
        var offset = 16
        for field in [record.bot, record.handler, record.trace, record.key, record.summary] {
            offset = Self.write(field, into: slot, at: offset)
        }
        slot.storeBytes(of: Self.busy, as: UInt32.self)
        return Slot(index: index)
    }

    /// Clears a slot ``claim(_:)`` returned: the work is no longer running.
    package func release(_ slot: Slot) {
        base.advanced(by: Self.slotSize * Int(slot.index + 1)).storeBytes(of: UInt32(0), as: UInt32.self)
        slots.withLock { $0.free.append(slot.index) }
    }

    /// The work marked as running now (for tests and the crash report's checks).
    package var running: [Record] {
        let used = slots.withLock { $0.used }
        return (0..<used).compactMap { Self.record(at: base.advanced(by: Self.slotSize * Int($0 + 1))) }
    }

    /// Writes the lines naming the running work to standard error when the process dies on a crash signal, for as
    /// long as the table lives. Other tables of the process (a second `run` in one process, as tests make) keep
    /// theirs. False when the process has `CHATTER_IN_FLIGHT_MAX_TABLES` tables in its report already.
    @discardableResult
    package func installCrashReport() -> Bool {
        chatter_in_flight_add_crash_report(
            UnsafeRawPointer(base), UInt32(Self.slotSize),
            UnsafeRawPointer(base.advanced(by: 12)).assumingMemoryBound(to: UInt32.self)) == 0
    }

    /// Writes `text` as a NUL-terminated field, shortened (at a character boundary) to fit the slot; returns the
    /// offset after it. A NUL inside the text is written as `?`, so that it cannot end the field early.
    private static func write(_ text: String, into slot: UnsafeMutableRawPointer, at offset: Int) -> Int {
        let room = max(0, min(slotSize - offset - 1, maxFieldBytes))
        var text = text
        let count = text.withUTF8 { source -> Int in
            var count = min(source.count, room)
            // Never cut a character in two: back off over the continuation bytes of a cut one.
            if count < source.count {
                while count > 0, source[count] & 0xC0 == 0x80 { count -= 1 }
            }
            guard count > 0, let base = source.baseAddress else { return 0 }
            let target = slot.advanced(by: offset)
            target.copyMemory(from: base, byteCount: count)
            let bytes = target.assumingMemoryBound(to: UInt8.self)
            var cursor = memchr(bytes, 0, count)
            while let found = cursor {
                found.storeBytes(of: UInt8(ascii: "?"), as: UInt8.self)
                let next = found.advanced(by: 1)
                cursor = memchr(next, 0, count - (next - UnsafeMutableRawPointer(bytes)))
            }
            return count
        }
        slot.storeBytes(of: UInt8(0), toByteOffset: offset + count, as: UInt8.self)
        return offset + count + 1
    }

    /// The most bytes a field takes.
    static let maxFieldBytes = 160

    private static func record(at slot: UnsafeMutableRawPointer) -> Record? {
        guard slot.load(as: UInt32.self) == busy else { return nil }
        let started = Int64(bitPattern: slot.load(fromByteOffset: 8, as: UInt64.self))
        var fields: [String] = []
        var offset = 16
        while fields.count < 5, offset < slotSize {
            var end = offset
            while end < slotSize, slot.load(fromByteOffset: end, as: UInt8.self) != 0 { end += 1 }
            guard end < slotSize else { return nil }
            fields.append(String(decoding: UnsafeRawBufferPointer(start: slot.advanced(by: offset), count: end - offset), as: UTF8.self))
            offset = end + 1
        }
        guard fields.count == 5 else { return nil }
        return Record(
            bot: fields[0], handler: fields[1], trace: fields[2], key: fields[3], summary: fields[4],
            startedAt: Date(timeIntervalSince1970: Double(started) / 1000))
    }
}

/// Why the in-flight table of a data directory cannot be used.
package enum InFlightTableError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(String, errno: Int32)
    case cannotMap(String, errno: Int32)
    /// Another process runs bots from the same data directory.
    case inUse(String)

    package var description: String {
        switch self {
        case .cannotOpen(let path, let code):
            "cannot open \(path): \(String(cString: strerror(code))); check that the data directory is writable"
        case .cannotMap(let path, let code):
            "cannot map \(path) into memory: \(String(cString: strerror(code)))"
        case .inUse(let path):
            "\(path) is locked by another process: another `run` uses this data directory; stop it, or give this one its own dataDirectory"
        }
    }
}
