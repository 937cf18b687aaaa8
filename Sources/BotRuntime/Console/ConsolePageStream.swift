import Synchronization

/// One open `GET /console/stream`: the parts it carries, each a task sending its events. A new choice for a part
/// starts once the task it replaces has ended, so the old choice's events all come before the new one's.
package final class ConsolePageStream: Sendable {
    private let write: @Sendable ([UInt8]) async -> Bool
    private let parts = Mutex<[String: Task<Void, Never>]>([:])

    init(write: @escaping @Sendable ([UInt8]) async -> Bool) {
        self.write = write
    }

    /// Runs `feed` as the part `name` in place of what ran as it; nil only stops that.
    func run(_ name: String, _ feed: ConsoleStreamFeed?) {
        let sink = ConsoleEventSink(part: name, write: write)
        parts.withLock { parts in
            let previous = parts[name]
            previous?.cancel()
            parts[name] = Task {
                await previous?.value
                guard let feed, !Task.isCancelled else { return }
                await feed(sink)
            }
        }
    }

    /// Stops every part: the stream closed.
    func stop() {
        let running = parts.withLock { parts in
            defer { parts = [:] }
            return Array(parts.values)
        }
        for task in running { task.cancel() }
    }
}
