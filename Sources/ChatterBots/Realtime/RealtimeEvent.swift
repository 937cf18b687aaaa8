/// What a realtime connection's `events` sequence delivers: server frames in arrival order, and diagnostics for
/// frames that could not be read (the session goes on after them).
public enum RealtimeEvent: Sendable, Hashable {
    /// A server frame: an event (a type this version does not know arrives as `.unknown`: ignore it), or a reply
    /// no request awaits (a late reply after a timeout: a `message.ack` still acknowledges its message).
    case frame(ServerFrame)
    /// A frame that was skipped; log it.
    case diagnostic(RealtimeDiagnostic)
}

/// Something the connection reports besides frames, with what is needed to log it: a server frame it skipped, or
/// a consumer falling behind.
public enum RealtimeDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// A text frame that is not a valid frame (not JSON, no `type`, a field of the wrong type), with the start of
    /// its text.
    case malformedFrame(FrameDecodingError, excerpt: String)
    /// A binary frame: the protocol sends JSON text frames only.
    case binaryFrame(byteCount: Int)
    /// The consumer of `events` is behind: `unread` events wait. Replies are still read; once `closesAt` events wait
    /// the connection closes with `RealtimeCloseReason.eventBufferOverflow`. Reported once per backlog: again only
    /// after the consumer has caught up.
    case eventBacklog(unread: Int, closesAt: Int)

    /// How many characters of a malformed frame `excerpt` keeps.
    static let excerptLength = 160

    public var description: String {
        switch self {
        case .malformedFrame(let error, let excerpt): "skipped a malformed frame: \(error); frame: \(excerpt)"
        case .binaryFrame(let count): "skipped a binary frame of \(count) bytes: the protocol uses text frames"
        case .eventBacklog(let unread, let closesAt):
            "events are read more slowly than they arrive: \(unread) wait unread; at \(closesAt) the connection closes"
        }
    }
}
