/// The body of a streamed HTTP response (`HTTPServerResponse.stream`), sent in chunks as they come: server-sent
/// events, a long download. Each `send` writes one chunk (`Transfer-Encoding: chunked`); the response ends when the
/// server's body closure returns, or the client goes away.
public struct HTTPResponseStream: Sendable {
    private let channel: SocketChannel

    init(channel: SocketChannel) {
        self.channel = channel
    }

    /// Sends `bytes` as one chunk, waiting while the client is slow to read. Returns false once the connection is
    /// closed (the client left): the body closure should then return.
    public func send(_ bytes: [UInt8]) async -> Bool {
        guard !bytes.isEmpty else { return isOpen }
        let chunk = Array(String(bytes.count, radix: 16).utf8) + [13, 10] + bytes + [13, 10]
        switch channel.write(chunk) {
        case .closed:
            return false
        case .accepted(let mustWait):
            return mustWait ? await channel.waitUntilWritable() : true
        }
    }

    /// Whether the client is still connected.
    public var isOpen: Bool { !channel.isClosed }

    /// Suspends until the connection closes (the client left, or the server shuts down).
    public func waitUntilClosed() async {
        await channel.waitUntilClosed()
    }

    /// Ends the body (the last, empty chunk) and closes the connection, before the body closure returns (it then
    /// ends at once); nothing more can be sent.
    public func end() {
        _ = channel.write(Array("0\r\n\r\n".utf8))
        channel.closeGracefully(drainTimeout: .seconds(2))
    }
}
