import BotRuntime
import ChatterBots
import Foundation
import Synchronization
import Testing
@testable import ExampleBotKinds

/// People, conversations and a clock for the bots' tests, and a way to say things to a bot.
enum Chat {
    static let botId: User.ID = "BOT"
    static let alice = User(id: "U-ALICE", username: "alice", displayName: "Alice Moreau")
    static let ben = User(id: "U-BEN", username: "ben_tan", displayName: "Ben Tan")
    /// In groups with the bot but not its friend: the bot cannot see the profile.
    static let stranger = User(id: "U-STRANGER", username: "sam", displayName: "Sam")

    static let aliceChat: Conversation.ID = "D-ALICE"
    static let benChat: Conversation.ID = "D-BEN"
    static let group: Conversation.ID = "G-TEAM"

    static func direct(_ id: Conversation.ID, with user: User) -> Conversation {
        Conversation(
            id: id, kind: .direct, members: [Member(userId: botId, role: .member), Member(userId: user.id, role: .member)],
            lastSeq: 0, createdAt: Timestamp(millisecondsSince1970: 0), updatedAt: Timestamp(millisecondsSince1970: 0))
    }

    static var team: Conversation {
        Conversation(
            id: group, kind: .group, title: "Team",
            members: [botId, alice.id, ben.id, stranger.id].map { Member(userId: $0, role: .member) },
            lastSeq: 0, createdAt: Timestamp(millisecondsSince1970: 0), updatedAt: Timestamp(millisecondsSince1970: 0))
    }

    /// A context for a bot named `name` at `now`, friends with Alice and Ben, in a direct conversation with each
    /// and in the team group.
    static func context(name: String = "test-bot", now: Date, friends: [User] = [alice, ben]) -> RecordingBotContext {
        RecordingBotContext(
            bot: BotIdentity(name: name, userId: botId), now: now,
            friends: friends.map { Friend(user: $0, since: Timestamp(millisecondsSince1970: 0)) },
            users: [alice, ben, stranger],
            conversations: [direct(aliceChat, with: alice), direct(benChat, with: ben), team])
    }

    /// The instant written in ISO 8601 with a zone, "2025-11-30T14:30:00Z".
    static func instant(_ text: String) -> Date {
        guard let timestamp = try? Timestamp(iso8601: text) else {
            Issue.record("Not an ISO 8601 instant: \(text)")
            return .distantPast
        }
        return timestamp.date
    }

    static func zone(_ identifier: String) -> TimeZone {
        guard let zone = TimeZone(identifier: identifier) else {
            Issue.record("Foundation does not know the zone \(identifier)")
            return .gmt
        }
        return zone
    }
}

extension RecordingBotContext {
    /// Delivers `text` from `sender` in `conversation` to `bot`, as the runtime would.
    func say(_ text: String, from sender: User = Chat.alice, in conversation: Conversation.ID = Chat.aliceChat, to bot: some Bot) async throws {
        try await deliver(message(text, from: sender.id, in: conversation), to: bot)
    }

    /// The text of every message the bot sent, in order.
    var sentTexts: [String] { sentMessages.compactMap(\.content.body) }

    /// The texts sent since the first `count` messages.
    func sentTexts(after count: Int) -> [String] { Array(sentTexts.dropFirst(count)) }

    /// Moves the clock to `instant` (forward only).
    func advance(to instant: Date) {
        let milliseconds = Int64((instant.timeIntervalSince(now) * 1000).rounded())
        if milliseconds > 0 { advance(by: .milliseconds(milliseconds)) }
    }
}

/// Bot options from JSON text, as `bots.json` would hold them.
func botOptions(_ json: String) throws -> BotOptions {
    let value = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
    return try BotOptions(encoding: value)
}

/// The error building a bot from `json` options throws, or nil (recording an issue) when it throws none.
func optionsError<B>(_ json: String, _ build: (BotOptions) throws(BotOptionsError) -> B) throws -> BotOptionsError? {
    let options = try botOptions(json)
    do {
        let bot = try build(options)
        Issue.record("Expected an options error, built \(bot)")
        return nil
    } catch {
        return error
    }
}

/// A context that passes everything to a `RecordingBotContext` and counts the friend-list requests, which are
/// what looking up a profile costs. Only the service group is wrapped; the others are the recording's own.
final class CountingBotContext: BotContext {
    let base: RecordingBotContext
    private let counting: CountingService

    init(_ base: RecordingBotContext) {
        self.base = base
        self.counting = CountingService(base: base.service)
    }

    var friendListRequests: Int { counting.friendLookups.withLock { $0 } }

    var bot: BotIdentity { base.bot }
    var now: Date { base.now }
    var logger: BotLogger { base.logger }
    var messaging: any BotMessaging { base.messaging }
    var service: any BotService { counting }
    var state: any BotStateStore { base.state }
    var jobs: any BotJobs { base.jobs }
    var presence: any BotPresence { base.presence }
}

/// A service that counts `friends()` calls and passes every call on.
final class CountingService: BotService {
    let base: any BotService
    let friendLookups = Mutex(0)

    init(base: any BotService) { self.base = base }

    func friends() async throws -> [Friend] {
        friendLookups.withLock { $0 += 1 }
        return try await base.friends()
    }
    func user(_ id: User.ID) async throws -> User { try await base.user(id) }
    func user(named username: String) async throws -> User? { try await base.user(named: username) }
    func profile() async throws -> CurrentUser { try await base.profile() }
    func updateProfile(displayName: String?, privacy: PrivacySettings?) async throws -> User {
        try await base.updateProfile(displayName: displayName, privacy: privacy)
    }
    func friendRequests() async throws -> FriendRequestList { try await base.friendRequests() }
    func acceptFriendRequest(_ id: FriendRequest.ID) async throws -> Friend { try await base.acceptFriendRequest(id) }
    func declineFriendRequest(_ id: FriendRequest.ID) async throws { try await base.declineFriendRequest(id) }
    func sendFriendRequest(to target: FriendRequestBody) async throws -> FriendRequest { try await base.sendFriendRequest(to: target) }
    func removeFriend(_ userId: User.ID) async throws { try await base.removeFriend(userId) }
    func cancelFriendRequest(_ id: FriendRequest.ID) async throws { try await base.cancelFriendRequest(id) }
    func directConversation(with userId: User.ID) async throws -> Conversation { try await base.directConversation(with: userId) }
    func conversation(_ id: Conversation.ID) async throws -> Conversation { try await base.conversation(id) }
    func conversations(updatedSince: Timestamp?) async throws -> [Conversation] {
        try await base.conversations(updatedSince: updatedSince)
    }
    func messages(in conversationId: Conversation.ID, beforeSeq: Int, limit: Int) async throws -> MessagePage {
        try await base.messages(in: conversationId, beforeSeq: beforeSeq, limit: limit)
    }
    func setMuted(_ muted: Bool, conversation conversationId: Conversation.ID) async throws {
        try await base.setMuted(muted, conversation: conversationId)
    }
    func downloadMedia(_ mediaId: Media.ID) async throws -> MediaFile {
        try await base.downloadMedia(mediaId)
    }
    func createGroup(title: String, memberIds: [User.ID]) async throws -> Conversation {
        try await base.createGroup(title: title, memberIds: memberIds)
    }
    func updateGroup(_ conversationId: Conversation.ID, title: String?, avatarUrl: String?) async throws -> Conversation {
        try await base.updateGroup(conversationId, title: title, avatarUrl: avatarUrl)
    }
    func addMembers(_ userIds: [User.ID], to conversationId: Conversation.ID) async throws -> Conversation {
        try await base.addMembers(userIds, to: conversationId)
    }
    func removeMember(_ userId: User.ID, from conversationId: Conversation.ID) async throws {
        try await base.removeMember(userId, from: conversationId)
    }
    func leaveConversation(_ conversationId: Conversation.ID) async throws { try await base.leaveConversation(conversationId) }
}
