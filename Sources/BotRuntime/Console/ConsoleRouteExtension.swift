import WebSocket

/// Console routes that another module serves under a prefix of `/console` (the embedded sandbox's chat, in the
/// command-line module): `ConsoleRoutes` checks Host, Origin and access first, then hands the request over.
package protocol ConsoleRouteExtension: Sendable {
    /// The path the routes live under, e.g. `/console/chat`; the path itself and every path below it.
    var prefix: String { get }

    func respond(to request: HTTPRequest) async -> HTTPServerResponse

    /// Whether `request`, though a GET, acts for someone (signs a test user in, say): such requests are served only
    /// to the console's own page, which a browser marks `Sec-Fetch-Site: same-origin`, or with the control token.
    func acts(_ request: HTTPRequest) -> Bool

    /// The parts these routes add to the page's one event stream (the chat).
    var streamParts: [any ConsoleStreamPart] { get }
}

extension ConsoleRouteExtension {
    package func acts(_ request: HTTPRequest) -> Bool { false }

    package var streamParts: [any ConsoleStreamPart] { [] }
}
