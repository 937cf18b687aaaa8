import ChatterBots
import Foundation

/// Notices that `bots.json` was replaced or rewritten, for a file that is swapped rather than signalled (a
/// Kubernetes ConfigMap): one `stat` of the path every `interval` (2 s) on the session clock, comparing
/// `FileFingerprint`s. A stat every few seconds costs nothing measurable when idle, follows the symlink swaps of a
/// ConfigMap volume (which an inotify watch on the file itself misses: the watched inode never changes), and
/// needs no thread of its own. A file that disappears for a moment (a non-atomic editor save) is not a change;
/// the version that reappears is.
package struct ConfigurationFileWatch: Sendable {
    package static let defaultInterval: Duration = .seconds(2)

    package let path: String
    package let interval: Duration
    package let clock: any ChatterClock

    package init(path: String, interval: Duration = Self.defaultInterval, clock: any ChatterClock) {
        self.path = path
        self.interval = interval
        self.clock = clock
    }

    /// Looks until the calling task is cancelled, calling `onChange` (and waiting for it) after each change seen
    /// since `version`, the version of the file in force (taken before it was read); the file as it is now when nil.
    /// `onChange` returns false when it could not read the new version: it is offered again at the next look.
    package func run(from version: FileFingerprint? = nil, onChange: @Sendable () async -> Bool) async {
        var last = version ?? FileFingerprint.of(path: path)
        while !Task.isCancelled {
            do {
                try await clock.sleep(for: interval)
            } catch {
                return
            }
            guard let now = FileFingerprint.of(path: path) else { continue }
            if now != last, await onChange() {
                last = now
            }
        }
    }
}
