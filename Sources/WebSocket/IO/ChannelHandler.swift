/// What a `SocketChannel` delivers to the protocol layered on it (HTTP, then WebSocket); always called on the
/// channel's event loop thread, in order.
protocol ChannelHandler: AnyObject, Sendable {
    /// Bytes received (plaintext, after TLS); valid only during the call.
    func channelRead(_ channel: SocketChannel, _ bytes: UnsafeRawBufferPointer)
    /// The transport is gone: the peer closed it (`error` nil for an orderly end of stream), it failed, or we closed it.
    /// Called exactly once; nothing is read after it.
    func channelClosed(_ channel: SocketChannel, error: IOError?)
}
