@testable import ChatterBotsCLI
@testable import BotRuntime
import ChatterBots
import Foundation
import Synchronization

/// People, conversations and messages for the terminal client's tests, and a screen signed in as alice.
enum ChatFixtures {
    static let alice = User(id: "01USERALICE", username: "alice", displayName: "Alice")
    static let bob = User(id: "01USERBOB", username: "bob", displayName: "Bob")
    static let carol = User(id: "01USERCAROL", username: "carol", displayName: "Carol")
    static let dave = User(id: "01USERDAVE", username: "dave", displayName: "Dave")

    static let withBob: Conversation.ID = "01CONVBOB"
    static let team: Conversation.ID = "01CONVTEAM"
    static let withCarol: Conversation.ID = "01CONVCAROL"

    /// 2026-10-22 at `hour`:`minute` UTC.
    static func time(_ hour: Int, _ minute: Int, second: Int = 0) -> Timestamp {
        let base: Int64 = 1_792_627_200_000  // 2026-10-22T00:00:00Z
        return Timestamp(millisecondsSince1970: base + Int64(((hour * 60 + minute) * 60 + second) * 1000))
    }

    static func message(
        _ id: String, in conversation: Conversation.ID, seq: Int, from sender: User, _ body: String,
        at time: Timestamp = time(14, 3), kind: Message.Kind = .text
    ) -> Message {
        Message(
            id: Message.ID(id), conversationId: conversation, seq: seq, senderId: sender.id,
            clientMessageId: ClientMessageID("c-\(id)"), kind: kind, body: body, createdAt: time)
    }

    static func conversation(
        _ id: Conversation.ID, kind: Conversation.Kind = .direct, title: String? = nil, members: [User],
        lastSeq: Int = 0, read: [User.ID: Int] = [:], delivered: [User.ID: Int] = [:], lastMessage: Message? = nil,
        updatedAt: Timestamp = time(9, 0)
    ) -> Conversation {
        Conversation(
            id: id, kind: kind, title: title,
            members: members.map {
                Member(
                    userId: $0.id, role: .member, lastDeliveredSeq: max(delivered[$0.id] ?? 0, read[$0.id] ?? 0),
                    lastReadSeq: read[$0.id] ?? 0)
            },
            lastSeq: lastSeq, lastMessage: lastMessage, createdAt: time(8, 0), updatedAt: updatedAt)
    }

    static func friend(_ user: User) -> Friend { Friend(user: user, since: time(8, 0)) }

    static func request(_ id: String, from: User, to: User) -> FriendRequest {
        FriendRequest(id: FriendRequest.ID(id), fromUser: from, toUser: to, createdAt: time(10, 0))
    }

    /// alice's world: friends bob and carol; a direct conversation with bob (5 messages, alice read 3);
    /// a group "Team" of alice, bob and carol (2 messages, the last alice's own).
    static func directory(
        conversations: [Conversation]? = nil, incoming: [FriendRequest] = [], friends: [User] = [bob, carol]
    ) -> ChatDirectory {
        ChatDirectory(
            friends: friends.map(friend), incomingRequests: incoming,
            conversations: conversations ?? [
                conversation(
                    withBob, members: [alice, bob], lastSeq: 5, read: [alice.id: 3, bob.id: 5],
                    lastMessage: message("M-BOB-5", in: withBob, seq: 5, from: bob, "see you at 8?", at: time(13, 0)),
                    updatedAt: time(13, 0)),
                conversation(
                    team, kind: .group, title: "Team", members: [alice, bob, carol], lastSeq: 2,
                    read: [alice.id: 1, bob.id: 2, carol.id: 2],
                    lastMessage: message("M-TEAM-2", in: team, seq: 2, from: alice, "lunch?", at: time(12, 0)),
                    updatedAt: time(12, 0)),
            ])
    }

    /// Fresh client message ids `cm-1`, `cm-2`, ….
    static func messageIDs() -> @Sendable () -> ClientMessageID {
        let counter = Atomic<Int>(0)
        return { ClientMessageID("cm-\(counter.add(1, ordering: .relaxed).newValue)") }
    }

    /// A screen signed in as alice with `directory`, connected unless told otherwise, times in UTC.
    static func screen(directory: ChatDirectory = directory(), connected: Bool = true) -> ChatScreen {
        var screen = ChatScreen(historyLimit: 20, timeZone: TimeZone(identifier: "UTC") ?? .current, makeMessageID: messageIDs())
        _ = screen.handle(.signedIn(alice))
        _ = screen.handle(.directoryLoaded(directory))
        if connected {
            _ = screen.handle(.connected)
            _ = screen.handle(.catchUpEnded(failure: nil))  // nothing was missed
        }
        return screen
    }

    /// `screen` with the conversation with bob open and its history shown.
    static func screenWithBobOpen(connected: Bool = true) -> ChatScreen {
        var screen = screen(connected: connected)
        _ = screen.handle(.line("/open bob"))
        _ = screen.handle(.historyLoaded(withBob, [
            message("M-BOB-4", in: withBob, seq: 4, from: alice, "are we on tonight?", at: time(12, 59)),
            message("M-BOB-5", in: withBob, seq: 5, from: bob, "see you at 8?", at: time(13, 0)),
        ]))
        return screen
    }
}

extension ChatUpdate {
    /// Whether some line contains `text`.
    func shows(_ text: String) -> Bool { lines.contains { $0.text.contains(text) } }
}
