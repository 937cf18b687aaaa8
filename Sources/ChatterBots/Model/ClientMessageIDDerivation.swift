import Foundation

/// How a bot's store derives the keys of replayable sends: time-ordered (UUIDv8 led by the message's time, so new
/// keys land at the end of the outbox's unique index) for messages from ``timeOrderedSince`` on, name-based (v5)
/// for older messages and for triggers that name no message.
///
/// A store written by a version that derived only name-based keys keeps them for messages it may already have
/// answered: re-handling such a message after the upgrade must derive the keys that went out, or the service would
/// create a second reply.
public struct ClientMessageIDDerivation: Sendable, Hashable {
    /// The earliest message time, in Unix milliseconds of the message id's ULID, whose sends get time-ordered keys.
    public let timeOrderedSinceMilliseconds: Int64

    /// A derivation giving time-ordered keys to the sends of messages from `milliseconds` (Unix time) on.
    public init(timeOrderedSinceMilliseconds milliseconds: Int64) {
        timeOrderedSinceMilliseconds = milliseconds
    }

    /// The earliest message time whose sends get time-ordered keys.
    public var timeOrderedSince: Date {
        Date(timeIntervalSince1970: TimeInterval(timeOrderedSinceMilliseconds) / 1000)
    }

    /// Time-ordered keys for every message: what a store created by this version derives.
    public static let timeOrdered = ClientMessageIDDerivation(timeOrderedSinceMilliseconds: 0)

    /// Name-based keys for every trigger, as versions before time-ordered keys derived them.
    public static let nameBased = ClientMessageIDDerivation(timeOrderedSinceMilliseconds: .max)

    /// The key of the `index`-th send (from 0) that `bot` makes while handling `trigger` (`message:<id>`,
    /// `job:<id>@<occurrence>`, …): the same for the same arguments, so a handler run again sends nothing twice.
    public func key(bot: User.ID, trigger: String, index: Int) -> ClientMessageID {
        if let milliseconds = ClientMessageID.messageMilliseconds(ofTrigger: trigger),
            Int64(milliseconds) >= timeOrderedSinceMilliseconds
        {
            return ClientMessageID.timeOrdered(bot: bot, trigger: trigger, index: index, milliseconds: milliseconds)
        }
        return ClientMessageID.nameBased(bot: bot, trigger: trigger, index: index)
    }

    /// The key of the `index`-th send that `bot` makes while handling the incoming message `message`.
    public func key(bot: User.ID, handling message: Message.ID, index: Int) -> ClientMessageID {
        key(bot: bot, trigger: ClientMessageID.messageTrigger(message), index: index)
    }
}
