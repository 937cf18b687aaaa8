import Foundation

/// Runs one blocking call (name resolution, password hashing, file I/O) on a short-lived thread of its own.
///
/// Never on the cooperative pool, nor on Dispatch's global queues: on Linux the pool shares their worker
/// threads, so a blocking call there stalls async code on a 2-core machine.
public enum DedicatedThread {
    /// Runs `work` on a new thread named `name` and returns its result to the awaiting task.
    public static func run<T: Sendable>(
        named name: String, stackSize: Int = 512 << 10, _ work: @escaping @Sendable () -> T
    ) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.name = name
            thread.stackSize = stackSize
            thread.start()
        }
    }
}
