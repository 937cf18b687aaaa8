import Dispatch
import Glibc
import Synchronization

/// Watches SIGHUP with a dispatch signal source (no handler runs in signal context) and calls `onSignal` for each,
/// on a dispatch queue: the conventional "read your configuration again" of a daemon. While watched, SIGHUP no
/// longer ends the process.
package final class ReloadSignal: Sendable {
    private let source: Mutex<(any DispatchSourceSignal)?>

    package init(onSignal: @escaping @Sendable () -> Void) {
        _ = Glibc.signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "chatterbots.reload-signal"))
        // Signals that arrive together are delivered as one event: one reload reads the latest file anyway.
        source.setEventHandler { onSignal() }
        source.resume()
        self.source = Mutex(source)
    }

    /// Stops watching and restores SIGHUP's default disposition.
    package func cancel() {
        let wasWatching = source.withLock { source -> Bool in
            defer { source = nil }
            source?.cancel()
            return source != nil
        }
        if wasWatching { _ = Glibc.signal(SIGHUP, SIG_DFL) }
    }
}
