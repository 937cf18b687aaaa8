/// What a `SocketChannel` delivers to the protocol layered on it (HTTP, then WebSocket); always called on the
/// channel's event loop thread, in order.
protocol ChannelHandler: AnyObject, Sendable {
    /// Bytes received (plaintext, after TLS); valid only during the call.
    func channelRead(_ channel: SocketChannel, _ bytes: UnsafeRawBufferPointer)
    /// The transport is gone: the peer closed it (`error` nil for an orderly end of stream), it failed, or we
    /// closed it. Called exactly once; nothing is read after it.
    func channelClosed(_ channel: SocketChannel, error: ChannelError?)
}

/// Why a channel closed abnormally.
enum ChannelError: Error, Sendable, CustomStringConvertible {
    /// A socket system call failed (e.g. ECONNRESET from read).
    case io(IOError)
    /// The TLS session failed: a handshake or verification error, a bad record, or a truncated stream.
    case tls(TLSError)

    var description: String {
        switch self {
        case .io(let error): error.description
        case .tls(let error): error.description
        }
    }
}
