import Foundation

/// The updates of one message the bot handled most recently (their fingerprints' digests, oldest first), kept in
/// the store so that a `message.updated` delivered again runs the handler once, even when it arrives after a later
/// update of the same message (at-least-once delivery does not keep the order of copies).
///
/// Bounded to ``capacity`` digests: a copy older than that many later updates of the same message runs again,
/// which a message edited or reacted to that often between a frame and its copy makes unlikely. A fingerprint
/// names a state of the message, so a state that comes back within the bound (a reaction added, removed, added
/// again) counts as handled: nothing in `message.updated` tells it from a late copy, and its sends would reuse
/// the first run's clientMessageIds anyway.
struct HandledMessageUpdates: Equatable, Sendable {
    /// How many recent updates of a message are remembered.
    static let capacity = 16

    private(set) var digests: [String]

    init(digests: [String] = []) {
        self.digests = Array(digests.suffix(Self.capacity))
    }

    /// Whether the update `fingerprint` is among those handled.
    func contains(_ fingerprint: MessageUpdateFingerprint) -> Bool {
        digests.contains(fingerprint.digest)
    }

    /// These updates and `fingerprint`, the oldest dropped beyond ``capacity``.
    func recording(_ fingerprint: MessageUpdateFingerprint) -> HandledMessageUpdates {
        var digests = self.digests.filter { $0 != fingerprint.digest }
        digests.append(fingerprint.digest)
        return HandledMessageUpdates(digests: digests)
    }

    /// The stored form: a JSON array of digests.
    var stored: [String] { digests }

    /// Reads the stored form: a JSON array of digests, or the single digest string earlier versions kept (the last
    /// update handled). Nil when `data` is neither.
    init?(stored data: Data) {
        let decoder = JSONDecoder()
        if let digests = try? decoder.decode([String].self, from: data) {
            self.init(digests: digests)
        } else if let digest = try? decoder.decode(String.self, from: data) {
            self.init(digests: [digest])
        } else {
            return nil
        }
    }
}
