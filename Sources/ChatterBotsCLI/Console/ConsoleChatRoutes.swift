import BotRuntime
import ChatterBots
import Foundation
import WebSocket

/// The console's chat as a sandbox test user, under `/console/chat` (served with the embedded sandbox, and by
/// `example-bots sandbox`). The
/// console signs in as the test user itself, so the browser talks only to the console's origin:
///
/// - `GET /console/chat`: the test accounts and the bots, as JSON.
/// - `GET /console/chat/events?as=alice`: the user's chat (`ConsoleChatPart`) as a stream of its own; the page
///   has it on its one stream (`POST /console/stream` with `{"chat": {"as": "alice"}}`).
/// - `POST /console/chat/say` with JSON `{"as": "alice", "line": "…", "with": "echo_bot"}`: types a line (a message,
///   or a command such as `/dm echo_bot`) into that chat; 409 while no page listens to it. `with`, the page's
///   conversation, keeps pages of one account that show different conversations apart.
/// - `POST /console/chat/typing` with JSON `{"as": "alice", "typing": true}`: the page's text field holds something
///   (false: it was cleared); the chat sends `typing.start`, its repeats and `typing.stop` as the seed says.
/// - `POST /console/chat/picture` with JSON `{"as", "to" (a username), "contentType", "data" (base64), "caption"}`:
///   sends a picture (`ConsoleChatPictureSender`).
/// - `GET /console/chat/media?as=alice&id=…`: the file of a message the user's chat shows (a line's `media`), fetched
///   as the user; pictures inline, other files as a download.
struct ConsoleChatRoutes: ConsoleRouteExtension {
    /// A bot the page offers to talk to.
    struct Bot: Encodable {
        var name: String
        var username: String
    }

    let prefix = "/console/chat"
    let accounts: [SandboxTestAccount]
    /// Whom the page offers to talk to, asked at each request (the sandbox's console reads its friends lists).
    let bots: @Sendable () async -> [Bot]
    let sessions: ConsoleChatSessions
    let clients: ConsoleTestUserClients

    /// - Parameters:
    ///   - dataDirectory: where the console keeps the device ids of its devices of the test users (`console/` below
    ///     it), so that they stay the same devices across runs; nil keeps none.
    ///   - restRequestTimeouts: how long one REST request of the test users' clients may take in all, in real time.
    init(
        server: ChatterServerConfiguration, accounts: [SandboxTestAccount], dataDirectory: URL?,
        restRequestTimeouts: RESTRequestTimeouts, bots: @escaping @Sendable () async -> [Bot]
    ) {
        self.accounts = accounts
        self.bots = bots
        let devices = dataDirectory?.appendingPathComponent("console", isDirectory: true)
        self.sessions = ConsoleChatSessions(server: server, deviceDirectory: devices, restRequestTimeouts: restRequestTimeouts)
        self.clients = ConsoleTestUserClients(
            server: server, deviceDirectory: devices?.appendingPathComponent("files", isDirectory: true),
            restRequestTimeouts: restRequestTimeouts)
    }

    init(
        server: ChatterServerConfiguration, accounts: [SandboxTestAccount], dataDirectory: URL?,
        restRequestTimeouts: RESTRequestTimeouts, bots: [Bot]
    ) {
        self.init(
            server: server, accounts: accounts, dataDirectory: dataDirectory, restRequestTimeouts: restRequestTimeouts,
            bots: { bots })
    }

    /// The chat as a part of the page's one stream (`POST /console/stream` with `{"chat": {"as": "alice"}}`).
    var streamParts: [any ConsoleStreamPart] {
        [ConsoleChatPart(accounts: accounts, sessions: sessions)]
    }

    /// The chat's events sign the test user in and run a client that sends receipts; a file is fetched as the user.
    func acts(_ request: HTTPRequest) -> Bool {
        request.path == prefix + "/events" || request.path == prefix + "/media"
    }

    func respond(to request: HTTPRequest) async -> HTTPServerResponse {
        switch request.path {
        case prefix:
            guard request.method == .get else { return .response(ConsoleRoutes.methodNotAllowed("GET")) }
            let bots = await bots()
            return .response(json(["accounts": accounts.map(\.username), "bots": bots.map { ["name": $0.name, "username": $0.username] }]))
        case prefix + "/events":
            guard request.method == .get else { return .response(ConsoleRoutes.methodNotAllowed("GET")) }
            guard let account = account(named: request.queryValue("as")) else { return .response(unknownAccount) }
            return ConsoleRoutes.eventStream(ConsoleChatPart(accounts: accounts, sessions: sessions).feed(as: account))
        case prefix + "/say":
            guard request.method == .post else { return .response(ConsoleRoutes.methodNotAllowed("POST")) }
            let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
            guard let account = account(named: object?["as"] as? String) else { return .response(unknownAccount) }
            guard let line = object?["line"] as? String, !line.trimmingCharacters(in: .whitespaces).isEmpty,
                  !line.contains(where: \.isNewline), line.count <= ChatScreen.maximumBodyLength
            else {
                return .response(ConsoleRoutes.error(.badRequest, "send JSON {\"as\": \"alice\", \"line\": \"…\"}: one line of text, "
                    + "at most \(ChatScreen.maximumBodyLength) characters"))
            }
            guard await sessions.type(line, as: account.username, with: object?["with"] as? String) else {
                return .response(ConsoleRoutes.error(HTTPStatus(code: 409), "no chat of \(account.username) is open: "
                    + "open one first, with {\"chat\": {\"as\": \"\(account.username)\"}} on the page's stream (POST "
                    + "/console/stream) or with GET /console/chat/events?as=\(account.username)"))
            }
            return .response(HTTPResponse(status: .noContent))
        case prefix + "/typing":
            guard request.method == .post else { return .response(ConsoleRoutes.methodNotAllowed("POST")) }
            let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
            guard let account = account(named: object?["as"] as? String) else { return .response(unknownAccount) }
            guard let isTyping = object?["typing"] as? Bool else {
                return .response(ConsoleRoutes.error(.badRequest, "send JSON {\"as\": \"alice\", \"typing\": true} (false once cleared)"))
            }
            guard await sessions.setTyping(isTyping, as: account.username) else {
                return .response(ConsoleRoutes.error(HTTPStatus(code: 409), "no chat of \(account.username) is open: "
                    + "open one first, with {\"chat\": {\"as\": \"\(account.username)\"}} on the page's stream (POST "
                    + "/console/stream) or with GET /console/chat/events?as=\(account.username)"))
            }
            return .response(HTTPResponse(status: .noContent))
        case prefix + "/picture":
            guard request.method == .post else { return .response(ConsoleRoutes.methodNotAllowed("POST")) }
            return .response(await sendPicture(request))
        case prefix + "/media":
            guard request.method == .get else { return .response(ConsoleRoutes.methodNotAllowed("GET")) }
            return .response(await media(request))
        default:
            return .response(ConsoleRoutes.error(.notFound, "no chat route \(request.path); use \(prefix), \(prefix)/events, "
                + "\(prefix)/say, \(prefix)/typing, \(prefix)/picture or \(prefix)/media"))
        }
    }

    private func sendPicture(_ request: HTTPRequest) async -> HTTPResponse {
        let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
        guard let account = account(named: object?["as"] as? String) else { return unknownAccount }
        let types = ConsoleChatPictureSender.contentTypes.sorted().joined(separator: ", ")
        let bots = await bots()
        guard let to = object?["to"] as? String, bots.contains(where: { $0.username == to }),
              let type = object?["contentType"] as? String, ConsoleChatPictureSender.contentTypes.contains(type),
              let encoded = object?["data"] as? String, let data = Data(base64Encoded: encoded), !data.isEmpty
        else {
            return ConsoleRoutes.error(.badRequest, "send JSON {\"as\", \"to\" (a bot's username), \"contentType\" (\(types)), "
                + "\"data\" (the picture in base64), \"caption\"}")
        }
        let caption = (object?["caption"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        do {
            try await ConsoleChatPictureSender(clients: clients).send(data, contentType: type, caption: caption, as: account, to: to)
        } catch {
            return ConsoleRoutes.error(HTTPStatus(code: 502), error.description)
        }
        return HTTPResponse(status: .noContent)
    }

    /// A message's file, fetched as the user: a picture of the types the page sends is served inline, anything else
    /// as a download, and never as a page of this origin (its own sandboxing policy).
    private func media(_ request: HTTPRequest) async -> HTTPResponse {
        guard let account = account(named: request.queryValue("as")) else { return unknownAccount }
        guard let id = request.queryValue("id"), let first = id.unicodeScalars.first, id.utf8.count <= 200,
              first.isASCII, CharacterSet.alphanumerics.contains(first),
              id.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) })
        else {
            return ConsoleRoutes.error(.badRequest, "name the file with id: a media id from a chat line's media")
        }
        let file: MediaFile
        do {
            file = try await clients.client(for: account).downloadMedia(Media.ID(id))
        } catch let error as ChatterAPIError where error.code == .notFound {
            return ConsoleRoutes.error(.notFound, "\(account.username) cannot see a file \(id): it is in none of their conversations")
        } catch {
            return ConsoleRoutes.error(HTTPStatus(code: 502), "the sandbox did not give the file: \(error)")
        }
        let inline = ConsoleChatPictureSender.contentTypes.contains(file.contentType.lowercased())
        var response = HTTPResponse(status: .ok, headers: [
            "Content-Type": inline ? file.contentType : "application/octet-stream",
            "Cache-Control": "private, max-age=3600", "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "default-src 'none'; sandbox",
        ], body: Array(file.data))
        if !inline { response.headers.add(name: "Content-Disposition", value: #"attachment; filename="\#(id)""#) }
        response.headers.add(name: "Content-Length", value: String(response.body.count))
        return response
    }

    private func account(named name: String?) -> SandboxTestAccount? {
        accounts.first { $0.username == name }
    }

    private var unknownAccount: HTTPResponse {
        ConsoleRoutes.error(.badRequest, "name a test account with \"as\": one of \(accounts.map(\.username).joined(separator: ", "))")
    }

    private func json(_ object: [String: Any]) -> HTTPResponse {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return HTTPResponse(status: .ok, headers: ConsoleRoutes.jsonHeaders, body: Array(body))
    }

    /// A chat line as the page reads it: its text and tone, the file it carries, and the lines it suggests.
    static func lineObject(_ line: ScreenLine) -> [String: Any] {
        // The page shows text as text, but a browser would still apply a sender's bidirectional overrides.
        var object: [String: Any] = ["text": TerminalStyle.printable(line.text), "tone": toneName(line.tone)]
        if let media = line.media { object["media"] = ["id": media.id.rawValue, "kind": media.kind.rawValue] }
        if !line.suggestions.isEmpty { object["suggestions"] = line.suggestions.map { ["label": $0.label, "line": $0.line] } }
        return object
    }

    static func toneName(_ tone: ScreenLine.Tone) -> String {
        switch tone {
        case .message: "message"
        case .ownMessage: "own"
        case .heading: "heading"
        case .notice: "notice"
        case .status: "status"
        case .error: "error"
        }
    }
}
