@testable import BotRuntime
import Foundation

extension BotStatus {
    /// The status of a bot named `name` in `state`, with nothing counted yet: a member of a fleet that a test
    /// describes by state alone.
    static func fixture(_ name: String, _ state: State) -> BotStatus {
        BotStatus(
            name: name, state: state, connected: state == .live, since: Date(timeIntervalSince1970: 1_800_000_000),
            userId: nil, lastError: nil, reconnects: 0, messagesIn: 0, messagesOut: 0, outboxDepth: 0,
            handlerLatency: HandlerLatencySummary(), stopReason: nil)
    }
}
