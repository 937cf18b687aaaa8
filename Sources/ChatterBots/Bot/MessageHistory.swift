/// A conversation's history, newest message first, read from the service a page at a time
/// (`GET …/messages?beforeSeq=`) as it is iterated. Get one from `BotService.history(of:before:pageSize:)`.
public struct MessageHistory: AsyncSequence, Sendable {
    private let conversationId: Conversation.ID
    private let before: Int?
    private let pageSize: Int
    private let service: any BotService

    init(conversationId: Conversation.ID, before: Int?, pageSize: Int, service: any BotService) {
        self.conversationId = conversationId
        self.before = before
        self.pageSize = pageSize
        self.service = service
    }

    /// An iterator that fetches the first page when first asked for a message.
    public func makeAsyncIterator() -> Iterator {
        Iterator(history: self)
    }

    /// Reads the history page by page; a failed fetch throws from `next()`.
    public struct Iterator: AsyncIteratorProtocol {
        private let history: MessageHistory
        private var page: [Message] = []
        private var position = 0
        /// The `beforeSeq` of the next fetch; nil until the first one is known.
        private var cursor: Int?
        private var hasMore = true

        init(history: MessageHistory) {
            self.history = history
            self.cursor = history.before
        }

        /// The next older message, or nil when the conversation's first message has been read.
        public mutating func next() async throws -> Message? {
            if position < page.count {
                defer { position += 1 }
                return page[position]
            }
            guard hasMore else { return nil }
            let before: Int
            if let cursor {
                before = cursor
            } else {
                before = try await history.service.conversation(history.conversationId).lastSeq + 1
            }
            // The service refuses a `beforeSeq` below 1; nothing lies before the first message anyway.
            guard before > 1 else {
                hasMore = false
                return nil
            }
            let fetched = try await history.service.messages(in: history.conversationId, beforeSeq: before, limit: history.pageSize)
            page = fetched.messages
            position = 0
            hasMore = fetched.hasMore
            cursor = page.last?.seq
            guard !page.isEmpty else {
                hasMore = false
                return nil
            }
            position = 1
            return page[0]
        }
    }
}
