import Foundation
import Synchronization
import WebSocket

/// The console sessions a browser opened with the control token (`POST /console/session`): random identifiers the
/// browser keeps in an `HttpOnly; SameSite=Strict` cookie, because `EventSource` cannot send an `Authorization`
/// header. They live as long as the process; the oldest is forgotten past `capacity`. The cookie is named for the
/// port the browser reached, since cookies are kept per host whatever the port: the consoles of two processes on
/// one machine (`run` and `sandbox`) keep a session each instead of replacing each other's.
package final class ConsoleSessions: Sendable {
    /// The cookie's name before its port.
    package static let cookiePrefix = "chatterbots_console_"
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

    /// Whether `request` carries the cookie of an open session. Every session is compared in full, so the time
    /// taken says nothing of how much of an identifier was right.
    package func contains(sessionOf request: HTTPRequest) -> Bool {
        guard let identifier = Self.cookie(of: request) else { return false }
        let candidate = Array(identifier.utf8)
        return identifiers.withLock { list in
            list.reduce(false) { found, known in ControlAccess.constantTimeEqual(Array(known.utf8), candidate) || found }
        }
    }

    /// The session cookie's name for `request`: named for the port its `Host` names.
    static func cookieName(for request: HTTPRequest) -> String {
        let port = request.headers.first(name: "Host").flatMap { ConsoleRequestCheck.split($0)?.port } ?? 80
        return cookiePrefix + String(port)
    }

    /// The `Set-Cookie` value for `identifier`, answering `request`: sent back only to the console's paths, never
    /// readable by scripts, never sent on a request another site starts.
    package static func setCookie(_ identifier: String, answering request: HTTPRequest) -> String {
        "\(cookieName(for: request))=\(identifier); HttpOnly; SameSite=Strict; Path=/console"
    }

    /// The session cookie's value in `request`'s `Cookie` headers.
    static func cookie(of request: HTTPRequest) -> String? {
        let name = cookieName(for: request)
        for header in request.headers where header.name.lowercased() == "cookie" {
            for pair in header.value.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name { return String(parts[1]) }
            }
        }
        return nil
    }
}
