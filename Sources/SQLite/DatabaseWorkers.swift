import Dispatch
import Foundation
import Synchronization

/// A fixed set of serial dispatch queues that many ``DatabaseQueue``s run their work on, so that a process with
/// thousands of databases (one per bot) keeps a handful of threads busy with SQLite instead of one thread per
/// database at work.
///
/// Each database keeps its own serial queue, whose order is unchanged; only the threads are shared. A database
/// is given one of the workers when it is created, round robin, so two busy databases may share a worker and
/// take turns. Without workers, every database queue runs on a thread of its own while it has work: with 1,000
/// bots starting, ~125 threads, each with its stack and malloc arena.
///
/// ```swift
/// let workers = DatabaseWorkers(count: 8)
/// let queue = try await DatabaseQueue(path: path, workers: workers)
/// ```
public final class DatabaseWorkers: Sendable {
    /// How many serial queues (threads at most) the databases share.
    public let count: Int
    private let queues: [DispatchQueue]
    private let nextIndex = Atomic<Int>(0)

    /// Workers for `count` threads at most (at least one).
    public init(count: Int, label: String = "SQLite worker") {
        self.count = max(1, count)
        self.queues = (0..<self.count).map { DispatchQueue(label: "\(label) \($0)") }
    }

    /// Workers shared by every database that asks for them: four per processor, eight at least, so that a database
    /// waiting on its disk (an fsync) rarely holds up another.
    public static let shared = DatabaseWorkers(count: max(8, 4 * ProcessInfo.processInfo.activeProcessorCount))

    /// The serial queue the next database runs on.
    func nextQueue() -> DispatchQueue {
        let index = nextIndex.add(1, ordering: .relaxed).oldValue
        return queues[index % count]
    }
}
