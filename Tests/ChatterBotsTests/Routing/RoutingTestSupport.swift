import Foundation
import Synchronization

@testable import ChatterBots

/// A text message from `sender` in `conversation`, with a fresh id.
func chatMessage(
    _ text: String, from sender: User.ID = "U1", in conversation: Conversation.ID = "C1", kind: Message.Kind = .text
) -> IncomingMessage {
    IncomingMessage(Message(
        id: Message.ID(UUID().uuidString), conversationId: conversation, seq: 1, senderId: sender,
        clientMessageId: .random(), kind: kind, body: text, createdAt: Timestamp(millisecondsSince1970: 1_792_677_791_482)))
}

extension RecordingBotContext {
    /// Routes `text` from `sender` through `router`, as the runtime would deliver it.
    @discardableResult
    func say(
        _ text: String, from sender: User.ID = "U1", in conversation: Conversation.ID = "C1", to router: MessageRouter
    ) async throws -> RoutingOutcome {
        try await router.route(chatMessage(text, from: sender, in: conversation), context: self)
    }

    /// The text of every message the bot sent, in order.
    var replies: [String] { sentMessages.compactMap(\.content.body) }

    /// The text the bot sent to `conversation`, in order.
    func replies(in conversation: Conversation.ID) -> [String] {
        sentMessages.filter { $0.conversationId == conversation }.compactMap(\.content.body)
    }
}

/// Records what handlers saw, for tests that assert on it (handlers are `@Sendable`, so no captured vars).
final class HandlerLog<Entry: Sendable>: Sendable {
    private let entries = Mutex<[Entry]>([])

    func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }
    var all: [Entry] { entries.withLock { $0 } }
}
