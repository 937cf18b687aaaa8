import Synchronization

/// Runs `body` with a bound in real (continuous-clock) time: a test waiting for a bot never hangs. When the bound
/// passes, the waiting task is cancelled and `BotTestError.timedOut` says what was awaited, and what `meanwhile`
/// then says went wrong (the bot's errors: a silent bot is often one whose handler threw).
func withRealTimeLimit<Value: Sendable>(
    _ timeout: Duration, awaiting what: @autoclosure () -> String,
    meanwhile: @escaping @Sendable () -> [String] = { [] },
    _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let description = what()
    let race = RealTimeRace<Value>()
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
        race.waiting.withLock { $0 = continuation }
        let work = Task {
            let result: Result<Value, any Error>
            do {
                result = .success(try await body())
            } catch {
                result = .failure(error)
            }
            race.finish(with: result)
        }
        let limit = Task {
            try? await Task.sleep(for: timeout)
            work.cancel()
            let problems = meanwhile().suffix(3)
            let explained = problems.isEmpty ? description : description + "; meanwhile the bot logged: " + problems.joined(separator: "; ")
            race.finish(with: .failure(BotTestError.timedOut(what: explained, timeout: timeout)))
        }
        race.setTimer(limit)
    }
}

/// The waiting caller of `withRealTimeLimit` and its timer: whichever of the work and the timer finishes first
/// resumes the caller; the other finds nobody waiting.
private final class RealTimeRace<Value: Sendable>: Sendable {
    let waiting = Mutex<CheckedContinuation<Value, any Error>?>(nil)
    private let timer = Mutex<(task: Task<Void, Never>?, isFinished: Bool)>((nil, false))

    func finish(with result: Result<Value, any Error>) {
        guard let continuation = waiting.withLock({ $0.take() }) else { return }
        let task = timer.withLock { state -> Task<Void, Never>? in
            state.isFinished = true
            return state.task
        }
        task?.cancel()
        continuation.resume(with: result)
    }

    func setTimer(_ task: Task<Void, Never>) {
        let finished = timer.withLock { state -> Bool in
            state.task = task
            return state.isFinished
        }
        if finished { task.cancel() }
    }
}
