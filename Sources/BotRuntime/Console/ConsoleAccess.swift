import WebSocket

/// Who may use the console's routes: whom `ControlAccess` permits (anyone on a loopback bind without a token, else
/// the `Authorization: Bearer` token), or a browser holding the cookie of a session it opened with the token.
package struct ConsoleAccess: Sendable {
    package let control: ControlAccess
    package let sessions: ConsoleSessions

    package init(control: ControlAccess, sessions: ConsoleSessions = ConsoleSessions()) {
        self.control = control
        self.sessions = sessions
    }

    /// Whether `request` may use a console route other than the static files and `POST /console/session`.
    package func permits(_ request: HTTPRequest) -> Bool {
        control.permits(request) || sessions.contains(sessionOf: request)
    }

    /// Opens a session for a browser that presents `token`; nil when it is not the control token.
    package func openSession(presenting token: String) -> String? {
        control.accepts(token: token) ? sessions.open() : nil
    }
}
