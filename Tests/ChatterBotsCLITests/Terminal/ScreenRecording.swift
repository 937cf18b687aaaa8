@testable import ChatterBotsCLI
@testable import BotRuntime
import Foundation
import Synchronization
import TestSupport

/// The lines a `ChatClient` showed, in order, with a wait for a line that has not come yet.
final class ScreenRecording: Sendable {
    private let lines = Mutex<[String]>([])
    /// Signalled after each line shown.
    private let changes = ChangeSignal()

    var display: @Sendable ([ScreenLine]) -> Void {
        { [self] shown in self.append(shown) }
    }

    private func append(_ shown: [ScreenLine]) {
        lines.withLock { $0 += shown.map(\.text) }
        changes.signal()
    }

    var text: [String] { lines.withLock { $0 } }

    /// How many lines were shown so far: pass it as `after` to wait only for later lines.
    var count: Int { lines.withLock { $0.count } }

    /// Waits until a line after the first `after` lines contains `fragment`, and returns it.
    /// - Throws: `ScreenWaitTimedOut` with everything shown, after `timeout`.
    @discardableResult
    func waitForLine(containing fragment: String, after: Int = 0, timeout: Duration = .hangGuard) async throws -> String {
        var found: String?
        do {
            try await changes.wait(until: {
                found = lines.withLock { shown in shown.dropFirst(after).first { $0.contains(fragment) } }
                return found != nil
            }, "a line containing \(fragment)", timeout: timeout)
        } catch is DeadlineExceeded {
            throw ScreenWaitTimedOut(fragment: fragment, shown: text)
        }
        guard let found else { throw ScreenWaitTimedOut(fragment: fragment, shown: text) }
        return found
    }
}

struct ScreenWaitTimedOut: Error, CustomStringConvertible {
    var fragment: String
    var shown: [String]
    var description: String {
        "no line containing \"\(fragment)\" was shown; the screen:\n" + shown.joined(separator: "\n")
    }
}
