import Foundation

/// Polls `condition` until it holds or `timeout` passes (then the caller's expectation reports the failure): for
/// child processes and terminals, which signal nothing; in-process code is waited for with a `ChangeSignal`.
/// The bound is generous: a full parallel test run keeps both cores busy for its first 30-40 s (hundreds of tests
/// take 20-39 s of wall time then), and sign-in hashes passwords. A condition that holds returns at once.
package func eventually(
    timeout: Duration = .seconds(90), _ condition: @Sendable () async -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: timeout)
    while clock.now < end {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
