import COpenSSL

/// The calling thread's OpenSSL error queue: cleared before each OpenSSL call so that failures read after it
/// belong to that call, and drained into text for `TLSError`.
enum OpenSSLErrorQueue {
    /// One queued OpenSSL error: its packed code and its text, e.g. "error:0A000086:SSL routines::certificate verify failed".
    struct Entry {
        let code: UInt
        let text: String

        var library: Int32 { ERR_GET_LIB(code) }
        var reason: Int32 { ERR_GET_REASON(code) }
    }

    static func clear() {
        ERR_clear_error()
    }

    /// Removes every queued error, oldest first.
    static func drain() -> [Entry] {
        var entries: [Entry] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { return entries }
            entries.append(Entry(code: code, text: text(of: code)))
        }
    }

    /// Drains the queue into one line, or `fallback` when OpenSSL queued nothing.
    static func drainReason(fallback: String) -> String {
        reason(of: drain(), fallback: fallback)
    }

    static func reason(of entries: [Entry], fallback: String) -> String {
        entries.isEmpty ? fallback : entries.map(\.text).joined(separator: "; ")
    }

    private static func text(of code: UInt) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            guard let base = buffer.baseAddress else { return "OpenSSL error \(code)" }
            ERR_error_string_n(code, base, buffer.count)
            return String(cString: base)
        }
    }
}
