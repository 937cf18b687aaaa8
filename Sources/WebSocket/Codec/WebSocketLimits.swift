/// Upper bounds on what a peer may make this endpoint buffer; exceeding one fails the connection with 1009.
public struct WebSocketLimits: Sendable, Hashable {
    /// The largest payload accepted in a single frame, in bytes.
    public var maxFrameSize: Int
    /// The largest message accepted after reassembling its fragments, in bytes.
    public var maxMessageSize: Int

    /// Creates limits; both default to 16 MiB. A frame limit below 125 is raised to 125 so control frames fit.
    public init(maxFrameSize: Int = 1 << 24, maxMessageSize: Int = 1 << 24) {
        self.maxFrameSize = max(125, maxFrameSize)
        self.maxMessageSize = max(0, maxMessageSize)
    }

    /// 16 MiB per frame and per message.
    public static let `default` = WebSocketLimits()
}
