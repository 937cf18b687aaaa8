import ChatterBots
import Foundation

/// What identifies one state of an updated message (`message.updated`): its body, edit and deletion times, and
/// every reaction with everyone who reacted. Two updates with the same fingerprint are the same update (a
/// duplicate frame); any change in any of these makes a new one.
///
/// With the number of the handling, it names the handler run of an update: the clientMessageIds of the handler's
/// sends derive from both (so the replies to two different updates, or to two returns to one state, never collide
/// in the service's idempotency), and the bot's store keeps the recent fingerprints handled per message
/// (`HandledMessageUpdates`), so a duplicated frame does not run the handler twice (`MessageUpdateDeduplication`).
struct MessageUpdateFingerprint: Hashable, Sendable {
    /// A name-based UUID (SHA-1) of the update's canonical form.
    let digest: String

    init(_ message: Message) {
        digest = ClientMessageID.nameBased(bot: User.ID(message.id.rawValue), trigger: Self.canonicalForm(of: message), index: 0).rawValue
    }

    /// The update as one string, independent of the order the service lists reactions and their users in.
    /// Variable-length parts are prefixed with their length, so no two different updates share a form.
    static func canonicalForm(of message: Message) -> String {
        let field = CanonicalForm.field
        var form = "message.updated\n" + field(message.id.rawValue)
        form += "\nbody " + field(message.body)
        form += "\nedited " + field(message.editedAt?.iso8601)
        form += "\ndeleted " + field(message.deletedAt?.iso8601)
        for reaction in message.reactions.sorted(by: { $0.emoji.utf8.lexicographicallyPrecedes($1.emoji.utf8) }) {
            form += "\nreaction " + field(reaction.emoji)
            for user in reaction.userIds.map(\.rawValue).sorted() { form += " " + field(user) }
        }
        return form
    }

    /// The derivation key of the sends and jobs of the handler run for this update of `message`, the message's
    /// `handling`th handled update (`HandledMessageUpdates.nextHandling`).
    func derivationKey(of message: Message.ID, handling: Int) -> String {
        "message-updated:\(message.rawValue)#\(digest)#\(handling)"
    }

    /// The state key (global scope, reserved for the runtime) holding the updates handled recently for `message`.
    static func storageKey(of message: Message.ID) -> String {
        storageKeyPrefix + message.rawValue
    }

    static let storageKeyPrefix = "chatterbots.runtime.updated."

    /// Every key ``storageKey(of:)`` makes lies in `from..<to`: `/` follows `.` in the keys' byte order.
    static let storageKeyRange = (from: storageKeyPrefix, to: "chatterbots.runtime.updated/")
}
