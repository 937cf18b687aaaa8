import Foundation
import Synchronization
import Testing
import TestSupport

@testable import ChatterSandbox

/// A count shared with tasks.
private final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

@Suite("A socket's own tasks: finished ones leave, closing cancels the rest")
struct OwnedTasksTests {
    @Test func finishedTasksLeaveTheSet() async throws {
        let tasks = OwnedTasks()
        let ran = Counter()
        for _ in 0..<200 { tasks.spawn { ran.increment() } }
        #expect(await eventually { ran.count == 200 && tasks.count == 0 }, "\(tasks.count) finished tasks kept")
    }

    @Test func cancelAllCancelsRunningTasksAndRefusesNewOnes() async throws {
        let tasks = OwnedTasks()
        let cancelled = Counter()
        tasks.spawn {
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                cancelled.increment()
            }
        }
        tasks.cancelAll()
        #expect(await eventually { cancelled.count == 1 })
        // Refused at once: no task is started, so the body can never run.
        #expect(tasks.spawn {} == false)
        #expect(tasks.count == 0)
    }
}
