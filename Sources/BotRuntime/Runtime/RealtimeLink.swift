import ChatterBots

/// The realtime connection a session holds, tagged with the lifecycle generation that opened it, so that work
/// started on one connection never writes to the next.
struct RealtimeLink: Sendable {
    let generation: UInt64
    let connection: ChatterRealtimeConnection
    /// Keeps the connection alive; its pongs prove what was written before its pings arrived.
    let heartbeat: HeartbeatDriver
}
