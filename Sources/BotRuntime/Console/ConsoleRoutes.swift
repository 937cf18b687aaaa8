import ChatterBots
import Foundation
import Synchronization
import WebSocket

/// The web console's routes under `/console` (on when `"console": true`), served by `HealthServer`:
///
/// - `GET /console/`, `/console/console.css`, `/console/console.js`: the page (`ConsoleAssets`).
/// - `POST /console/session` with the control token (JSON `{"token": …}` or a form field `token`): sets the session
///   cookie that the other routes accept in place of `Authorization: Bearer`.
/// - `GET /console/stream`: the page's one stream of server-sent events, `ready` with its id, then the events of the
///   parts (`ConsoleStreamPart`) that `POST /console/stream` with JSON `{"stream": id, "fleet": …, "logs": …,
///   "chat": …}` chooses (null stops a part). One per page: a browser opens at most six connections to a host.
/// - `GET /console/fleet?name=&state=&page=&pageSize=`: one page of the fleet (`ConsoleFleetPage`) as JSON.
/// - `GET /console/events?…` and `GET /console/logs?bot=&trace=`: the fleet part (`ConsoleFleetPart`) and the log
///   part (`ConsoleLogPart`) each as a stream of its own, for clients other than the page (`curl -N`).
/// - `GET /console/about`: what this console offers (`fleet`, `logs`, `chat`, `faults`), for the page to show.
/// - `GET /console/faults`: the faults and the sandbox users connected now; `POST /console/faults` with JSON
///   `{"bot": …, "fault": …}` (a bot of the process) or `{"user": …, "fault": …}` (a sandbox username) sets off a
///   `ConsoleFault` (sandbox only).
///
/// `example-bots sandbox` serves the same routes without a fleet: its console has no supervisor, no log tail, and
/// names fault targets by username.
///
/// Every route first passes `ConsoleRequestCheck` (Host and Origin, 403); all but the page and the session need
/// `ConsoleAccess` (401).
package final class ConsoleRoutes: Sendable {
    /// The path prefix of every console route.
    package static let root = "/console"

    private let supervisor: BotSupervisor?
    private let access: ConsoleAccess
    private let bind: String
    private let faults: (any ConsoleFaultInjector)?
    private let faultTargets: (any ConsoleFaultTargets)?
    private let extensions: [any ConsoleRouteExtension]
    private let logTail: ConsoleLogTail?
    private let pageStreams = ConsolePageStreams()
    private let port = Atomic<Int>(0)

    /// - Parameters:
    ///   - supervisor: the process's bots; nil for a console without a fleet (the sandbox's own).
    ///   - faultTargets: the sandbox's users, for fault requests that name a user.
    package init(
        supervisor: BotSupervisor?, access: ConsoleAccess, bind: String, faults: (any ConsoleFaultInjector)? = nil,
        faultTargets: (any ConsoleFaultTargets)? = nil, extensions: [any ConsoleRouteExtension] = [],
        logTail: ConsoleLogTail? = nil
    ) {
        self.logTail = logTail
        self.supervisor = supervisor
        self.access = access
        self.bind = bind
        self.faults = faults
        self.faultTargets = faultTargets
        self.extensions = extensions
    }

    /// Sets the port the server listens on (known once it is bound), which `Host` and `Origin` must name.
    package func serve(onPort port: Int) {
        self.port.store(port, ordering: .releasing)
    }

    /// Whether `path` is a console route's.
    package static func owns(_ path: String) -> Bool {
        path == root || path.hasPrefix(root + "/")
    }

    package func respond(to request: HTTPRequest) async -> HTTPServerResponse {
        let check = ConsoleRequestCheck(bind: bind, port: port.load(ordering: .acquiring))
        if let refusal = check.refusal(of: request) {
            return .response(Self.error(.forbidden, refusal))
        }
        let path = request.path
        if path == Self.root {
            var response = HTTPResponse(status: HTTPStatus(code: 308), text: "The console is at /console/.\n")
            response.headers.add(name: "Location", value: Self.root + "/")
            return .response(response)
        }
        if let asset = ConsoleAssets.asset(at: String(path.dropFirst(Self.root.count))) {
            guard request.method == .get || request.method == .head else { return .response(Self.methodNotAllowed("GET, HEAD")) }
            return .response(Self.serve(asset))
        }
        if let routes = extensions.first(where: { path == $0.prefix || path.hasPrefix($0.prefix + "/") }) {
            guard access.permits(request) else { return .response(Self.unauthorized) }
            if routes.acts(request), !Self.comesFromThePage(request), !access.control.hasValidBearer(request) {
                return .response(Self.error(.forbidden, "\(path) acts for a test user, so it answers only the console's own "
                    + "page (a browser that sends Sec-Fetch-Site: same-origin) or a request with the control token"))
            }
            return await routes.respond(to: request)
        }
        if path == Self.root + "/chat" || path.hasPrefix(Self.root + "/chat/") {
            return .response(Self.error(HTTPStatus(code: 409), "the chat needs the embedded sandbox (\"server\": \"sandbox\" in bots.json)"))
        }
        switch path {
        case Self.root + "/session":
            guard request.method == .post else { return .response(Self.methodNotAllowed("POST")) }
            return .response(openSession(request))
        case Self.root + "/stream":
            guard request.method == .get || request.method == .post else { return .response(Self.methodNotAllowed("GET, POST")) }
            guard access.permits(request) else { return .response(Self.unauthorized) }
            return request.method == .get ? openStream(request) : .response(choose(request))
        case Self.root + "/logs":
            guard request.method == .get else { return .response(Self.methodNotAllowed("GET")) }
            guard access.permits(request) else { return .response(Self.unauthorized) }
            guard let logTail else { return .response(Self.error(.notFound, "this process keeps no log tail")) }
            do {
                return Self.eventStream(try ConsoleLogPart(tail: logTail).feed(for: request.queryItems))
            } catch {
                return .response(Self.error(.badRequest, error.description))
            }
        case Self.root + "/about":
            guard request.method == .get else { return .response(Self.methodNotAllowed("GET")) }
            guard access.permits(request) else { return .response(Self.unauthorized) }
            return .response(about)
        case Self.root + "/faults":
            guard request.method == .post || request.method == .get else { return .response(Self.methodNotAllowed("GET, POST")) }
            guard access.permits(request) else { return .response(Self.unauthorized) }
            return .response(request.method == .get ? await faultOffer() : await injectFault(request))
        case Self.root + "/fleet", Self.root + "/events":
            guard request.method == .get else { return .response(Self.methodNotAllowed("GET")) }
            guard access.permits(request) else { return .response(Self.unauthorized) }
            guard let supervisor else {
                return .response(Self.error(.notFound, "this process runs no bots (it is the sandbox alone): its console "
                    + "offers the chat and the faults; the fleet is on the console of example-bots run"))
            }
            let query: ConsoleFleetQuery
            do {
                query = try ConsoleFleetQuery(queryItems: request.queryItems)
            } catch {
                return .response(Self.error(.badRequest, error.description))
            }
            if path.hasSuffix("/fleet") {
                var response = HTTPResponse(status: .ok, headers: Self.jsonHeaders, body: await fleet(query, of: supervisor).json)
                response.headers.add(name: "Content-Length", value: String(response.body.count))
                return .response(response)
            }
            return Self.eventStream(ConsoleFleetPart { [self] query in await fleet(query, of: supervisor) }.feed(for: query))
        default:
            return .response(Self.error(.notFound, "no console route \(path); the console is at /console/"))
        }
    }

    /// What this console offers, so the page shows only that.
    private var about: HTTPResponse {
        let offer: [String: Any] = [
            "fleet": supervisor != nil, "logs": logTail != nil,
            "chat": extensions.contains { $0.prefix == Self.root + "/chat" },
            "faults": faults == nil ? [] : ConsoleFault.allCases.map(\.rawValue),
        ]
        return Self.json(offer)
    }

    /// The faults the page may set off, and the sandbox users connected now (whom a fault can hit).
    private func faultOffer() async -> HTTPResponse {
        guard faults != nil else { return Self.noFaults }
        return Self.json([
            "faults": ConsoleFault.allCases.map(\.rawValue), "users": await faultTargets?.connectedUsernames() ?? [],
        ])
    }

    private static var noFaults: HTTPResponse {
        error(HTTPStatus(code: 409), "faults need the embedded sandbox (\"server\": \"sandbox\" in bots.json) or example-bots sandbox")
    }

    private static func json(_ object: [String: Any]) -> HTTPResponse {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        var response = HTTPResponse(status: .ok, headers: jsonHeaders, body: Array(body))
        response.headers.add(name: "Content-Length", value: String(response.body.count))
        return response
    }

    /// The page `query` asks for, now.
    private func fleet(_ query: ConsoleFleetQuery, of supervisor: BotSupervisor) async -> ConsoleFleetPage {
        var page = await supervisor.consolePage(query)
        if faults != nil { page.faults = ConsoleFault.allCases.map(\.rawValue) }
        return page
    }

    private func injectFault(_ request: HTTPRequest) async -> HTTPResponse {
        guard let faults else { return Self.noFaults }
        let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
        let names = ConsoleFault.allCases.map(\.rawValue).joined(separator: ", ")
        guard let name = object?["fault"] as? String, let fault = ConsoleFault(rawValue: name) else {
            return Self.error(.badRequest, "send JSON {\"bot\": \"…\", \"fault\": \"…\"} (or \"user\": a sandbox username) "
                + "with a fault of: \(names)")
        }
        var userId: User.ID?
        if fault != .restartServer {
            switch await faultTarget(of: object) {
            case .success(let id): userId = id
            case .failure(let refusal): return refusal.response
            }
        }
        do {
            try await faults.inject(fault, into: userId)
        } catch {
            return Self.error(error.isUnavailable ? .serviceUnavailable : HTTPStatus(code: 409), error.description)
        }
        return HTTPResponse(status: .ok, headers: Self.jsonHeaders, body: Array(#"{"injected":"\#(fault.rawValue)"}"#.utf8))
    }

    private struct Refusal: Error {
        var response: HTTPResponse
    }

    /// The user a fault request hits: its `user` (a sandbox username), or its `bot` (a bot of the process).
    private func faultTarget(of object: [String: Any]?) async -> Result<User.ID, Refusal> {
        if let username = object?["user"] as? String {
            guard let faultTargets else {
                return .failure(Refusal(response: Self.error(.badRequest, "name a bot of this process with \"bot\"")))
            }
            do {
                return .success(try await faultTargets.userId(ofUsername: username))
            } catch {
                return .failure(Refusal(response: Self.error(.badRequest, error.description)))
            }
        }
        let bot = object?["bot"] as? String
        guard let supervisor else {
            return .failure(Refusal(response: Self.error(.badRequest, "name a sandbox user with \"user\": this process runs no bots")))
        }
        let statuses = await supervisor.statuses()
        guard let status = statuses.first(where: { $0.name == bot }) else {
            return .failure(Refusal(response: Self.error(.badRequest, "no bot named \(bot.map { "\"\($0)\"" } ?? "(none given)") in this process")))
        }
        guard let userId = status.userId else {
            return .failure(Refusal(response: Self.error(HTTPStatus(code: 409), "\(status.name) has not signed in yet: wait until it is live")))
        }
        return .success(userId)
    }

    /// The parts the page's one stream may carry here, by name: the fleet and the log tail when this process has
    /// them, and those of the extensions (the chat).
    private var streamParts: [String: any ConsoleStreamPart] {
        var parts: [any ConsoleStreamPart] = extensions.flatMap(\.streamParts)
        if let supervisor { parts.append(ConsoleFleetPart { [self] query in await fleet(query, of: supervisor) }) }
        if let logTail { parts.append(ConsoleLogPart(tail: logTail)) }
        return Dictionary(parts.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The page's one event stream: `ready` with its id at once, then the events of the parts the page chooses with
    /// `POST /console/stream`, and a comment every 15 s so that proxies keep it.
    private func openStream(_ request: HTTPRequest) -> HTTPServerResponse {
        if let item = request.queryItems.first {
            return .response(Self.error(.badRequest, "unknown parameter \"\(item.name)\": the stream takes none; choose what "
                + "it carries with POST /console/stream"))
        }
        return .stream(head: Self.eventStreamHead) { [pageStreams] stream in
            let id = pageStreams.open { await stream.send($0) }
            let heartbeat = Task {
                guard await stream.send(Array("event: ready\ndata: {\"stream\":\"\(id)\"}\n\n".utf8)) else { return }
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(15))
                    guard !Task.isCancelled, await stream.send(Array(": still here\n\n".utf8)) else { return }
                }
            }
            await stream.waitUntilClosed()
            heartbeat.cancel()
            pageStreams.close(id)
        }
    }

    /// Changes what a page's stream carries: JSON `{"stream": id, "<part>": choice}`, where a choice is the part's
    /// JSON object, or null to stop that part; parts left out go on as they are.
    private func choose(_ request: HTTPRequest) -> HTTPResponse {
        let parts = streamParts
        let names = parts.keys.sorted().joined(separator: ", ")
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
              let id = object["stream"] as? String
        else {
            return Self.error(.badRequest, "send JSON {\"stream\": the id of the stream's ready event, and for any of "
                + "\(names.isEmpty ? "no parts" : names): its choice, or null to stop it}")
        }
        var feeds: [(name: String, feed: ConsoleStreamFeed?)] = []
        var acts = false
        for (name, choice) in object where name != "stream" {
            guard let part = parts[name] else {
                return Self.error(.badRequest, "this console's stream has no part \"\(name)\"; its parts: \(names.isEmpty ? "none" : names)")
            }
            if choice is NSNull {
                feeds.append((name, nil))
                continue
            }
            guard let choice = choice as? [String: Any] else {
                return Self.error(.badRequest, "\(name) takes a JSON object, or null to stop it")
            }
            do {
                feeds.append((name, try part.feed(for: choice)))
            } catch {
                return Self.error(.badRequest, error.description)
            }
            acts = acts || part.acts
        }
        if acts, !Self.comesFromThePage(request), !access.control.hasValidBearer(request) {
            return Self.error(.forbidden, "that part of the stream acts for a test user, so only the console's own page "
                + "(a browser that sends Sec-Fetch-Site: same-origin) or a request with the control token may choose it")
        }
        guard let stream = pageStreams.stream(id) else {
            return Self.error(.notFound, "no open stream \(id): open GET /console/stream and send the id of its ready event")
        }
        for (name, feed) in feeds { stream.run(name, feed) }
        return HTTPResponse(status: .noContent)
    }

    private static var eventStreamHead: HTTPResponse {
        HTTPResponse(status: .ok, headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-store"])
    }

    /// `feed` as a route of its own: its events keep their names, and the response ends when the feed has nothing
    /// more to send (the chat's client ended) or the client leaves.
    package static func eventStream(_ feed: @escaping ConsoleStreamFeed) -> HTTPServerResponse {
        .stream(head: eventStreamHead) { stream in
            let pump = Task {
                await feed(ConsoleEventSink(part: nil) { await stream.send($0) })
                if !Task.isCancelled { stream.end() }
            }
            await stream.waitUntilClosed()
            pump.cancel()
        }
    }

    /// Whether a browser says `request` comes from a page of this origin.
    private static func comesFromThePage(_ request: HTTPRequest) -> Bool {
        request.headers.first(name: "Sec-Fetch-Site")?.lowercased() == "same-origin"
    }

    private func openSession(_ request: HTTPRequest) -> HTTPResponse {
        guard access.control.token != nil else {
            return Self.error(HTTPStatus(code: 409), "no control token is set, so the console needs no session: open /console/")
        }
        let token: String
        do {
            token = try Self.token(in: request)
        } catch {
            return Self.error(.badRequest, error.description)
        }
        guard let session = access.openSession(presenting: token) else {
            return Self.error(.unauthorized, "that is not the control token (\(ControlAccess.tokenVariable) of the process)")
        }
        var response = HTTPResponse(status: .noContent)
        response.headers.add(name: "Set-Cookie", value: ConsoleSessions.setCookie(session, answering: request))
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }

    /// The token in a session request's body: JSON `{"token": "…"}` or a form's `token=…`.
    static func token(in request: HTTPRequest) throws(ConsoleInputError) -> String {
        let type = request.headers.first(name: "Content-Type")?.lowercased() ?? ""
        var token: String?
        if type.hasPrefix("application/json") {
            let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
            token = object?["token"] as? String
        } else if type.hasPrefix("application/x-www-form-urlencoded") {
            token = try URLEncodedForm(request.body).value(of: "token")
        } else {
            throw ConsoleInputError("send the token as JSON {\"token\": \"…\"} (Content-Type: application/json) "
                + "or as a form field token (application/x-www-form-urlencoded)")
        }
        guard let token, !token.isEmpty else {
            throw ConsoleInputError("the body holds no token: send {\"token\": \"…\"} or token=…")
        }
        return token
    }

    private static var unauthorized: HTTPResponse {
        error(.unauthorized, "the console needs the control token: open a session with POST /console/session "
            + "(the page asks for the token), or send Authorization: Bearer <token>")
    }

    package static let jsonHeaders: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "no-store"]

    private static func serve(_ asset: ConsoleAssets.Asset) -> HTTPResponse {
        var response = HTTPResponse(status: .ok, headers: [
            "Content-Type": asset.contentType, "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer",
            "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; frame-ancestors 'none'; form-action 'self'",
        ], body: Array(asset.body.utf8))
        response.headers.add(name: "Content-Length", value: String(response.body.count))
        return response
    }

    /// A JSON error response: `{"error": message}`.
    package static func error(_ status: HTTPStatus, _ message: String) -> HTTPResponse {
        let body = (try? JSONSerialization.data(withJSONObject: ["error": message], options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        var response = HTTPResponse(status: status, headers: jsonHeaders, body: Array(body))
        if status == .unauthorized { response.headers.add(name: "WWW-Authenticate", value: #"Bearer realm="chatterbots""#) }
        return response
    }

    package static func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        var response = error(.methodNotAllowed, "only \(allowed) is allowed here")
        response.headers.add(name: "Allow", value: allowed)
        return response
    }
}
