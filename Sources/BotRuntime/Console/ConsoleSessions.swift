import Foundation
import Synchronization
import WebSocket

/// The console sessions a browser opened with the control token (`POST /console/session`): random identifiers the
/// browser keeps in an `HttpOnly; SameSite=Strict` cookie, because `EventSource` cannot send an `Authorization`
/// header. They live as long as the process; the oldest is forgotten past `capacity`.
package final class ConsoleSessions: Sendable {
    /// The cookie's name.
    package static let cookieName = "chatterbots_console"
    /// How many sessions are kept.
    package static let capacity = 64

    private let identifiers = Mutex<[String]>([])

    package init() {}

    /// Opens a session and returns its identifier (64 hex digits).
    package func open() -> String {
        var generator = SystemRandomNumberGenerator()
        let identifier = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
        identifiers.withLock { list in
            list.append(identifier)
            if list.count > Self.capacity { list.removeFirst(list.count - Self.capacity) }
        }
        return identifier
    }

    /// Whether `request` carries the cookie of an open session.
    package func contains(sessionOf request: HTTPRequest) -> Bool {
        guard let identifier = Self.cookie(of: request) else { return false }
        return identifiers.withLock { $0.contains(identifier) }
    }

    /// The `Set-Cookie` value for `identifier`: sent back only to the console's paths, never readable by scripts, never
    /// sent on a request another site starts.
    package static func setCookie(_ identifier: String) -> String {
        "\(cookieName)=\(identifier); HttpOnly; SameSite=Strict; Path=/console"
    }

    /// The session cookie's value in `request`'s `Cookie` headers.
    static func cookie(of request: HTTPRequest) -> String? {
        for header in request.headers where header.name.lowercased() == "cookie" {
            for pair in header.value.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == cookieName { return String(parts[1]) }
            }
        }
        return nil
    }
}
