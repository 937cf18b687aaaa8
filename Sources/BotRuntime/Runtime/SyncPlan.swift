import ChatterBots

/// How the sync after `session.ready` is cut into `sync.request`s so that neither direction trips a frame limit:
/// the service closes any text frame over 64 KiB with 1009, and the client refuses an incoming message over its
/// own limit (`WebSocketLimits.maxMessageSize`, 16 MiB by default) the same way. Either would repeat on every
/// reconnect, and the bot would never go live.
///
/// A request names at most `maxConversationsPerRequest` conversations (about 40 bytes each: well under 64 KiB),
/// and no more than the worst-case response of `limitPerConversation` full-size messages per conversation fits in
/// half the inbound limit. What a conversation has beyond `limitPerConversation` comes through `hasMore` paging.
package struct SyncPlan: Sendable, Equatable {
    /// The most conversations one `sync.request` names.
    static let maxConversationsPerRequest = 1_000
    /// The default `limitPerConversation`: a few screens of catch-up inline, the rest paged over REST.
    static let defaultLimitPerConversation = 20
    /// The largest a message can be in a `sync.response`: 4,096 characters of up to 4 UTF-8 bytes, with its fields.
    static let worstCaseMessageBytes = 4_096 * 4 + 1_024

    /// `limitPerConversation` of every request.
    let limitPerConversation: Int
    /// How many conversations each request names.
    let conversationsPerRequest: Int

    /// - Parameters:
    ///   - limitPerConversation: the configured limit; nil for `defaultLimitPerConversation`.
    ///   - inboundMessageLimit: the largest message the client's WebSocket accepts, in bytes.
    package init(limitPerConversation: Int?, inboundMessageLimit: Int) {
        let limit = max(1, limitPerConversation ?? Self.defaultLimitPerConversation)
        self.limitPerConversation = limit
        let budget = max(0, inboundMessageLimit / 2)
        let fitting = budget / (limit * Self.worstCaseMessageBytes)
        self.conversationsPerRequest = min(Self.maxConversationsPerRequest, max(1, fitting))
    }

    /// The requests for `positions` (conversation → highest contiguous seq), in a stable order.
    package func requests(for positions: [Conversation.ID: Int]) -> [SyncRequest] {
        let ordered = positions.sorted { $0.key.rawValue < $1.key.rawValue }
        return stride(from: 0, to: ordered.count, by: conversationsPerRequest).map { start in
            let chunk = ordered[start..<min(start + conversationsPerRequest, ordered.count)]
            return SyncRequest(
                conversations: Dictionary(uniqueKeysWithValues: chunk.map { ($0.key, $0.value) }),
                limitPerConversation: limitPerConversation)
        }
    }
}
