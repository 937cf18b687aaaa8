import ChatterBots
import Synchronization

/// The acknowledgement one caller of `OutgoingMessage.acknowledged()` waits for: fulfilled once with the ack or
/// the permanent error, whichever the outbox learns first.
final class AckPromise: Sendable {
    private struct State {
        var result: Result<MessageAck, any Error>?
        var continuation: CheckedContinuation<MessageAck, any Error>?
    }

    private let state = Mutex(State())

    /// Settles the promise; later calls do nothing.
    func settle(_ result: Result<MessageAck, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<MessageAck, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }

    /// The outcome; throws `CancellationError` if the waiting task is cancelled first.
    var value: MessageAck {
        get async throws {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<MessageAck, any Error>) in
                    let ready = state.withLock { state -> Result<MessageAck, any Error>? in
                        if let result = state.result { return result }
                        state.continuation = continuation
                        return nil
                    }
                    if let ready { continuation.resume(with: ready) }
                }
            } onCancel: {
                self.settle(.failure(CancellationError()))
            }
        }
    }
}
