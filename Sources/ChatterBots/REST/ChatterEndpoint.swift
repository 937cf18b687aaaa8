// THE endpoint table: every REST path, method, authorization and request/response shape of
// chatter-api.md lives in this file, so the client (and the sandbox's router) can be adjusted to the
// live service in one place.

import WebSocket

/// Which credentials an endpoint takes besides `X-Client-Key` (which every request carries).
public enum EndpointAuthorization: Hashable, Sendable {
    /// Only the client key: register, login, refresh.
    case clientKey
    /// `Authorization: Bearer <accessToken>` of a signed-in device.
    case user
    /// `X-Client-Secret: <clientSecret>` of the workspace, no bearer token.
    case developer
}

/// Every REST endpoint of the Chatter API: method, path template (relative to the API base URL, with
/// `{name}` for path parameters), authorization and documented success status.
public enum ChatterEndpoint: String, Hashable, Sendable, CaseIterable {
    /// `POST /auth/register`: a new account and its first device.
    case register
    /// `POST /auth/login`: signs a device in (again, with its `deviceId`).
    case login
    /// `POST /auth/refresh`: new tokens for the one-time refresh token.
    case refresh
    /// `POST /auth/logout`: revokes the device.
    case logout
    /// `PUT /me/devices/current/push-token`: registers the device's APNs token.
    case setPushToken
    /// `DELETE /me/devices/current/push-token`: stops pushes to the device.
    case removePushToken
    /// `GET /me`: the signed-in user with privacy settings.
    case me
    /// `PATCH /me`: changes the profile.
    case updateMe
    /// `GET /users/{userId}`: one user.
    case user
    /// `GET /users?username=`: finds a user by handle.
    case searchUsers
    /// `GET /friends`: the caller's friends.
    case friends
    /// `DELETE /friends/{userId}`: ends a friendship.
    case removeFriend
    /// `GET /friend-requests`: pending requests both ways.
    case friendRequests
    /// `POST /friend-requests`: asks someone to be a friend.
    case sendFriendRequest
    /// `POST /friend-requests/{requestId}/accept`.
    case acceptFriendRequest
    /// `POST /friend-requests/{requestId}/decline`.
    case declineFriendRequest
    /// `DELETE /friend-requests/{requestId}`: the sender withdraws.
    case cancelFriendRequest
    /// `GET /conversations?updatedSince=`: conversations changed since a time.
    case conversations
    /// `POST /conversations`: a direct conversation or a group.
    case createConversation
    /// `GET /conversations/{conversationId}`.
    case conversation
    /// `PATCH /conversations/{conversationId}`: a group's title or picture.
    case updateConversation
    /// `POST /conversations/{conversationId}/members`.
    case addMembers
    /// `DELETE /conversations/{conversationId}/members/{userId}`: removes a member, or leaves.
    case removeMember
    /// `PUT /conversations/{conversationId}/settings`: mutes or unmutes.
    case updateConversationSettings
    /// `GET /conversations/{conversationId}/messages`: a page of messages.
    case messages
    /// `POST /conversations/{conversationId}/messages`: sends over REST.
    case postMessage
    /// `PATCH /conversations/{conversationId}/messages/{messageId}`: edits a message.
    case editMessage
    /// `DELETE /conversations/{conversationId}/messages/{messageId}`: deletes it for everyone.
    case deleteMessage
    /// `PUT …/messages/{messageId}/reactions/{emoji}`.
    case addReaction
    /// `DELETE …/messages/{messageId}/reactions/{emoji}`.
    case removeReaction
    /// `POST /media`: uploads a file for a media message.
    case uploadMedia
    /// `GET /media/{mediaId}`: an uploaded file, for its uploader and the members of conversations carrying it.
    case downloadMedia
    /// `PUT /developer/apns`: the workspace's APNs key.
    case configureAPNs
    /// `GET /developer/apns`: whether APNs is configured.
    case apnsConfiguration
    /// `POST /developer/test-push`: a test push to a user's devices.
    case sendTestPush

    /// The HTTP method: the WebSocket module's `HTTPMethod`, the one type the sandbox's HTTP server routes by
    /// too. Bot code never needs it (the typed methods of `ChatterRESTClient` pick it), so it never imports WebSocket.
    public var method: HTTPMethod {
        switch self {
        case .register, .login, .refresh, .logout, .sendFriendRequest, .acceptFriendRequest, .declineFriendRequest,
            .createConversation, .addMembers, .postMessage, .uploadMedia, .sendTestPush:
            .post
        case .setPushToken, .updateConversationSettings, .addReaction, .configureAPNs: .put
        case .updateMe, .updateConversation, .editMessage: .patch
        case .removePushToken, .removeFriend, .cancelFriendRequest, .removeMember, .deleteMessage, .removeReaction: .delete
        case .me, .user, .searchUsers, .friends, .friendRequests, .conversations, .conversation, .messages,
            .downloadMedia, .apnsConfiguration:
            .get
        }
    }

    /// The path relative to the API base URL, with `{name}` for each path parameter, e.g. `/users/{userId}`.
    public var pathTemplate: String {
        switch self {
        case .register: "/auth/register"
        case .login: "/auth/login"
        case .refresh: "/auth/refresh"
        case .logout: "/auth/logout"
        case .setPushToken, .removePushToken: "/me/devices/current/push-token"
        case .me, .updateMe: "/me"
        case .user: "/users/{userId}"
        case .searchUsers: "/users"
        case .friends: "/friends"
        case .removeFriend: "/friends/{userId}"
        case .friendRequests, .sendFriendRequest: "/friend-requests"
        case .acceptFriendRequest: "/friend-requests/{requestId}/accept"
        case .declineFriendRequest: "/friend-requests/{requestId}/decline"
        case .cancelFriendRequest: "/friend-requests/{requestId}"
        case .conversations, .createConversation: "/conversations"
        case .conversation, .updateConversation: "/conversations/{conversationId}"
        case .addMembers: "/conversations/{conversationId}/members"
        case .removeMember: "/conversations/{conversationId}/members/{userId}"
        case .updateConversationSettings: "/conversations/{conversationId}/settings"
        case .messages, .postMessage: "/conversations/{conversationId}/messages"
        case .editMessage, .deleteMessage: "/conversations/{conversationId}/messages/{messageId}"
        case .addReaction, .removeReaction: "/conversations/{conversationId}/messages/{messageId}/reactions/{emoji}"
        case .uploadMedia: "/media"
        case .downloadMedia: "/media/{mediaId}"
        case .configureAPNs, .apnsConfiguration: "/developer/apns"
        case .sendTestPush: "/developer/test-push"
        }
    }

    /// The credentials the endpoint takes besides the client key.
    public var authorization: EndpointAuthorization {
        switch self {
        case .register, .login, .refresh: .clientKey
        case .configureAPNs, .apnsConfiguration, .sendTestPush: .developer
        default: .user
        }
    }

    /// Whether sending the request twice does no harm though it is a `POST`: the service answers a repeated
    /// `clientMessageId` with the message it stored, and a second upload only leaves an unused file behind.
    var repeatsHarmlessly: Bool {
        self == .postMessage || self == .uploadMedia
    }

    /// The most bytes the contract lets one response of the endpoint hold, for an endpoint whose responses can be
    /// larger than an HTTP client accepts by default (16 MiB) and that takes no `limit` to ask for less; nil for the
    /// others. `GET /conversations` lists up to 100 conversations, each with its `lastMessage`, whose body came in a
    /// request of at most 1 MiB (`PAYLOAD_TOO_LARGE` above it) and is taken to come back no larger: 100 × (1 MiB +
    /// 64 KiB for the message's other fields, the members and the rest of the conversation) = 106.25 MiB.
    package var largestResponse: Int? {
        switch self {
        case .conversations: Self.conversationsPerPage * (Self.largestRequestBody + 64 * 1024)
        default: nil
        }
    }

    /// `largestResponse` of every endpoint that has one.
    package static var contractResponseBounds: [ChatterEndpoint: Int] {
        Dictionary(uniqueKeysWithValues: allCases.compactMap { endpoint in endpoint.largestResponse.map { (endpoint, $0) } })
    }

    /// The most conversations one page of `GET /conversations` lists.
    package static let conversationsPerPage = 100
    /// The largest request body the service accepts, in bytes; it answers `PAYLOAD_TOO_LARGE` above it.
    package static let largestRequestBody = 1 << 20

    /// The status of a first success. `createConversation` answers 200 for an existing direct
    /// conversation and `postMessage` 200 for a repeated `clientMessageId`; clients accept any 2xx.
    public var successStatus: Int {
        switch self {
        case .register, .sendFriendRequest, .createConversation, .postMessage, .uploadMedia: 201
        case .logout, .setPushToken, .removePushToken, .removeFriend, .declineFriendRequest, .cancelFriendRequest,
            .removeMember, .updateConversationSettings, .configureAPNs:
            204
        default: 200
        }
    }

    /// The endpoint and path parameters (percent-decoded) of a request path relative to the API base
    /// URL, e.g. `("DELETE", "/friends/01JC…")` → `(.removeFriend, ["userId": "01JC…"])`.
    public static func match(method: HTTPMethod, path: String) -> (endpoint: ChatterEndpoint, parameters: [String: String])? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        candidates: for endpoint in allCases where endpoint.method == method {
            let template = endpoint.pathTemplate.split(separator: "/", omittingEmptySubsequences: true)
            guard template.count == segments.count else { continue }
            var parameters: [String: String] = [:]
            for (pattern, segment) in zip(template, segments) {
                if pattern.hasPrefix("{"), pattern.hasSuffix("}") {
                    guard let value = String(segment).removingPercentEncoding, !value.isEmpty else { continue candidates }
                    parameters[String(pattern.dropFirst().dropLast())] = value
                } else if pattern != segment {
                    continue candidates
                }
            }
            return (endpoint, parameters)
        }
        return nil
    }
}

/// The body of a REST request.
public enum ChatterRequestBody: Sendable {
    /// No body (GET, DELETE and the POSTs that need none).
    case none
    /// A JSON body (`Content-Type: application/json`).
    case json(any Encodable & Sendable)
    /// Raw bytes with their content type (media upload).
    case raw(Data, contentType: String)
}

/// One REST call: an endpoint with its path parameters, query and body, typed by its response.
public struct ChatterRequest<Response: Decodable & Sendable>: Sendable {
    /// Which endpoint to call.
    public var endpoint: ChatterEndpoint
    /// The values of the template's `{name}` parameters, by name, not yet encoded.
    public var pathParameters: [String: String]
    /// The query items, not yet encoded.
    public var query: [URLQueryItem]
    /// What to send.
    public var body: ChatterRequestBody

    /// A request; `ChatterAPI` makes the typed one of each endpoint, so this is for calls the table lacks.
    public init(
        _ endpoint: ChatterEndpoint, pathParameters: [String: String] = [:], query: [URLQueryItem] = [],
        body: ChatterRequestBody = .none
    ) {
        self.endpoint = endpoint
        self.pathParameters = pathParameters
        self.query = query
        self.body = body
    }

    /// The path with its parameters filled in, each percent-encoded, e.g. `/conversations/01JE…/messages`.
    ///
    /// - Throws: `ChatterClientError.invalidRequest` when a parameter is missing, empty, `.` or `..`, or is not one
    ///   of the template's: an empty user id would turn `GET /users/{userId}` into the search `GET /users/`, and a
    ///   dot segment would climb to another path once the URL is normalised. Nothing is sent then.
    public var path: String {
        get throws(ChatterClientError) {
            var path = ""
            var used = 0
            for segment in endpoint.pathTemplate.split(separator: "/", omittingEmptySubsequences: true) {
                path += "/"
                guard segment.hasPrefix("{"), segment.hasSuffix("}") else {
                    path += segment
                    continue
                }
                let name = String(segment.dropFirst().dropLast())
                guard let value = pathParameters[name] else {
                    throw .invalidRequest(endpoint, description: "the path parameter '\(name)' is missing")
                }
                guard !value.isEmpty, value != ".", value != ".." else {
                    throw .invalidRequest(
                        endpoint, description: "the path parameter '\(name)' is \(value.isEmpty ? "empty" : "'\(value)'"): it must name one resource")
                }
                path += PercentEncoding.encode(value)
                used += 1
            }
            if used < pathParameters.count {
                let unknown = pathParameters.keys.filter { !endpoint.pathTemplate.contains("{\($0)}") }.sorted()
                throw .invalidRequest(
                    endpoint, description: "\(endpoint.pathTemplate) has no parameter \(unknown.map { "'\($0)'" }.joined(separator: ", "))")
            }
            return path
        }
    }

    /// The query string without `?`, each name and value percent-encoded; empty when there is none.
    public var queryString: String {
        query.map { item in PercentEncoding.encode(item.name) + "=" + PercentEncoding.encode(item.value ?? "") }.joined(separator: "&")
    }
}

/// The typed requests of every endpoint: what each sends and what it answers.
public enum ChatterAPI {
    // MARK: Auth and devices

    /// `POST /auth/register` → 201 `AuthSession`.
    public static func register(_ body: RegisterBody) -> ChatterRequest<AuthSession> {
        ChatterRequest(.register, body: .json(body))
    }

    /// `POST /auth/login` → `AuthSession`.
    public static func login(_ body: LoginBody) -> ChatterRequest<AuthSession> {
        ChatterRequest(.login, body: .json(body))
    }

    /// `POST /auth/refresh` → `AuthSession` (the refresh token rotates).
    public static func refresh(_ body: RefreshBody) -> ChatterRequest<AuthSession> {
        ChatterRequest(.refresh, body: .json(body))
    }

    /// `POST /auth/logout` → 204; revokes the device.
    public static func logout() -> ChatterRequest<NoContent> { ChatterRequest(.logout) }

    /// `PUT /me/devices/current/push-token` → 204.
    public static func setPushToken(_ body: PushTokenBody) -> ChatterRequest<NoContent> {
        ChatterRequest(.setPushToken, body: .json(body))
    }

    /// `DELETE /me/devices/current/push-token` → 204.
    public static func removePushToken() -> ChatterRequest<NoContent> { ChatterRequest(.removePushToken) }

    // MARK: Users and friends

    /// `GET /me` → `CurrentUser`.
    public static func me() -> ChatterRequest<CurrentUser> { ChatterRequest(.me) }

    /// `PATCH /me` → `User`.
    public static func updateMe(_ body: ProfileUpdateBody) -> ChatterRequest<User> {
        ChatterRequest(.updateMe, body: .json(body))
    }

    /// `GET /users/{userId}` → `User`.
    public static func user(_ id: User.ID) -> ChatterRequest<User> {
        ChatterRequest(.user, pathParameters: ["userId": id.rawValue])
    }

    /// `GET /users?username=` → `UserList`.
    public static func searchUsers(username: String) -> ChatterRequest<UserList> {
        ChatterRequest(.searchUsers, query: [URLQueryItem(name: "username", value: username)])
    }

    /// `GET /friends` → `FriendList`.
    public static func friends() -> ChatterRequest<FriendList> { ChatterRequest(.friends) }

    /// `DELETE /friends/{userId}` → 204.
    public static func removeFriend(_ id: User.ID) -> ChatterRequest<NoContent> {
        ChatterRequest(.removeFriend, pathParameters: ["userId": id.rawValue])
    }

    /// `GET /friend-requests` → `FriendRequestList`.
    public static func friendRequests() -> ChatterRequest<FriendRequestList> { ChatterRequest(.friendRequests) }

    /// `POST /friend-requests` → 201 `FriendRequest`.
    public static func sendFriendRequest(_ body: FriendRequestBody) -> ChatterRequest<FriendRequest> {
        ChatterRequest(.sendFriendRequest, body: .json(body))
    }

    /// `POST /friend-requests/{requestId}/accept` → `FriendRequestAccepted`.
    public static func acceptFriendRequest(_ id: FriendRequest.ID) -> ChatterRequest<FriendRequestAccepted> {
        ChatterRequest(.acceptFriendRequest, pathParameters: ["requestId": id.rawValue])
    }

    /// `POST /friend-requests/{requestId}/decline` → 204.
    public static func declineFriendRequest(_ id: FriendRequest.ID) -> ChatterRequest<NoContent> {
        ChatterRequest(.declineFriendRequest, pathParameters: ["requestId": id.rawValue])
    }

    /// `DELETE /friend-requests/{requestId}` → 204 (the sender withdraws).
    public static func cancelFriendRequest(_ id: FriendRequest.ID) -> ChatterRequest<NoContent> {
        ChatterRequest(.cancelFriendRequest, pathParameters: ["requestId": id.rawValue])
    }

    // MARK: Conversations and messages

    /// `GET /conversations?updatedSince=` → `ConversationList` (at most 100, oldest `updatedAt` first).
    public static func conversations(updatedSince: Timestamp?) -> ChatterRequest<ConversationList> {
        ChatterRequest(.conversations, query: updatedSince.map { [URLQueryItem(name: "updatedSince", value: $0.iso8601)] } ?? [])
    }

    /// `POST /conversations` → 201 `Conversation` (200 with the existing direct conversation).
    public static func createConversation(_ body: NewConversationBody) -> ChatterRequest<Conversation> {
        ChatterRequest(.createConversation, body: .json(body))
    }

    /// `GET /conversations/{conversationId}` → `Conversation`.
    public static func conversation(_ id: Conversation.ID) -> ChatterRequest<Conversation> {
        ChatterRequest(.conversation, pathParameters: ["conversationId": id.rawValue])
    }

    /// `PATCH /conversations/{conversationId}` → `Conversation` (owner or admin).
    public static func updateConversation(_ id: Conversation.ID, _ body: ConversationUpdateBody) -> ChatterRequest<Conversation> {
        ChatterRequest(.updateConversation, pathParameters: ["conversationId": id.rawValue], body: .json(body))
    }

    /// `POST /conversations/{conversationId}/members` → `Conversation` (the contract leaves the response
    /// open; this table assumes the updated conversation).
    public static func addMembers(_ body: MembersBody, to id: Conversation.ID) -> ChatterRequest<Conversation> {
        ChatterRequest(.addMembers, pathParameters: ["conversationId": id.rawValue], body: .json(body))
    }

    /// `DELETE /conversations/{conversationId}/members/{userId}` → 204 (owner/admin, or oneself to leave).
    public static func removeMember(_ userId: User.ID, from id: Conversation.ID) -> ChatterRequest<NoContent> {
        ChatterRequest(.removeMember, pathParameters: ["conversationId": id.rawValue, "userId": userId.rawValue])
    }

    /// `PUT /conversations/{conversationId}/settings` → 204.
    public static func updateConversationSettings(_ id: Conversation.ID, _ body: ConversationSettingsBody) -> ChatterRequest<NoContent> {
        ChatterRequest(.updateConversationSettings, pathParameters: ["conversationId": id.rawValue], body: .json(body))
    }

    /// `GET /conversations/{conversationId}/messages?afterSeq=&limit=` → `MessagePage`, ascending.
    public static func messages(in id: Conversation.ID, afterSeq: Int, limit: Int? = nil) -> ChatterRequest<MessagePage> {
        var query = [URLQueryItem(name: "afterSeq", value: String(afterSeq))]
        if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
        return ChatterRequest(.messages, pathParameters: ["conversationId": id.rawValue], query: query)
    }

    /// `GET /conversations/{conversationId}/messages?beforeSeq=&limit=` → `MessagePage`, descending (history).
    public static func messages(in id: Conversation.ID, beforeSeq: Int, limit: Int? = nil) -> ChatterRequest<MessagePage> {
        var query = [URLQueryItem(name: "beforeSeq", value: String(beforeSeq))]
        if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
        return ChatterRequest(.messages, pathParameters: ["conversationId": id.rawValue], query: query)
    }

    /// `POST /conversations/{conversationId}/messages` → 201 `Message` (200 and the same message for a
    /// repeated `clientMessageId`).
    public static func postMessage(_ body: MessagePostBody, in id: Conversation.ID) -> ChatterRequest<Message> {
        ChatterRequest(.postMessage, pathParameters: ["conversationId": id.rawValue], body: .json(body))
    }

    /// `PATCH /conversations/{conversationId}/messages/{messageId}` → `Message` (sender only).
    public static func editMessage(_ messageId: Message.ID, in id: Conversation.ID, _ body: MessageEditBody) -> ChatterRequest<Message> {
        ChatterRequest(.editMessage, pathParameters: ["conversationId": id.rawValue, "messageId": messageId.rawValue], body: .json(body))
    }

    /// `DELETE /conversations/{conversationId}/messages/{messageId}` → `Message` (deleted for everyone).
    public static func deleteMessage(_ messageId: Message.ID, in id: Conversation.ID) -> ChatterRequest<Message> {
        ChatterRequest(.deleteMessage, pathParameters: ["conversationId": id.rawValue, "messageId": messageId.rawValue])
    }

    /// `PUT /conversations/{conversationId}/messages/{messageId}/reactions/{emoji}` → `Message`.
    public static func addReaction(_ emoji: String, to messageId: Message.ID, in id: Conversation.ID) -> ChatterRequest<Message> {
        ChatterRequest(.addReaction, pathParameters: ["conversationId": id.rawValue, "messageId": messageId.rawValue, "emoji": emoji])
    }

    /// `DELETE /conversations/{conversationId}/messages/{messageId}/reactions/{emoji}` → `Message`.
    public static func removeReaction(_ emoji: String, from messageId: Message.ID, in id: Conversation.ID) -> ChatterRequest<Message> {
        ChatterRequest(.removeReaction, pathParameters: ["conversationId": id.rawValue, "messageId": messageId.rawValue, "emoji": emoji])
    }

    /// `POST /media` with the raw file (image/*, audio/*, video/*, application/pdf; at most 10 MiB) → 201 `MediaUpload`.
    public static func uploadMedia(_ data: Data, contentType: String) -> ChatterRequest<MediaUpload> {
        ChatterRequest(.uploadMedia, body: .raw(data, contentType: contentType))
    }

    /// `GET /media/{mediaId}` (where `MediaUpload.url` points) → the raw file as `MediaFile`, for its uploader and the
    /// members of a conversation with a message carrying it.
    public static func downloadMedia(_ id: Media.ID) -> ChatterRequest<MediaFile> {
        ChatterRequest(.downloadMedia, pathParameters: ["mediaId": id.rawValue])
    }

    // MARK: Developer (workspace)

    /// `PUT /developer/apns` → 204.
    public static func configureAPNs(_ body: APNsKeyBody) -> ChatterRequest<NoContent> {
        ChatterRequest(.configureAPNs, body: .json(body))
    }

    /// `GET /developer/apns` → `APNsConfiguration`.
    public static func apnsConfiguration() -> ChatterRequest<APNsConfiguration> { ChatterRequest(.apnsConfiguration) }

    /// `POST /developer/test-push` → `TestPushReport`.
    public static func sendTestPush(_ body: TestPushBody) -> ChatterRequest<TestPushReport> {
        ChatterRequest(.sendTestPush, body: .json(body))
    }
}
