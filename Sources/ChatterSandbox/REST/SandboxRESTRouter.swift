import ChatterBots
import Foundation
import WebSocket

/// Serves every REST endpoint of chatter-api.md over a `ChatterService`, with the paths of ChatterBots'
/// endpoint table, and hands the events of each mutation to the event sink.
///
/// Checks run in the live service's order: route, client key, body size (1 MiB; 10 MiB for media), the
/// endpoint's credentials (bearer token, or client secret) with the rate limit, then the body. Every failure
/// is the contract's error object with its status (`Retry-After` for `RATE_LIMITED`).
public struct SandboxRESTRouter: Sendable {
    public let service: ChatterService
    public let sink: any SandboxEventSink
    /// The path the API lives under (the `/v1` of `http://127.0.0.1:<port>/v1`).
    public let pathPrefix: String
    /// The base of media URLs (`<publicBaseURL>/media/<id>`); nil derives it from the request's `Host`.
    public let publicBaseURL: String?

    public init(service: ChatterService, sink: any SandboxEventSink, pathPrefix: String = "/v1", publicBaseURL: String? = nil) {
        self.service = service
        self.sink = sink
        self.pathPrefix = pathPrefix
        self.publicBaseURL = publicBaseURL
    }

    /// The body size the HTTP server must accept (`HTTPParserLimits.maxBodyBytes`) so that the router, not the
    /// server, judges sizes: media uploads up to `maxMediaBytes`, anything over 1 MiB elsewhere PAYLOAD_TOO_LARGE.
    public var requiredMaxBodyBytes: Int { service.configuration.maxMediaBytes + 1 }

    /// Whether `request` is addressed to this router (its path is under `pathPrefix`).
    public func handles(_ request: HTTPRequest) -> Bool {
        request.path == pathPrefix || request.path.hasPrefix(pathPrefix + "/")
    }

    /// This router as an `HTTPServer` responder (plain HTTP responses only).
    public var responder: HTTPClosureResponder {
        HTTPClosureResponder { request in .response(await self.respond(to: request)) }
    }

    /// The response to one HTTP request.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        do {
            return try await route(request)
        } catch {
            return Self.errorResponse(error)
        }
    }

    private func route(_ request: HTTPRequest) async throws(ChatterErrorBody) -> HTTPResponse {
        guard handles(request) else { throw .notFound("No such endpoint: \(request.method) \(request.path).") }
        let path = String(request.path.dropFirst(pathPrefix.count))
        guard let (endpoint, parameters) = ChatterEndpoint.match(method: request.method, path: path)
        else { throw .notFound("No such endpoint: \(request.method) \(path).") }

        let clientKey = request.headers.first(name: "X-Client-Key")
        try service.validateClientKey(clientKey)
        await service.waitWhileHeld(endpoint)
        try service.failIfArmed(endpoint)
        let limit = endpoint == .uploadMedia ? service.configuration.maxMediaBytes : service.configuration.maxRequestBodyBytes
        guard request.body.count <= limit else {
            throw ChatterErrorBody(
                code: .payloadTooLarge, message: "The body is over the limit of \(limit) bytes.",
                details: ["limit": .number(Double(limit))])
        }
        let call = RESTCall(request: request, endpoint: endpoint, parameters: parameters)
        switch endpoint.authorization {
        case .clientKey:
            // Sign-in is limited per username and device, refresh per device (inside the service); only
            // registration, which has neither, spends the client key's budget.
            if endpoint == .register { try service.admitAnonymousRequest(clientKey: clientKey ?? "") }
            return try await respondAnonymous(call)
        case .developer:
            try service.authorizeDeveloper(clientKey: clientKey, clientSecret: request.headers.first(name: "X-Client-Secret"))
            return try await respondDeveloper(call)
        case .user:
            let caller: SandboxCaller
            do {
                caller = try await service.authenticate(clientKey: clientKey ?? "", accessToken: Self.bearerToken(request) ?? "")
            } catch {
                throw error.errorBody
            }
            return try await respondUser(call, caller: caller)
        }
    }

    // MARK: Endpoints by credentials

    private func respondAnonymous(_ call: RESTCall) async throws(ChatterErrorBody) -> HTTPResponse {
        switch call.endpoint {
        case .register: return try Self.json(await service.register(call.body(RegisterBody.self)), status: .created)
        case .login:
            let body = try call.body(LoginBody.self)
            let session = try await service.login(body)
            // The device signed in again: its old tokens are gone, so must be the sockets opened with them.
            if body.deviceId == session.deviceId { await sink.endSessions(of: session.deviceId, because: .invalidToken) }
            return try Self.json(session)
        case .refresh: return try Self.json(await service.refresh(call.body(RefreshBody.self)))
        default: throw .notFound("No such endpoint.")
        }
    }

    private func respondDeveloper(_ call: RESTCall) async throws(ChatterErrorBody) -> HTTPResponse {
        switch call.endpoint {
        case .configureAPNs:
            try await service.configureAPNs(call.body(APNsKeyBody.self))
            return Self.noContent
        case .apnsConfiguration: return try Self.json(await service.apnsConfiguration())
        case .sendTestPush: return try Self.json(await service.sendTestPush(call.body(TestPushBody.self)))
        default: throw .notFound("No such endpoint.")
        }
    }

    private func respondUser(_ call: RESTCall, caller: SandboxCaller) async throws(ChatterErrorBody) -> HTTPResponse {
        switch call.endpoint {
        case .logout:
            try await service.logout(caller)
            await sink.endSessions(of: caller.deviceId, because: .deviceRevoked)
            return Self.noContent
        case .setPushToken:
            try await service.setPushToken(caller, call.body(PushTokenBody.self))
            return Self.noContent
        case .removePushToken:
            try await service.removePushToken(caller)
            return Self.noContent
        case .me: return try Self.json(await service.me(caller))
        case .updateMe:
            let body = try call.body(ProfileUpdateBody.self)
            let response = try await deliver(service.updateMe(caller, body))
            if body.privacy != nil { await sink.privacyChanged(of: caller.userId) }
            return response
        case .user: return try Self.json(await service.user(caller, User.ID(call.parameter("userId"))))
        case .searchUsers:
            return try Self.json(await service.searchUsers(caller, username: call.query("username") ?? ""))
        case .friends: return try Self.json(await service.friends(caller))
        case .removeFriend:
            return try await deliverNoContent(service.removeFriend(caller, User.ID(call.parameter("userId"))))
        case .friendRequests: return try Self.json(await service.friendRequests(caller))
        case .sendFriendRequest:
            return try await deliver(service.sendFriendRequest(caller, call.body(FriendRequestBody.self)), status: .created)
        case .acceptFriendRequest:
            return try await deliver(service.acceptFriendRequest(caller, FriendRequest.ID(call.parameter("requestId"))))
        case .declineFriendRequest:
            try await service.declineFriendRequest(caller, FriendRequest.ID(call.parameter("requestId")))
            return Self.noContent
        case .cancelFriendRequest:
            return try await deliverNoContent(service.cancelFriendRequest(caller, FriendRequest.ID(call.parameter("requestId"))))
        default:
            return try await respondConversation(call, caller: caller)
        }
    }

    private func respondConversation(_ call: RESTCall, caller: SandboxCaller) async throws(ChatterErrorBody) -> HTTPResponse {
        switch call.endpoint {
        case .conversations:
            return try Self.json(await service.conversations(caller, updatedSince: call.timestampQuery("updatedSince")))
        case .createConversation:
            let outcome = try await service.createConversation(caller, call.body(NewConversationBody.self))
            await sink.deliver(outcome.deliveries)
            return try Self.json(outcome.value.value, status: outcome.value.isNew ? .created : .ok)
        case .conversation: return try Self.json(await service.conversation(caller, call.conversationId()))
        case .updateConversation:
            return try await deliver(service.updateConversation(caller, call.conversationId(), call.body(ConversationUpdateBody.self)))
        case .addMembers:
            return try await deliver(service.addMembers(caller, call.conversationId(), call.body(MembersBody.self)))
        case .removeMember:
            return try await deliverNoContent(service.removeMember(caller, call.conversationId(), User.ID(call.parameter("userId"))))
        case .updateConversationSettings:
            try await service.setMuted(caller, call.conversationId(), muted: call.body(ConversationSettingsBody.self).muted)
            return Self.noContent
        case .messages:
            return try Self.json(await service.messages(caller, call.conversationId(), call.messagePageQuery(), limit: call.intQuery("limit")))
        case .postMessage:
            let conversationId = call.conversationId()
            let body = try call.body(MessagePostBody.self)
            let outcome = try await sink.deliverInOrder(in: conversationId) { () async throws(ChatterErrorBody) in
                try await service.postMessage(caller, conversationId, body)
            }
            return try Self.json(outcome.value.value, status: outcome.value.isNew ? .created : .ok)
        case .editMessage:
            return try await deliver(service.editMessage(caller, call.conversationId(), call.messageId(), call.body(MessageEditBody.self)))
        case .deleteMessage:
            return try await deliver(service.deleteMessage(caller, call.conversationId(), call.messageId()))
        case .addReaction:
            return try await deliver(service.addReaction(caller, call.conversationId(), call.messageId(), emoji: call.parameter("emoji")))
        case .removeReaction:
            return try await deliver(service.removeReaction(caller, call.conversationId(), call.messageId(), emoji: call.parameter("emoji")))
        case .uploadMedia:
            let mediaId = try await service.uploadMedia(
                caller, bytes: call.request.body, contentType: call.request.headers.first(name: "Content-Type"))
            return try Self.json(MediaUpload(mediaId: mediaId, url: try mediaURL(mediaId, request: call.request)), status: .created)
        case .downloadMedia:
            let file = try await service.mediaFile(caller, Media.ID(call.parameter("mediaId")))
            return HTTPResponse(status: .ok, headers: ["Content-Type": file.contentType], body: file.bytes)
        default:
            throw .notFound("No such endpoint.")
        }
    }

    // MARK: Media URLs

    /// Where `GET` downloads the upload (`downloadMedia` of the endpoint table, with the bearer token).
    private func mediaURL(_ id: Media.ID, request: HTTPRequest) throws(ChatterErrorBody) -> String {
        let base = publicBaseURL ?? "http://\(request.headers.first(name: "Host") ?? "127.0.0.1")\(pathPrefix)"
        do {
            return base + (try ChatterRequest<MediaFile>(.downloadMedia, pathParameters: ["mediaId": id.rawValue]).path)
        } catch {
            throw .internalError("The upload got an id that cannot name a path: \(error)")
        }
    }

    // MARK: Delivering events

    private func deliver<Value: Encodable & Sendable>(_ outcome: SandboxOutcome<Value>, status: HTTPStatus = .ok) async throws(ChatterErrorBody) -> HTTPResponse {
        await sink.deliver(outcome.deliveries)
        return try Self.json(outcome.value, status: status)
    }

    private func deliverNoContent(_ outcome: SandboxOutcome<Void>) async -> HTTPResponse {
        await sink.deliver(outcome.deliveries)
        return Self.noContent
    }

    // MARK: Responses

    static let noContent = HTTPResponse(status: .noContent)

    static func json<Value: Encodable>(_ value: Value, status: HTTPStatus = .ok) throws(ChatterErrorBody) -> HTTPResponse {
        let encoder = JSONEncoder()
        // Sorted keys: the same value always has the same bytes (a resent message's 200 equals its 201).
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return HTTPResponse(
                status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: Array(try encoder.encode(value)))
        } catch {
            throw .internalError("The response could not be encoded: \(error)")
        }
    }

    /// The contract's error response for `error`: its documented status, the error object, and `Retry-After`
    /// for `RATE_LIMITED`. Anything that is not an API error is `INTERNAL`.
    static func errorResponse(_ error: any Error) -> HTTPResponse {
        let body = error as? ChatterErrorBody ?? .internalError("Unexpected failure: \(error)")
        var headers: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]
        if body.code == .rateLimited, let seconds = body.details?["retryAfter"]?.doubleValue {
            headers.add(name: "Retry-After", value: String(Int(seconds)))
        }
        let encoded = (try? JSONEncoder().encode(body)).map { Array($0) } ?? Array(#"{"code":"INTERNAL","message":"Unencodable error"}"#.utf8)
        return HTTPResponse(status: HTTPStatus(code: body.code.documentedHTTPStatus ?? 500), headers: headers, body: Array(encoded))
    }

    static func bearerToken(_ request: HTTPRequest) -> String? {
        guard let value = request.headers.first(name: "Authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingCharacters(in: .whitespaces)
    }
}
