import Foundation
import Synchronization

/// A wait in a test that did not end in time: names what was awaited, so the failure says where a run stalled.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    public var what: String
    public var timeout: Duration

    public init(_ what: String, timeout: Duration) {
        self.what = what
        self.timeout = timeout
    }

    public var description: String { "gave up after \(timeout) waiting for \(what)" }
}

/// The result of `operation`, or `DeadlineExceeded` naming `what` once `timeout` has passed.
///
/// The operation runs in a task of its own that this call does not wait for after the deadline: a task group would
/// wait for its child, and a child stuck on a continuation nobody resumes would hang the test (and so the whole
/// run) instead of failing it. On timeout the task is cancelled and left behind.
public func withDeadline<Value: Sendable>(
    _ timeout: Duration, _ what: @autoclosure () -> String,
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let outcome = FirstOutcome<Value>()
    let description = what()
    let worker = Task {
        let result: Result<Value, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        return result
    }
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, any Error>, Never>) in
        outcome.waiter.withLock { $0 = continuation }
        Task {
            let result = await worker.value
            outcome.resume(with: result)
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            outcome.resume(with: .failure(DeadlineExceeded(description, timeout: timeout)))
        }
    }
    if case .failure(let error) = result, error is DeadlineExceeded { worker.cancel() }
    return try result.get()
}

/// The value of `task`, or `DeadlineExceeded` naming `what` once `timeout` has passed (the task is then cancelled).
public func value<Value: Sendable>(
    of task: Task<Value, Never>, within timeout: Duration, _ what: @autoclosure () -> String
) async throws -> Value {
    do {
        return try await withDeadline(timeout, what()) { await task.value }
    } catch {
        task.cancel()
        throw error
    }
}

/// The value of `task`, or `DeadlineExceeded` naming `what` once `timeout` has passed (the task is then cancelled).
public func value<Value: Sendable>(
    of task: Task<Value, any Error>, within timeout: Duration, _ what: @autoclosure () -> String
) async throws -> Value {
    do {
        return try await withDeadline(timeout, what()) { try await task.value }
    } catch let error as DeadlineExceeded {
        task.cancel()
        throw error
    }
}

/// Whoever comes first of the operation and the deadline resumes the waiting test; the other finds nobody waiting.
private final class FirstOutcome<Value: Sendable>: Sendable {
    let waiter = Mutex<CheckedContinuation<Result<Value, any Error>, Never>?>(nil)

    func resume(with result: Result<Value, any Error>) {
        waiter.withLock { $0.take() }?.resume(returning: result)
    }
}
