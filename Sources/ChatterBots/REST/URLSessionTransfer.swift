import Dispatch
import Foundation
import Synchronization
import WebSocket

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One URLSession data transfer, awaited through its completion handler instead of URLSession's async API.
///
/// On Linux, FoundationNetworking's `data(for:)` can deadlock when the awaiting task is cancelled while its response
/// is being delivered: the task's cancellation handler runs under the Swift task's status lock and calls
/// `URLSessionTask.cancel()`, which waits (`DispatchQueue.sync`) for the session's queue; that queue is resuming the
/// same task, which needs the status lock. A third thread in another `data(for:)` then waits for the queue too, and
/// with the cooperative pool's two threads stuck this way every task of the process stops (seen as a test run that
/// hung forever: a bot session's teardown cancelling its REST refresh). Here a cancellation only schedules
/// `URLSessionTask.cancel()` on another queue and never waits while the lock is held.
enum URLSessionTransfer {
    /// The body and response of `request`; throws the transfer's error, `URLError(.timedOut)` once `timeout` has
    /// passed since the start on `deadlineClock` (nil: the monotonic clock; the request's `timeoutInterval` only
    /// limits silence), or `URLError(.cancelled)` once cancelled.
    static func data(
        for request: URLRequest, in session: URLSession, timeout: Duration,
        deadlineClock: (any HTTPDeadlineClock)? = nil
    ) async throws -> (Data, URLResponse) {
        let transfer = Transfer()
        // Set before the request goes out, so that a virtual clock's test sees it in place once the server has it.
        let virtualDeadline = deadlineClock.map { $0.now.advanced(by: timeout) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: transfer.hasExpired ? URLError(.timedOut) : error)
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                let cancelled = transfer.start(task)
                task.resume()
                if cancelled { Transfer.cancelLater(task) }
                // Weak: a transfer that finished is not kept alive until its deadline.
                let expire: @Sendable () -> Void = { [weak transfer, weak task] in
                    if let transfer, let task, transfer.expire() { task.cancel() }
                }
                if let deadlineClock, let virtualDeadline {
                    deadlineClock.schedule(at: virtualDeadline, expire)
                } else {
                    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
                    DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: expire)
                }
            }
        } onCancel: {
            if let task = transfer.cancel() { Transfer.cancelLater(task) }
        }
    }

    /// The data task of one transfer and whether its caller was cancelled, whichever comes first.
    private final class Transfer: Sendable {
        private struct State {
            var task: URLSessionTask?
            var isCancelled = false
            var hasExpired = false
        }

        private let state = Mutex(State())

        /// Records the started task; returns whether the caller was cancelled already (then cancel it).
        func start(_ task: URLSessionTask) -> Bool {
            state.withLock { state in
                state.task = task
                return state.isCancelled
            }
        }

        /// Marks the caller cancelled; returns the task to cancel, if it started.
        func cancel() -> URLSessionTask? {
            state.withLock { state in
                state.isCancelled = true
                return state.task
            }
        }

        /// Marks the transfer out of time; returns whether to cancel its task (not when its caller cancelled it).
        func expire() -> Bool {
            state.withLock { state in
                guard !state.isCancelled else { return false }
                state.hasExpired = true
                return true
            }
        }

        /// Whether the transfer ran out of time, so its cancellation is a timeout.
        var hasExpired: Bool { state.withLock { $0.hasExpired } }

        /// Cancels `task` on a global queue, never on the thread holding the cancelled Swift task's status lock.
        static func cancelLater(_ task: URLSessionTask) {
            DispatchQueue.global().async { task.cancel() }
        }
    }
}
