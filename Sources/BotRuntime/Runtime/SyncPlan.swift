import ChatterBots

/// How the sync after `session.ready` is cut into `sync.request`s so that neither direction trips a frame limit:
/// the service closes any text frame over 64 KiB with 1009, and the client refuses an incoming message over its
/// own limit (`WebSocketLimits.maxMessageSize`, 16 MiB by default) the same way. Either would repeat on every
/// reconnect, and the bot would never go live.
///
/// A request names at most `maxConversationsPerRequest` conversations (about 40 bytes each: well under 64 KiB),
/// and no more than the response of `limitPerConversation` usual large messages per conversation fits in half the
/// inbound limit. What a conversation has beyond `limitPerConversation` comes through `hasMore` paging.
///
/// The service counts a message's 4,096 characters as grapheme clusters, so one message can be far larger (about
/// 1 MB): when this client refuses a sync's response as too large, the plan asks for less until a sync succeeds.
/// The session keeps the plan across its connections.
package struct SyncPlan: Sendable, Equatable {
    /// The most conversations one `sync.request` names.
    static let maxConversationsPerRequest = 1_000
    /// The default `limitPerConversation`: a few screens of catch-up inline, the rest paged over REST.
    static let defaultLimitPerConversation = 20
    /// A large message as the plan expects it in a `sync.response`: 4,096 characters of up to 4 UTF-8 bytes, with
    /// its fields. Characters of many code points make larger ones, which `responseRefused()` copes with.
    static let worstCaseMessageBytes = 4_096 * 4 + 1_024

    /// `limitPerConversation` of every request.
    private(set) var limitPerConversation: Int
    /// How many conversations each request names.
    private(set) var conversationsPerRequest: Int
    /// The sizes the plan starts with, and returns to after a successful sync.
    private let configured: Sizes

    private struct Sizes: Sendable, Equatable {
        var limitPerConversation: Int
        var conversationsPerRequest: Int
    }

    /// - Parameters:
    ///   - limitPerConversation: the configured limit; nil for `defaultLimitPerConversation`.
    ///   - inboundMessageLimit: the largest message the client's WebSocket accepts, in bytes.
    package init(limitPerConversation: Int?, inboundMessageLimit: Int) {
        let limit = max(1, limitPerConversation ?? Self.defaultLimitPerConversation)
        let budget = max(0, inboundMessageLimit / 2)
        let fitting = budget / (limit * Self.worstCaseMessageBytes)
        let conversations = min(Self.maxConversationsPerRequest, max(1, fitting))
        self.configured = Sizes(limitPerConversation: limit, conversationsPerRequest: conversations)
        self.limitPerConversation = limit
        self.conversationsPerRequest = conversations
    }

    /// Whether the plan asks for as little as it can: one message of one conversation per request.
    package var isAtFloor: Bool { conversationsPerRequest == 1 && limitPerConversation == 1 }

    /// This client refused a `sync.response` as too large (it closed the connection with 1009): the next sync asks
    /// for fewer conversations per request (`ResponseSizeHalving`), and once at one, for fewer messages per
    /// conversation, down to one of each. Returns false when the plan was at its floor already.
    @discardableResult
    package mutating func responseRefused() -> Bool {
        if let fewer = ResponseSizeHalving.next(after: conversationsPerRequest) {
            conversationsPerRequest = fewer
        } else if let fewer = ResponseSizeHalving.next(after: limitPerConversation) {
            limitPerConversation = fewer
        } else {
            return false
        }
        return true
    }

    /// The connection of a sync ended with `reason` before the sync finished: a response this client refused as
    /// too large makes the next sync ask for less (`responseRefused()`); any other end leaves the plan. Returns
    /// whether the plan shrank.
    package mutating func syncInterrupted(by reason: RealtimeCloseReason) -> Bool {
        guard case .incomingMessageTooLarge = reason else { return false }
        return responseRefused()
    }

    /// A sync succeeded: the next one asks for the configured sizes again.
    package mutating func synchronized() {
        limitPerConversation = configured.limitPerConversation
        conversationsPerRequest = configured.conversationsPerRequest
    }

    /// Where the REST paging after a conversation's part of a `sync.response` starts: after its last message, or
    /// after `requestedAfter` (the seq the request named) when `hasMore` came without messages; nil when the
    /// response holds everything.
    static func pagingStart(after sync: ConversationSync, requestedAfter: Int?) -> Int? {
        guard sync.hasMore else { return nil }
        return sync.messages.last?.seq ?? requestedAfter
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
