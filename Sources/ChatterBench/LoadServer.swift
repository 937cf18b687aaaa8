import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization
import WebSocket

/// A lean Chatter server for load tests, used when the sandbox itself would be the bottleneck: the REST calls a
/// bot makes (login, refresh, me, conversations, messages, friends, friend requests, posting a message) and the
/// whole realtime protocol a bot uses (session.ready, presence.snapshot, ping, message.send with idempotent acks
/// and message.new to the other devices, receipts, typing, sync with hasMore), over the same `HTTPServer` and
/// wire types as the sandbox, with its state in memory (`LoadLedger`) behind one lock. Each socket's frames are
/// answered on its own task with no hop through an actor or a database queue.
///
/// Left out: idle timeouts, the presence grace period, rate limits, pushes, groups, media, edits. State is lost
/// when the process ends, so scenarios that restart the server (storm) use the sandbox.
final class LoadServer: HTTPResponder, Sendable {
    let clientKey = SandboxClientCredential.sandbox.clientKey
    private let heartbeatIntervalMs: Int
    private let ledger = Mutex(LoadLedger())
    private let sockets = Mutex(SocketRegistry())
    private let parser = ClientFrameParser()
    private let senders = VirtualSenders()
    /// The person of each conversation of the world, who sends when the conversation is flooded.
    private let people = Mutex<[Conversation.ID: LoadLedger.Caller]>([:])

    /// Open sockets by device, and the devices of each user.
    private struct SocketRegistry {
        var byDevice: [Device.ID: [ObjectIdentifier: WebSocketConnection]] = [:]
        var devicesByUser: [User.ID: Set<Device.ID>] = [:]

        func connections(of users: [User.ID], except excluded: Device.ID?) -> [WebSocketConnection] {
            var out: [WebSocketConnection] = []
            for user in users {
                for device in devicesByUser[user] ?? [] where device != excluded {
                    out.append(contentsOf: byDevice[device]?.values ?? [:].values)
                }
            }
            return out
        }
    }

    init(heartbeatIntervalMs: Int) {
        self.heartbeatIntervalMs = heartbeatIntervalMs
    }

    /// Creates `spec`'s world directly in the ledger.
    func build(_ spec: WorldSpec) -> BenchWorld {
        ledger.withLock { ledger in
            let bots = spec.botUsernames.map { ledger.createUser(username: $0, password: spec.password) }
            var people: [BenchWorld.Person] = []
            for username in spec.personUsernames {
                let user = ledger.createUser(username: username, password: spec.password)
                let login = LoginBody(username: username, password: spec.password, device: DeviceDescription(name: "bench", platform: "bench"))
                guard case .success(let session) = ledger.login(login) else { continue }
                people.append(BenchWorld.Person(
                    username: username, userId: user.id, deviceId: session.deviceId, accessToken: session.accessToken,
                    refreshToken: session.refreshToken))
            }
            var links: [BenchWorld.Link] = []
            for link in spec.links {
                let person = people[link.person]
                let bot = bots[link.bot]
                ledger.makeFriends(person.userId, bot.id)
                let conversation = ledger.directConversation(between: person.userId, bot.id)
                let caller = LoadLedger.Caller(userId: person.userId, deviceId: person.deviceId)
                for index in 0..<link.waitingMessages {
                    let send = MessageSend(
                        conversationId: conversation.id, clientMessageId: .random(),
                        content: MessageContent(kind: .text, body: "waiting \(index)"))
                    _ = ledger.send(send, from: caller)
                }
                links.append(BenchWorld.Link(conversationId: conversation.id, person: link.person, bot: link.bot))
                self.people.withLock { $0[conversation.id] = caller }
            }
            return BenchWorld(
                password: spec.password, bots: bots.map { BenchWorld.Bot(username: $0.username, userId: $0.id) },
                people: people, links: links)
        }
    }

    // MARK: HTTP

    func respond(to request: HTTPRequest) async -> HTTPServerResponse {
        let path = request.path
        if path == "/bench/flood" && request.method == .post {
            return .response(await flood(request))
        }
        guard path.hasPrefix("/v1/") else { return .response(Self.error(.notFound, "No such endpoint.", status: .notFound)) }
        if path == "/v1/ws" {
            guard request.isWebSocketUpgrade else {
                return .response(Self.error(.validationFailed, "Connect with a WebSocket upgrade.", status: .upgradeRequired))
            }
            return .webSocket { [self] connection in await self.serve(connection) }
        }
        guard request.headers.first(name: "X-Client-Key") == clientKey else {
            return .response(Self.error(.invalidClientKey, "Unknown client key.", status: .unauthorized))
        }
        guard let (endpoint, parameters) = ChatterEndpoint.match(method: request.method, path: String(path.dropFirst(3)))
        else {
            return .response(Self.error(.notFound, "No such endpoint.", status: .notFound))
        }
        return .response(await route(endpoint, parameters, request))
    }

    private func route(_ endpoint: ChatterEndpoint, _ parameters: [String: String], _ request: HTTPRequest) async -> HTTPResponse {
        switch endpoint {
        case .login:
            guard let body = Self.decode(LoginBody.self, request) else { return Self.malformed }
            return Self.result(ledger.withLock { $0.login(body) })
        case .refresh:
            guard let body = Self.decode(RefreshBody.self, request) else { return Self.malformed }
            return Self.result(ledger.withLock { $0.refresh(body) })
        default:
            break
        }
        guard let authorization = request.headers.first(name: "Authorization"), authorization.hasPrefix("Bearer "),
            let caller = ledger.withLock({ $0.caller(accessToken: String(authorization.dropFirst(7))) })
        else {
            return Self.error(.unauthorized, "Missing or expired access token.", status: .unauthorized)
        }
        let conversationId = parameters["conversationId"].map { Conversation.ID($0) }
        switch endpoint {
        case .me:
            guard let user = ledger.withLock({ $0.user(caller.userId) }) else { return Self.notFound }
            return Self.json(CurrentUser(user: user, privacy: PrivacySettings(lastSeen: .everyone)))
        case .friends:
            return Self.json(FriendList(friends: ledger.withLock { $0.friends(of: caller.userId) }))
        case .friendRequests:
            return Self.json(FriendRequestList(incoming: [], outgoing: []))
        case .conversations:
            let since = request.queryValue("updatedSince").flatMap { try? Timestamp(iso8601: $0) }
            return Self.json(ConversationList(
                conversations: ledger.withLock { $0.conversations(of: caller.userId, updatedSince: since) }))
        case .conversation:
            guard let conversationId, let conversation = ledger.withLock({ $0.conversation(conversationId, for: caller.userId) })
            else { return Self.notFound }
            return Self.json(conversation)
        case .messages:
            let after = request.queryValue("afterSeq").flatMap(Int.init) ?? 0
            let limit = min(max(request.queryValue("limit").flatMap(Int.init) ?? 100, 1), 500)
            guard let conversationId,
                let page = ledger.withLock({ $0.messages(in: conversationId, for: caller.userId, afterSeq: after, limit: limit) })
            else { return Self.notFound }
            return Self.json(page)
        case .postMessage:
            guard let conversationId, let body = Self.decode(MessagePostBody.self, request) else { return Self.malformed }
            let send = MessageSend(conversationId: conversationId, clientMessageId: body.clientMessageId, content: body.content)
            let outcome = ledger.withLock { ledger -> Result<(Message, [LoadLedger.Delivery], Bool), ChatterErrorBody> in
                ledger.send(send, from: caller).flatMap { ack, deliveries in
                    guard let page = ledger.messages(in: conversationId, for: caller.userId, afterSeq: ack.seq - 1, limit: 1),
                        let message = page.messages.first
                    else { return .failure(ChatterErrorBody(code: .notFound, message: "No such conversation.")) }
                    return .success((message, deliveries, !deliveries.isEmpty))
                }
            }
            switch outcome {
            case .success(let (message, deliveries, isNew)):
                await deliver(deliveries)
                var response = Self.json(message)
                if isNew { response.status = .created }
                return response
            case .failure(let error):
                return Self.error(error)
            }
        default:
            return Self.error(.notFound, "The load server does not serve \(endpoint.rawValue).", status: .notFound)
        }
    }

    // MARK: Virtual senders

    private func flood(_ request: HTTPRequest) async -> HTTPResponse {
        guard let flood = Self.decode(FloodRequest.self, request), flood.isWellFormed else { return Self.malformed }
        let callers = people.withLock { $0 }
        let result = await senders.flood(flood, callers: callers) { [self] messages, caller in
            let deliveries = ledger.withLock { ledger in
                messages.flatMap { message in
                    guard case .success(let (_, deliveries)) = ledger.send(message, from: caller) else { return [LoadLedger.Delivery]() }
                    return deliveries
                }
            }
            await deliver(deliveries)
        }
        return Self.json(result)
    }

    // MARK: Realtime

    private func serve(_ connection: WebSocketConnection) async {
        let request = connection.handshakeRequest
        guard request.queryValue("clientKey") == clientKey else {
            await connection.close(code: WebSocketCloseCode(rawValue: 4002), reason: "invalid client key")
            return
        }
        guard let token = request.queryValue("token"), let caller = ledger.withLock({ $0.caller(accessToken: token) }) else {
            await connection.close(code: WebSocketCloseCode(rawValue: 4001), reason: "invalid token")
            return
        }
        let key = ObjectIdentifier(connection)
        sockets.withLock { registry in
            registry.byDevice[caller.deviceId, default: [:]][key] = connection
            registry.devicesByUser[caller.userId, default: []].insert(caller.deviceId)
        }
        let friends = ledger.withLock { $0.friends(of: caller.userId) }
        let presences = sockets.withLock { registry in
            friends.map { Presence(userId: $0.user.id, isOnline: !(registry.devicesByUser[$0.user.id] ?? []).isEmpty) }
        }
        let ready = SessionReady(
            userId: caller.userId, deviceId: caller.deviceId, serverTime: Timestamp(Date()),
            heartbeatIntervalMs: heartbeatIntervalMs)
        await send(ServerFrame(.sessionReady(ready)), to: connection)
        await send(ServerFrame(.presenceSnapshot(presences)), to: connection)

        // A burst of frames (all that arrived together) is answered with one write of its replies, and its
        // deliveries with one write per receiving socket.
        var frames = connection.messages.makeAsyncIterator()
        while let first = await frames.next() {
            var outgoing = Outgoing()
            var next: WebSocketMessage? = first
            while let message = next {
                switch parser.parse(message) {
                case .request(let frame):
                    handle(frame, from: caller, into: &outgoing)
                case .ignored:
                    break
                case .rejected(let replyTo, let error):
                    outgoing.replies.append(ServerFrame(.error(error), replyTo: replyTo))
                case .tooLarge:
                    await connection.close(code: .messageTooBig, reason: "frame too large")
                }
                next = outgoing.replies.count < Self.maxBurst ? frames.nextBuffered() : nil
            }
            await send(outgoing.replies, to: connection)
            for message in outgoing.stored { senders.observe(message) }
            await deliver(outgoing.deliveries)
        }
        sockets.withLock { registry in
            registry.byDevice[caller.deviceId]?[key] = nil
            if registry.byDevice[caller.deviceId]?.isEmpty == true {
                registry.byDevice[caller.deviceId] = nil
                registry.devicesByUser[caller.userId]?.remove(caller.deviceId)
            }
        }
    }

    /// At most this many frames of one socket are answered together.
    private static let maxBurst = 256

    /// What a burst of a socket's frames produces: replies to that socket, deliveries to others, and the messages
    /// it stored (the virtual senders are told of them once their acks are written).
    private struct Outgoing {
        var replies: [ServerFrame] = []
        var deliveries: [LoadLedger.Delivery] = []
        var stored: [Message] = []
    }

    private func handle(_ frame: ClientFrame, from caller: LoadLedger.Caller, into outgoing: inout Outgoing) {
        switch frame.request {
        case .ping:
            outgoing.replies.append(ServerFrame(.pong, replyTo: frame.id))
        case .sendMessage(let message):
            switch ledger.withLock({ $0.send(message, from: caller) }) {
            case .success(let (ack, deliveries)):
                outgoing.replies.append(ServerFrame(.messageAck(ack), replyTo: frame.id))
                for delivery in deliveries {
                    if case .messageNew(let message) = delivery.frame.event { outgoing.stored.append(message) }
                }
                outgoing.deliveries += deliveries
            case .failure(let error):
                outgoing.replies.append(ServerFrame(.error(error), replyTo: frame.id))
            }
        case .receiptDelivered(let position):
            outgoing.deliveries += ledger.withLock { $0.receipt(position, read: false, from: caller) }
        case .receiptRead(let position):
            outgoing.deliveries += ledger.withLock { $0.receipt(position, read: true, from: caller) }
        case .typingStart(let conversationId), .typingStop(let conversationId):
            var isTyping = false
            if case .typingStart = frame.request { isTyping = true }
            guard let members = ledger.withLock({ $0.conversation(conversationId, for: caller.userId) })?.members else { return }
            let typing = TypingIndicator(conversationId: conversationId, userId: caller.userId, isTyping: isTyping)
            outgoing.deliveries.append(LoadLedger.Delivery(
                frame: ServerFrame(.typing(typing)), recipients: members.map(\.userId).filter { $0 != caller.userId },
                excludedDevice: caller.deviceId))
        case .syncRequest(let request):
            let response = ledger.withLock { $0.sync(request, for: caller.userId) }
            outgoing.replies.append(ServerFrame(.syncResponse(response), replyTo: frame.id))
        case .unknown(let type, _):
            let error = ChatterErrorBody(code: .validationFailed, message: "Unknown client frame type '\(type)'.", details: ["field": "type"])
            outgoing.replies.append(ServerFrame(.error(error), replyTo: frame.id))
        }
    }

    /// Sends each delivery's frame, encoded once, to every open socket of its recipients but the excluded device:
    /// in order, with one write per socket (a send only waits when the target's socket buffer is full:
    /// backpressure reaches the sender).
    private func deliver(_ deliveries: [LoadLedger.Delivery]) async {
        guard !deliveries.isEmpty else { return }
        var order: [ObjectIdentifier] = []
        var batches: [ObjectIdentifier: (connection: WebSocketConnection, messages: [WebSocketMessage])] = [:]
        for delivery in deliveries {
            let targets = sockets.withLock { $0.connections(of: delivery.recipients, except: delivery.excludedDevice) }
            guard !targets.isEmpty, let text = Self.text(delivery.frame) else { continue }
            for target in targets {
                let key = ObjectIdentifier(target)
                if batches[key] == nil {
                    order.append(key)
                    batches[key] = (target, [])
                }
                batches[key]?.messages.append(.text(text))
            }
        }
        for key in order {
            guard let batch = batches[key] else { continue }
            try? await batch.connection.send(batch.messages)
        }
    }

    private func send(_ frame: ServerFrame, to connection: WebSocketConnection) async {
        await send([frame], to: connection)
    }

    /// Sends `frames` to one socket in order, with a single write.
    private func send(_ frames: [ServerFrame], to connection: WebSocketConnection) async {
        let messages = frames.compactMap { Self.text($0).map(WebSocketMessage.text) }
        guard !messages.isEmpty else { return }
        try? await connection.send(messages)
    }

    /// The frame's JSON text: hand-written for `message.new` and `message.ack`, `Codable` for the rest.
    private static func text(_ frame: ServerFrame) -> String? {
        if let text = HotFrameEncoder.text(frame) { return text }
        return (try? frame.jsonData()).map { String(decoding: $0, as: UTF8.self) }
    }

    // MARK: Responses

    private static let encoder = JSONEncoder()

    private static func decode<Body: Decodable>(_ type: Body.Type, _ request: HTTPRequest) -> Body? {
        try? JSONDecoder().decode(type, from: Data(request.body))
    }

    private static func json(_ value: some Encodable) -> HTTPResponse {
        guard let body = try? encoder.encode(value) else {
            return error(.internalError, "The response could not be encoded.", status: .internalServerError)
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        return HTTPResponse(status: .ok, headers: headers, body: Array(body))
    }

    private static func result(_ result: Result<AuthSession, ChatterErrorBody>) -> HTTPResponse {
        switch result {
        case .success(let session): json(session)
        case .failure(let failure): error(failure)
        }
    }

    private static func error(_ body: ChatterErrorBody) -> HTTPResponse {
        let status: HTTPStatus =
            switch body.code {
            case .invalidCredentials, .invalidRefreshToken, .unauthorized, .invalidClientKey: .unauthorized
            case .notFound: .notFound
            case .validationFailed: .badRequest
            default: .internalServerError
            }
        var response = json(body)
        response.status = status
        return response
    }

    private static func error(_ code: ChatterErrorCode, _ message: String, status: HTTPStatus) -> HTTPResponse {
        var response = error(ChatterErrorBody(code: code, message: message))
        response.status = status
        return response
    }

    private static var malformed: HTTPResponse { error(.validationFailed, "Malformed JSON body.", status: .badRequest) }
    private static var notFound: HTTPResponse { error(.notFound, "No such resource.", status: .notFound) }
}

/// The load server as a `BenchServer`.
///
/// It runs on one event loop of its own, sockets and handlers alike (the handlers and the virtual senders it
/// starts, as the loop's task executor). On the shared loops and the cooperative pool a flood kept two pool
/// threads handing each message to each other and waiting on the ledger's lock (~1,300 context switches a
/// second), and the sockets on a third; it needs half a core.
struct LoadBenchServer: BenchServer {
    let server: LoadServer
    let http: HTTPServer
    let loops: EventLoopGroup
    let endpoint: ServerEndpoint

    static func start(_ options: ServeOptions) async throws -> LoadBenchServer {
        let server = LoadServer(heartbeatIntervalMs: options.heartbeatMilliseconds)
        let loops = try EventLoopGroup(threadCount: 1)
        let configuration = HTTPServerConfiguration(eventLoopGroup: loops, taskExecutor: try loops.nextTaskExecutor())
        let http = try await HTTPServer.start(host: "127.0.0.1", port: options.port, configuration: configuration, responder: server)
        let authority = "127.0.0.1:\(http.port)"
        guard let api = URL(string: "http://\(authority)/v1"), let ws = URL(string: "ws://\(authority)/v1/ws") else {
            throw BenchFailure("cannot form the load server's URLs")
        }
        return LoadBenchServer(
            server: server, http: http, loops: loops,
            endpoint: ServerEndpoint(apiURL: api, webSocketURL: ws, clientKey: server.clientKey, port: http.port, kind: "load"))
    }

    func build(_ spec: WorldSpec) async throws -> BenchWorld {
        guard spec.groups.isEmpty else { throw BenchFailure("LoadServer has no group conversations: use --server sandbox") }
        return server.build(spec)
    }

    func shutdown() async {
        await http.shutdown()
        loops.shutdown()
    }
}
