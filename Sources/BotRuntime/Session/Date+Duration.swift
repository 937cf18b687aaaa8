import Foundation

extension Duration {
    /// This duration in seconds, as Foundation's `TimeInterval`.
    package var timeInterval: TimeInterval {
        let parts = components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) * 1e-18
    }
}

extension Date {
    /// This instant moved forward by `duration`.
    func adding(_ duration: Duration) -> Date {
        addingTimeInterval(duration.timeInterval)
    }
}
