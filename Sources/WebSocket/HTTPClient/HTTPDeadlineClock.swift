/// A clock other than the monotonic one for the `timeout` of an HTTP exchange: a test's virtual clock, which it moves
/// past a deadline while the server keeps sending, so that whether the exchange runs out of time does not depend on
/// how the machine schedules the test, the server and the client.
package protocol HTTPDeadlineClock: Sendable {
    /// The time now on this clock.
    var now: ContinuousClock.Instant { get }

    /// Calls `expire` once this clock reaches `deadline` (at once if it has). It is not cancelled when the exchange
    /// ends first, so `expire` must do nothing then.
    func schedule(at deadline: ContinuousClock.Instant, _ expire: @escaping @Sendable () -> Void)
}
