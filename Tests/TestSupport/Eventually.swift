import Foundation

/// Polls `condition` until it holds or `timeout` passes (then the caller's expectation reports the failure): for
/// child processes and terminals, which signal nothing; in-process code is waited for with a `ChangeSignal`.
/// The bound is a hang guard (`Duration.hangGuard`); a condition that holds returns at once.
package func eventually(
    timeout: Duration = .hangGuard, _ condition: @Sendable () async -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: timeout)
    while clock.now < end {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
