import Foundation

/// When a bench run last deleted its files, so that the next run can say its start-up figures pay for them: on ext4
/// without a journal, creating a file steps over every inode freed in the last minute, or six while their table's
/// block is unwritten (bench/README.md, "Files deleted lately").
struct FileDeletionRecord: Sendable {
    /// How long after a deletion creating files is still slower.
    static let window: TimeInterval = 360

    let path: String

    /// The current user's record, in `$XDG_CACHE_HOME` (or `~/.cache`): the file system, not the run's `TMPDIR`, is
    /// what remembers the deletion.
    static var user: FileDeletionRecord {
        let environment = ProcessInfo.processInfo.environment
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache").path
        return FileDeletionRecord(path: cache + "/chatter-bench/last-deletion")
    }

    /// Fewer deleted files than this leave creating files as fast as before (a throughput run's one store).
    static let fileCountWorthNoting = 100

    /// Deletes `directory` and everything in it, and records the deletion when it held enough files to matter.
    func remove(_ directory: URL) {
        let files = FileManager.default.enumerator(atPath: directory.path)?.reduce(0) { count, _ in count + 1 } ?? 0
        guard (try? FileManager.default.removeItem(at: directory)) != nil else { return }
        if files >= Self.fileCountWorthNoting { record() }
    }

    /// Notes that a run deleted its files now. A failure to write only loses the next run's warning.
    func record(at date: Date = Date()) {
        let url = URL(fileURLWithPath: path)
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? Data(String(Int(date.timeIntervalSince1970)).utf8).write(to: url, options: .atomic)
    }

    /// Whole seconds since the last recorded deletion, if it was within ``window`` of `date`; nil otherwise or when
    /// nothing readable was recorded.
    func secondsSinceDeletion(at date: Date = Date()) -> Int? {
        guard let data = FileManager.default.contents(atPath: path),
              let text = String(data: data, encoding: .utf8),
              let seconds = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return nil }
        let elapsed = date.timeIntervalSince1970 - TimeInterval(seconds)
        guard elapsed >= 0, elapsed < Self.window else { return nil }
        return Int(elapsed)
    }
}
