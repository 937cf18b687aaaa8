import ChatterBots

/// How many messages each `GET /conversations/{id}/messages?afterSeq=` page of a backfill asks for, per
/// conversation, for the session's life.
///
/// A page of the configured size (100 by default) of messages of up to about 1 MB each (4,096 characters counted
/// as grapheme clusters) can be larger than the HTTP client accepts (16 MiB by default): a refused page is asked
/// for again with fewer messages (`ResponseSizeHalving`). The conversation keeps the smaller size for its later
/// pages and fetches, since its next messages are likely as large: once one fetch learned it, the next cost no
/// refused request.
///
/// The size doubles again after a page whose largest message shows that twice as many messages that large fit in
/// the limit that refused: a refused page costs a round trip and up to that limit in bytes, so the size grows only
/// on evidence, and a step at a time because one page of small messages says little of the next. A conversation
/// back at the configured size is forgotten, so only conversations of large messages are remembered.
struct BackfillPageSize: Sendable, Equatable {
    /// A message's fixed fields (ids, seq, kind, times) in JSON, with room to spare: about 400 bytes usually.
    static let fieldsBytes = 1_024
    /// How much larger text can be in a response than in UTF-8: a service may write each two-byte character as a
    /// six-byte `\u` escape.
    static let escapeGrowth = 3

    /// Messages a page of a conversation that had no page refused.
    let configured: Int
    /// The conversations asking for fewer messages a page than `configured`.
    private var learned: [Conversation.ID: Learned] = [:]

    private struct Learned: Sendable, Equatable {
        /// The `limit` of the conversation's next page.
        var limit: Int
        /// The largest response body the HTTP client accepts, in bytes, as its refusal said.
        var responseLimit: Int
    }

    /// Starts every conversation at `configured` messages a page (at least one).
    init(configured: Int) {
        self.configured = max(1, configured)
    }

    /// The `limit` of `conversation`'s next page.
    func limit(in conversation: Conversation.ID) -> Int {
        learned[conversation]?.limit ?? configured
    }

    /// How many conversations ask for fewer messages a page than configured.
    var rememberedCount: Int { learned.count }

    /// A page of `conversation` was refused as larger than the `responseLimit` bytes the client accepts: returns
    /// the fewer messages its next page asks for, nil when it asked for one already (a single message over the
    /// client's limit: only a larger limit helps).
    mutating func pageRefused(in conversation: Conversation.ID, responseLimit: Int) -> Int? {
        guard let fewer = ResponseSizeHalving.next(after: limit(in: conversation)) else { return nil }
        learned[conversation] = Learned(limit: fewer, responseLimit: responseLimit)
        return fewer
    }

    /// A page of `conversation` came with `messages`: a smaller size doubles when twice as many messages as large
    /// as the largest of them fit in the limit that refused, and is forgotten once back at the configured size.
    mutating func pageFetched(_ messages: [Message], in conversation: Conversation.ID) {
        guard let current = learned[conversation], let largest = messages.map(Self.largestBytes(of:)).max() else { return }
        let doubled = current.limit * 2
        guard doubled * largest <= current.responseLimit else { return }
        if doubled >= configured {
            learned[conversation] = nil
        } else {
            learned[conversation]?.limit = doubled
        }
    }

    /// The most bytes `message` can take in a response: its text escaped at worst, and its other fields.
    static func largestBytes(of message: Message) -> Int {
        let reactions = message.reactions.reduce(0) { total, reaction in
            // Each user id is 26 characters, quoted, with a comma.
            total + reaction.emoji.utf8.count * escapeGrowth + 32 + reaction.userIds.count * 29
        }
        return (message.body?.utf8.count ?? 0) * escapeGrowth + reactions + fieldsBytes
    }
}
