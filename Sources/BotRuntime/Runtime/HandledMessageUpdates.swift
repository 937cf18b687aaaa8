import Foundation

/// The updates of one message the bot handled most recently (the digests of the states they left it in, oldest
/// first), the message's version after the last of them, and how many updates of it were handled in all, kept in
/// the store. With them `MessageUpdateDeduplication` tells a copy of a frame from a change, even when the copy
/// arrives after a later update (at-least-once delivery does not keep the order of copies); the next update is
/// compared with the last version to say what changed; and each handling gets its own number, from which the
/// clientMessageIds of its sends derive, so a state handled twice (a reaction added, removed, added again) sends
/// its replies twice.
///
/// Bounded to ``capacity`` digests: a copy older than that many later updates of the same message runs again,
/// which a message edited or reacted to that often between a frame and its copy makes unlikely. The count is not
/// bounded, so the numbers never repeat.
struct HandledMessageUpdates: Equatable, Sendable {
    /// How many recent updates of a message are remembered.
    static let capacity = 16

    private(set) var digests: [String]
    /// The message as the last update handled left it; nil in records written before versions were kept.
    private(set) var last: MessageVersion?
    /// How many updates of the message were handled, those beyond ``capacity`` included. Records written before
    /// it was kept count their digests.
    private(set) var count: Int

    init(digests: [String] = [], last: MessageVersion? = nil, count: Int? = nil) {
        self.digests = Array(digests.suffix(Self.capacity))
        self.last = last
        self.count = max(count ?? digests.count, self.digests.count)
    }

    /// Whether the update `fingerprint` is among those handled.
    func contains(_ fingerprint: MessageUpdateFingerprint) -> Bool {
        digests.contains(fingerprint.digest)
    }

    /// The digest of the last update handled; nil when none is known.
    var lastDigest: String? { digests.last }

    /// The number of the next handling of an update of the message (from 1).
    var nextHandling: Int { count + 1 }

    /// These updates and `fingerprint`, which left the message as `version`; the oldest dropped beyond ``capacity``.
    func recording(_ fingerprint: MessageUpdateFingerprint, version: MessageVersion) -> HandledMessageUpdates {
        var digests = self.digests.filter { $0 != fingerprint.digest }
        digests.append(fingerprint.digest)
        return HandledMessageUpdates(digests: digests, last: version, count: count + 1)
    }

    /// The stored form: a JSON object of the digests, the last version and the count (absent in records written
    /// before it was kept).
    struct Stored: Codable, Equatable {
        var digests: [String]
        var last: MessageVersion?
        var count: Int?
    }

    var stored: Stored { Stored(digests: digests, last: last, count: count) }

    /// Reads the stored form, or what earlier versions kept: a JSON array of digests, or the single digest string
    /// of the last update handled. Nil when `data` is none of these.
    init?(stored data: Data) {
        let decoder = JSONDecoder()
        if let stored = try? decoder.decode(Stored.self, from: data) {
            self.init(digests: stored.digests, last: stored.last, count: stored.count)
        } else if let digests = try? decoder.decode([String].self, from: data) {
            self.init(digests: digests)
        } else if let digest = try? decoder.decode(String.self, from: data) {
            self.init(digests: [digest])
        } else {
            return nil
        }
    }
}
