import WebSocket

/// Where a part of a console event stream writes its server-sent events. On a route of the part's own
/// (`/console/logs`) an event keeps its name (`ready`); on the page's one stream its name is prefixed with the part's
/// (`logs-ready`), unless it is the part's name itself (`logs`, `fleet`), so that the page tells the parts apart.
package struct ConsoleEventSink: Sendable {
    /// The part on the page's one stream; nil on a route of its own.
    package let part: String?
    private let write: @Sendable ([UInt8]) async -> Bool

    package init(part: String?, write: @escaping @Sendable ([UInt8]) async -> Bool) {
        self.part = part
        self.write = write
    }

    /// The event `kind` with `data` (one line of JSON), as bytes to send.
    package func event(_ kind: String, _ data: [UInt8]) -> [UInt8] {
        let name = part.map { $0 == kind ? kind : "\($0)-\(kind)" } ?? kind
        return Array("event: \(name)\ndata: ".utf8) + data + Array("\n\n".utf8)
    }

    /// Sends `bytes` (whole events or comments) at once; false once the stream is closed.
    package func send(_ bytes: [UInt8]) async -> Bool {
        await write(bytes)
    }
}
