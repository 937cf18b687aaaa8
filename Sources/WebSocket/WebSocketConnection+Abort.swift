extension WebSocketConnection {
    /// Drops the TCP connection at once, without a close frame or flushing queued bytes: the peer sees the
    /// transport end (1006). For servers and test fixtures that must simulate a lost network.
    public func abort() {
        channel.close()
    }
}
