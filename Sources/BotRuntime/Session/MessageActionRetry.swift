import ChatterBots
import Foundation

/// What to do after a message action failed: the rule of `MessageActionPerformer`, apart from its I/O.
///
/// Every change is idempotent at the service, so trying again is always safe; what the service refuses for good
/// (not the bot's message, no such message, not a member, an invalid body), and a request that cannot be built or
/// an answer that cannot be read, is dropped and logged instead of retried forever ahead of every later action. A
/// deletion answered `NOT_FOUND` is done: the message is gone. A `RATE_LIMITED` answer waits what
/// `RateLimitDelay` makes of it (at most 24 h), like every other request the device sends: the limit is the
/// device's, so the actions behind this one would be refused too.
enum MessageActionRetry: Equatable {
    /// Carried out (or needs no doing): forget it.
    case done
    /// Refused for good, for this reason: forget it, log it.
    case refused(String)
    /// Try again after this delay.
    case retry(after: Duration)

    /// The longest wait between two tries.
    static let maxDelay: Duration = .seconds(60)

    /// The decision after `error`, the `attempts`-th failure (1 for the first) of `change`.
    static func after(_ error: any Error, of change: MessageChange, attempts: Int) -> MessageActionRetry {
        if let error = error as? ChatterAPIError, error.code == .notFound, change == .delete { return .done }
        return after(error, attempts: attempts)
    }

    /// The decision after `error`, the `attempts`-th failure (1 for the first) of a request the service may refuse
    /// for good or for now (never `.done`): also the rule of other requests the runtime tries again, such as the
    /// look-up of a conversation (`ConversationLookups`).
    static func after(_ error: any Error, attempts: Int) -> MessageActionRetry {
        switch error {
        case let error as ChatterAPIError:
            if let asked = RateLimitDelay.asked(by: error) { return .retry(after: max(asked, backoff(attempts: attempts))) }
            // A rejected token is the session's to renew (refreshing, or signing in again): the action waits for it.
            if error.isTransient || error.code == .unauthorized || error.code == .invalidRefreshToken {
                return .retry(after: backoff(attempts: attempts))
            }
            return .refused("\(error.code.rawValue): \(error.message)")
        case let error as ChatterClientError:
            switch error {
            case .transport, .notSignedIn:
                return .retry(after: backoff(attempts: attempts))
            case .invalidRequest, .invalidResponse, .responseTooLarge, .missingClientSecret:
                // Neither the request nor the reading of its answer changes on a retry, which would hold up every
                // later action.
                return .refused(error.description)
            }
        case is DecodingError:
            return .refused("the service's answer could not be read: \(error)")
        default:
            return .retry(after: backoff(attempts: attempts))
        }
    }

    /// 1 s after the first failure, doubling up to ``maxDelay``.
    static func backoff(attempts: Int) -> Duration {
        let exponent = min(max(attempts - 1, 0), 6)
        return min(.seconds(1 << exponent), maxDelay)
    }
}
