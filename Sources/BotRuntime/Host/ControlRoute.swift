import Foundation
import WebSocket

/// A request to one of the routes that act on the running process (under `/quarantine`, and `/reload`), read from
/// its method, path and query; or why it is refused. A plain value: `ControlRoutes` carries it out.
///
/// - `GET /quarantine[?bot=NAME]`: the quarantined work of every bot, or of one.
/// - `POST /quarantine/{bot}/{id}/retry`: hand the entry to its handler again.
/// - `POST /quarantine/{bot}/{id}/drop`: forget the entry.
/// - `POST /reload`: read `bots.json` again and apply it (`ConfigurationReload`).
package enum ControlRoute: Hashable, Sendable {
    case list(bot: String?)
    case retry(QuarantineReference)
    case drop(QuarantineReference)
    case reload

    /// Why a request names no route it may take.
    package enum Refusal: Error, Hashable, Sendable {
        /// 404: no such route.
        case notFound(String)
        /// 400: the route exists but the request is malformed.
        case badRequest(String)
        /// 405: the route exists for the `allowed` methods only.
        case methodNotAllowed(allowed: [HTTPMethod])
    }

    /// The path prefix of the quarantine's control routes.
    package static let root = "/quarantine"
    /// The path of the reload route.
    package static let reloadPath = "/reload"

    /// Whether `path` is a control route's (so that `HealthServer` hands it over).
    static func owns(_ path: String) -> Bool {
        path == root || path.hasPrefix(root + "/") || path == reloadPath
    }

    /// The method and target of a request for this route (what a client sends).
    package var request: (method: HTTPMethod, target: String) {
        switch self {
        case .list(let bot):
            (.get, Self.root + (bot.map { "?bot=\(Self.encoded($0))" } ?? ""))
        case .retry(let reference):
            (.post, "\(Self.root)/\(Self.encoded(reference.bot))/\(reference.id)/retry")
        case .drop(let reference):
            (.post, "\(Self.root)/\(Self.encoded(reference.bot))/\(reference.id)/drop")
        case .reload:
            (.post, Self.reloadPath)
        }
    }

    private static func encoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The route of `method path?query`, or why there is none.
    init(method: HTTPMethod, path: String, queryItems: [(name: String, value: String)]) throws(Refusal) {
        if path == Self.reloadPath {
            guard method == .post else { throw .methodNotAllowed(allowed: [.post]) }
            self = .reload
            return
        }
        let segments = path.dropFirst(Self.root.count).split(separator: "/", omittingEmptySubsequences: false)
            .dropFirst().map { String($0).removingPercentEncoding ?? String($0) }
        if segments.isEmpty {
            guard method == .get else { throw .methodNotAllowed(allowed: [.get]) }
            let bots = queryItems.filter { $0.name == "bot" }.map(\.value)
            guard bots.count <= 1, bots.first?.isEmpty != true else {
                throw .badRequest("give ?bot=NAME once, with a bot's name, or leave it out for every bot")
            }
            self = .list(bot: bots.first)
            return
        }
        guard segments.count == 3, !segments[0].isEmpty, ["retry", "drop"].contains(segments[2]) else {
            throw .notFound("no such route; the routes are GET /quarantine[?bot=NAME], "
                + "POST /quarantine/{bot}/{id}/retry and POST /quarantine/{bot}/{id}/drop")
        }
        guard method == .post else { throw .methodNotAllowed(allowed: [.post]) }
        guard let id = QuarantineReference.id(segments[1]) else {
            throw .badRequest("\"\(segments[1])\" is not an entry number: give the positive number after the bot's "
                + "name in `quarantine list` (poison/3 → /quarantine/poison/3/\(segments[2]))")
        }
        let reference = QuarantineReference(bot: segments[0], id: id)
        self = segments[2] == "retry" ? .retry(reference) : .drop(reference)
    }
}
