import Dispatch
import Foundation
import Synchronization

/// A task executor with one thread of its own. Tests with tight timing windows (the Autobahn cases wait 1 s)
/// run their WebSocket apps on it, so CPU-bound tests holding the cooperative pool's two threads cannot delay them.
final class DedicatedThreadExecutor: TaskExecutor {
    /// One shared instance: its thread lives as long as the test process.
    static let shared = DedicatedThreadExecutor(name: "test.dedicated-executor")

    private let jobs = Mutex<[UnownedJob]>([])
    private let available = DispatchSemaphore(value: 0)

    init(name: String) {
        let thread = Thread { [self] in runJobs() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        available.signal()
    }

    private func runJobs() {
        while true {
            available.wait()
            guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
