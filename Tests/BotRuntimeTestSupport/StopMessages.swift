@testable import BotRuntime

/// The messages a stopped bot reports, as tests expect them in output and in /healthz.
package enum StopMessages {
    package static let invalidCredentials = SessionStopReason.invalidCredentials.message
}
