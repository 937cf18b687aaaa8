import Foundation

/// The updates of one message the bot handled most recently (their fingerprints' digests, oldest first), and the
/// message's version after the last of them, kept in the store: a `message.updated` delivered again runs the
/// handler once, even when it arrives after a later update of the same message (at-least-once delivery does not
/// keep the order of copies), and the next update is compared with that version to say what changed.
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
    /// The message as the last update handled left it; nil in records written before versions were kept.
    private(set) var last: MessageVersion?

    init(digests: [String] = [], last: MessageVersion? = nil) {
        self.digests = Array(digests.suffix(Self.capacity))
        self.last = last
    }

    /// Whether the update `fingerprint` is among those handled.
    func contains(_ fingerprint: MessageUpdateFingerprint) -> Bool {
        digests.contains(fingerprint.digest)
    }

    /// These updates and `fingerprint`, which left the message as `version`; the oldest dropped beyond ``capacity``.
    func recording(_ fingerprint: MessageUpdateFingerprint, version: MessageVersion) -> HandledMessageUpdates {
        var digests = self.digests.filter { $0 != fingerprint.digest }
        digests.append(fingerprint.digest)
        return HandledMessageUpdates(digests: digests, last: version)
    }

    /// The stored form: a JSON object of the digests and the last version.
    struct Stored: Codable, Equatable {
        var digests: [String]
        var last: MessageVersion?
    }

    var stored: Stored { Stored(digests: digests, last: last) }

    /// Reads the stored form, or what earlier versions kept: a JSON array of digests, or the single digest string
    /// of the last update handled. Nil when `data` is none of these.
    init?(stored data: Data) {
        let decoder = JSONDecoder()
        if let stored = try? decoder.decode(Stored.self, from: data) {
            self.init(digests: stored.digests, last: stored.last)
        } else if let digests = try? decoder.decode([String].self, from: data) {
            self.init(digests: digests)
        } else if let digest = try? decoder.decode(String.self, from: data) {
            self.init(digests: [digest])
        } else {
            return nil
        }
    }
}
