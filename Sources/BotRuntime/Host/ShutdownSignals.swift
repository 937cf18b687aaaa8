import Dispatch
import Glibc
import Synchronization

/// What to do on SIGINT/SIGTERM: the first one asks for a graceful shutdown, any later one ends the process at once
/// with the shell's code for death by that signal (128 + its number: 130 for SIGINT, 143 for SIGTERM), so an
/// impatient operator pressing Ctrl-C twice never waits.
package struct ShutdownSignalState: Sendable, Equatable {
    /// The response to one signal.
    public enum Action: Sendable, Equatable {
        /// Stop gracefully: no new work, finish what is running within the deadline.
        case beginShutdown(signal: Int32)
        /// Exit now with this code.
        case exitImmediately(code: Int32)
    }

    /// Signals received so far.
    public private(set) var received = 0

    /// No signal received yet.
    public init() {}

    /// Records `signal` and says what to do.
    public mutating func receive(_ signal: Int32) -> Action {
        received += 1
        return received == 1 ? .beginShutdown(signal: signal) : .exitImmediately(code: 128 + signal)
    }
}

/// Watches SIGINT and SIGTERM with dispatch signal sources (no handler runs in signal context and nothing blocks):
/// the first signal calls `onShutdown`, a second one exits the process at once with a non-zero code.
public final class ShutdownSignals: Sendable {
    /// The signals watched.
    public static let watched: [Int32] = [SIGINT, SIGTERM]

    /// The signals received so far, shared with the sources' event handlers.
    private final class Counter: Sendable {
        let state = Mutex(ShutdownSignalState())
    }

    private let sources: Mutex<[any DispatchSourceSignal]>

    /// Starts watching. The default disposition of the signals is replaced (so they no longer kill the process)
    /// until `cancel()`.
    ///
    /// - Parameters:
    ///   - onShutdown: called once, on a dispatch queue, with the first signal's number.
    ///   - beforeExitingNow: called on the same queue when a second signal is about to exit the process: what must
    ///     hold even then (the work still running must not be taken for a crash at the next start).
    public init(onShutdown: @escaping @Sendable (Int32) -> Void, beforeExitingNow: @escaping @Sendable () -> Void = {}) {
        sources = Mutex(Self.makeSources(counter: Counter(), onShutdown: onShutdown, beforeExitingNow: beforeExitingNow))
    }

    private static func makeSources(
        counter: Counter, onShutdown: @escaping @Sendable (Int32) -> Void, beforeExitingNow: @escaping @Sendable () -> Void
    ) -> [any DispatchSourceSignal] {
        let queue = DispatchQueue(label: "chatterbots.signals")
        return watched.map { signalNumber in
            _ = Glibc.signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                // Signals that arrive together are delivered as one event; each counts.
                for _ in 0..<max(1, Int(source.data)) {
                    switch counter.state.withLock({ $0.receive(signalNumber) }) {
                    case .beginShutdown(let signal):
                        onShutdown(signal)
                    case .exitImmediately(let code):
                        beforeExitingNow()
                        exitNow(code: code, signal: signalNumber)
                    }
                }
            }
            source.resume()
            return source
        }
    }

    /// Stops watching and restores the signals' default disposition.
    public func cancel() {
        let wasWatching = sources.withLock { sources -> Bool in
            for source in sources { source.cancel() }
            defer { sources = [] }
            return !sources.isEmpty
        }
        if wasWatching {
            for signalNumber in Self.watched { _ = Glibc.signal(signalNumber, SIG_DFL) }
        }
    }

    /// Writes one line to standard error directly (the log queue may be the thing that is stuck) and exits.
    private static func exitNow(code: Int32, signal: Int32) -> Never {
        let name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)"
        let line = Array("second \(name): exiting now without waiting for the shutdown (exit code \(code))\n".utf8)
        _ = line.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
        Glibc._exit(code)
    }
}
