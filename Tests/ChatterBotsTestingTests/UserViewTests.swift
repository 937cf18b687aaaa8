import ChatterBots
@testable import ChatterBotsTesting
import Testing

/// How a test user makes sense of the events on its socket: each message and each change once, a change with
/// the version seen before it, refusals of frames without an `id`, and the `pong`s of its own pings.
@Suite("UserView")
struct UserViewTests {
    static let bot: User.ID = "U_BOT"
    static let alice: User.ID = "U_ALICE"

    static func message(body: String? = "hello", reactions: [Message.Reaction] = [], edited: Bool = false, deleted: Bool = false) -> Message {
        Message(
            id: "M_1", conversationId: "C_1", seq: 1, senderId: bot, clientMessageId: "k-1", kind: .text, body: body,
            reactions: reactions, createdAt: Timestamp(millisecondsSince1970: 1_800_000_000_000),
            editedAt: edited ? Timestamp(millisecondsSince1970: 1_800_000_001_000) : nil,
            deletedAt: deleted ? Timestamp(millisecondsSince1970: 1_800_000_002_000) : nil)
    }

    static func change(_ view: inout UserView, _ message: Message) -> UserView.Change? {
        guard case .change(let change) = view.observe(ServerFrame(.messageUpdated(message))) else { return nil }
        return change
    }

    @Test func aMessageDeliveredTwiceIsObservedOnce() {
        var view = UserView()
        let first = view.observe(ServerFrame(.messageNew(Self.message())))
        let second = view.observe(ServerFrame(.messageNew(Self.message())))
        guard case .message(let message) = first else { Issue.record("not a message: \(String(describing: first))"); return }
        #expect(message.id == "M_1")
        #expect(second == nil)
    }

    @Test func aChangeCarriesTheVersionSeenBeforeItAndARepeatedVersionIsNoChange() throws {
        var view = UserView()
        _ = view.observe(ServerFrame(.messageNew(Self.message())))
        let edit = try #require(Self.change(&view, Self.message(body: "hello!", edited: true)))
        #expect(edit.previous?.body == "hello")
        #expect(edit.isEdit)
        #expect(!edit.isDeletion)
        #expect(view.observe(ServerFrame(.messageUpdated(Self.message(body: "hello!", edited: true)))) == nil)
    }

    @Test func aDeletionIsNoEdit() throws {
        var view = UserView()
        _ = view.observe(ServerFrame(.messageNew(Self.message(body: "hello!", edited: true))))
        let deletion = try #require(Self.change(&view, Self.message(body: nil, edited: true, deleted: true)))
        #expect(deletion.isDeletion)
        #expect(!deletion.isEdit)
    }

    @Test func aReactionChangeIsTheReactorsOnlyAndNoEdit() throws {
        var view = UserView()
        view.know(Self.message())
        let byAlice = try #require(Self.change(&view, Self.message(reactions: [.init(emoji: "❤️", userIds: [Self.alice])])))
        #expect(byAlice.reactionsChanged(by: Self.alice))
        #expect(!byAlice.reactionsChanged(by: Self.bot))
        #expect(!byAlice.isEdit)
        let byBot = try #require(Self.change(&view, Self.message(reactions: [
            .init(emoji: "❤️", userIds: [Self.alice]), .init(emoji: "👍", userIds: [Self.bot]),
        ])))
        #expect(byBot.reactionsChanged(by: Self.bot))
        #expect(!byBot.reactionsChanged(by: Self.alice))
    }

    @Test func aMessageTheUserSentKeepsTheVersionTheSocketGaveLater() throws {
        var view = UserView()
        _ = view.observe(ServerFrame(.messageUpdated(Self.message(reactions: [.init(emoji: "👍", userIds: [Self.bot])]))))
        view.know(Self.message())  // the response to the send, read after the reaction's event
        #expect(view.observe(ServerFrame(.messageUpdated(Self.message(reactions: [.init(emoji: "👍", userIds: [Self.bot])])))) == nil)
    }

    @Test func anErrorWithoutAnIdIsARefusalAndOneWithAnIdIsNot() {
        var view = UserView()
        let body = ChatterErrorBody(code: .notFound, message: "No such conversation.")
        guard case .refusal(let refusal) = view.observe(ServerFrame(.error(body))) else {
            Issue.record("not a refusal")
            return
        }
        #expect(refusal.code == .notFound)
        #expect(view.observe(ServerFrame(.error(body), replyTo: "c-3")) == nil)
    }

    @Test func thePongOfTheUsersOwnPingIsObservedWithItsId() {
        var view = UserView()
        guard case .pong(let id) = view.observe(ServerFrame(.pong, replyTo: "flush-1")) else {
            Issue.record("not a pong")
            return
        }
        #expect(id == "flush-1")
        #expect(view.observe(ServerFrame(.pong)) == nil)
    }
}
