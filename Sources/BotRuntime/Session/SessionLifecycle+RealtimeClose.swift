import ChatterBots

extension SessionLifecycle.Event {
    /// The connection of `generation` ended as `reason` says: its code, and the reason text the lifecycle reads
    /// (a 4008's seconds).
    package static func closed(generation: UInt64, _ reason: RealtimeCloseReason) -> Self {
        let text: String
        switch reason {
        case .rateLimited(let seconds): text = seconds.map(String.init) ?? ""
        case .other(_, let reasonText): text = reasonText
        default: text = reason.description
        }
        return .closed(generation: generation, code: reason.code, reason: text)
    }

    /// The connect of `generation` failed with `error`: the close it stands for (1006 when no close frame explains it).
    package static func closed(generation: UInt64, connectFailure error: RealtimeError) -> Self {
        guard case .closed(let reason) = error else {
            return .closed(generation: generation, code: 1006, reason: error.description)
        }
        return closed(generation: generation, reason)
    }
}
