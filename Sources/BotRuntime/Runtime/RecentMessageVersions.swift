import ChatterBots
import Synchronization

/// The versions of the messages the bot handled most recently, in memory: what the first update of a message is
/// compared with (later ones compare with the version `HandledMessageUpdates` keeps). Bounded to ``capacity``
/// messages, oldest forgotten first; nothing is written, so the message path costs no store write for it.
final class RecentMessageVersions: Sendable {
    /// How many messages are remembered.
    static let capacity = 512

    private struct Versions {
        var byId: [Message.ID: MessageVersion] = [:]
        var order: [Message.ID] = []
        var start = 0
    }

    private let versions = Mutex(Versions())

    /// Remembers `message` as the bot saw it.
    func remember(_ message: Message) {
        let version = MessageVersion(message)
        versions.withLock { versions in
            if versions.byId.updateValue(version, forKey: message.id) != nil { return }
            versions.order.append(message.id)
            if versions.order.count - versions.start > Self.capacity {
                versions.byId[versions.order[versions.start]] = nil
                versions.start += 1
                if versions.start >= Self.capacity {
                    versions.order.removeFirst(versions.start)
                    versions.start = 0
                }
            }
        }
    }

    /// The version of `id` last remembered; nil when the message was not seen recently.
    func version(of id: Message.ID) -> MessageVersion? {
        versions.withLock { $0.byId[id] }
    }
}
