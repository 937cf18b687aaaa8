import WebSocket

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Chatter REST API, one typed async method per endpoint of `ChatterEndpoint`.
///
/// Every request carries `X-Client-Key`; user endpoints add the bearer token of `tokenStore`, developer
/// endpoints the workspace's `X-Client-Secret`. When a user request is rejected with `UNAUTHORIZED`, the
/// client refreshes the tokens once (shared with concurrent callers, see `ChatterTokenStore`) and retries
/// the request once; a second `UNAUTHORIZED` is thrown. Login and register store the new tokens; logout
/// clears them.
///
/// Errors: `ChatterAPIError` for every error the API reports (with HTTP status and `Retry-After`),
/// `ChatterClientError` for the rest, and `CancellationError` when the calling task is cancelled. A
/// `RATE_LIMITED` answer is thrown at once unless the client has a `retryPolicy` that waits it out (on `clock`).
/// Transfers run on `transport` without blocking the caller's thread: the built-in HTTP/1.1 client by default.
public struct ChatterRESTClient: Sendable {
    /// The service this client talks to: base URL and client key.
    public let configuration: ChatterServerConfiguration
    /// The device's tokens: read for every user request, replaced by login, refresh and logout.
    public let tokenStore: ChatterTokenStore
    /// Whether a `RATE_LIMITED` answer is waited out and retried (`.never` unless the client was given one).
    public let retryPolicy: RESTRetryPolicy
    /// The most bytes a response of these endpoints may hold, read whole even above the HTTP client's own limit:
    /// the contract's bounds (`ChatterEndpoint.largestResponse`) unless a test sets lower ones.
    package var largestResponses: [ChatterEndpoint: Int] = ChatterEndpoint.contractResponseBounds
    /// How long one request may take in all, in real time.
    package let requestTimeouts: RESTRequestTimeouts
    private let clock: any ChatterClock
    private let clientSecret: String?
    private let transport: ChatterHTTPTransport

    /// - Parameters:
    ///   - clientSecret: the workspace's secret, needed only for the developer endpoints.
    ///   - retryPolicy: whether to wait out `RATE_LIMITED` answers; by default they are thrown at once.
    ///   - transport: what carries the requests: the process's shared built-in client unless given another.
    ///   - clock: the clock `Retry-After` waits run on, and the "now" an HTTP-date `Retry-After` is read against.
    public init(
        configuration: ChatterServerConfiguration, tokenStore: ChatterTokenStore = ChatterTokenStore(),
        clientSecret: String? = nil, transport: ChatterHTTPTransport = .shared, retryPolicy: RESTRetryPolicy = .never,
        clock: any ChatterClock = SystemClock()
    ) {
        self.init(
            configuration: configuration, tokenStore: tokenStore, clientSecret: clientSecret, transport: transport,
            retryPolicy: retryPolicy, clock: clock, requestTimeouts: RESTRequestTimeouts())
    }

    /// A client whose requests may take as long as `requestTimeouts` say (a test's hang guards) instead of the
    /// production bounds.
    package init(
        configuration: ChatterServerConfiguration, tokenStore: ChatterTokenStore = ChatterTokenStore(),
        clientSecret: String? = nil, transport: ChatterHTTPTransport = .shared, retryPolicy: RESTRetryPolicy = .never,
        clock: any ChatterClock = SystemClock(), requestTimeouts: RESTRequestTimeouts
    ) {
        self.configuration = configuration
        self.tokenStore = tokenStore
        self.clientSecret = clientSecret
        self.transport = transport
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.requestTimeouts = requestTimeouts
    }

    /// Performs any request of `ChatterAPI`, with the credentials its endpoint needs. Only a Chatter error body with
    /// `UNAUTHORIZED` triggers the token refresh; a 401 without one (a proxy's page) is thrown as it came.
    public func send<Response>(_ request: ChatterRequest<Response>) async throws -> Response {
        guard request.endpoint.authorization == .user else { return try await perform(request, accessToken: nil) }
        guard let tokens = await tokenStore.tokens else { throw ChatterClientError.notSignedIn(request.endpoint) }
        do {
            return try await perform(request, accessToken: tokens.accessToken)
        } catch let error as ChatterAPIError where error.code == .unauthorized {
            let fresh = try await refreshTokens(replacing: tokens.accessToken)
            return try await perform(request, accessToken: fresh.accessToken)
        }
    }

    // MARK: Auth and devices

    /// Creates an account and signs in its first device; the tokens go to `tokenStore`.
    @discardableResult
    public func register(username: String, password: String, displayName: String) async throws -> AuthSession {
        let session = try await send(ChatterAPI.register(RegisterBody(username: username, password: password, displayName: displayName)))
        await tokenStore.replace(with: session.tokens)
        return session
    }

    /// Signs in; with `deviceId` (one of the user's devices) that device signs in again, so a bot stays
    /// one device across restarts. The tokens go to `tokenStore`.
    @discardableResult
    public func login(username: String, password: String, deviceId: Device.ID?, device: DeviceDescription) async throws -> AuthSession {
        let session = try await send(
            ChatterAPI.login(LoginBody(username: username, password: password, deviceId: deviceId, device: device)))
        await tokenStore.replace(with: session.tokens)
        return session
    }

    /// New tokens from the stored refresh token (which then stops working). With `staleAccessToken`,
    /// returns the current tokens without a request when they already replaced that token, e.g. after a
    /// WebSocket close 4001 that raced a REST refresh.
    @discardableResult
    public func refreshTokens(replacing staleAccessToken: String? = nil) async throws -> SessionTokens {
        let refreshed = try await tokenStore.refreshed(replacing: staleAccessToken) { refreshToken in
            try await perform(ChatterAPI.refresh(RefreshBody(refreshToken: refreshToken)), accessToken: nil).tokens
        }
        guard let refreshed else { throw ChatterClientError.notSignedIn(.refresh) }
        return refreshed
    }

    /// Revokes this device (its sockets close with 4003, its push token is dropped) and clears the tokens.
    public func logout() async throws {
        _ = try await send(ChatterAPI.logout())
        await tokenStore.replace(with: nil)
    }

    /// Registers this device's APNs token (call on every launch: tokens change).
    public func setPushToken(_ token: String, environment: PushEnvironment) async throws {
        _ = try await send(ChatterAPI.setPushToken(PushTokenBody(token: token, environment: environment)))
    }

    /// Stops pushes to this device.
    public func removePushToken() async throws {
        _ = try await send(ChatterAPI.removePushToken())
    }

    // MARK: Users and friends

    /// The signed-in user, with their privacy settings.
    public func me() async throws -> CurrentUser { try await send(ChatterAPI.me()) }

    /// Changes the non-nil fields of the profile; friends get `user.updated`.
    public func updateMe(displayName: String? = nil, privacy: PrivacySettings? = nil) async throws -> User {
        try await send(ChatterAPI.updateMe(ProfileUpdateBody(displayName: displayName, privacy: privacy)))
    }

    /// One user's public profile; `NOT_FOUND` when the caller cannot see them.
    public func user(_ id: User.ID) async throws -> User { try await send(ChatterAPI.user(id)) }

    /// The users with this exact username (zero or one).
    public func users(username: String) async throws -> [User] {
        try await send(ChatterAPI.searchUsers(username: username)).users
    }

    /// The caller's friends.
    public func friends() async throws -> [Friend] { try await send(ChatterAPI.friends()).friends }

    /// Ends a friendship; both users get `friend.removed`.
    public func removeFriend(_ userId: User.ID) async throws {
        _ = try await send(ChatterAPI.removeFriend(userId))
    }

    /// The pending friend requests to and from the caller.
    public func friendRequests() async throws -> FriendRequestList { try await send(ChatterAPI.friendRequests()) }

    /// Sends a friend request by user id or username.
    public func sendFriendRequest(to target: FriendRequestBody) async throws -> FriendRequest {
        try await send(ChatterAPI.sendFriendRequest(target))
    }

    /// Accepts a request to the caller; both users get `friend_request.accepted`.
    public func acceptFriendRequest(_ id: FriendRequest.ID) async throws -> FriendRequestAccepted {
        try await send(ChatterAPI.acceptFriendRequest(id))
    }

    /// Declines a request to the caller; the sender is not told.
    public func declineFriendRequest(_ id: FriendRequest.ID) async throws {
        _ = try await send(ChatterAPI.declineFriendRequest(id))
    }

    /// Withdraws a request the caller sent.
    public func cancelFriendRequest(_ id: FriendRequest.ID) async throws {
        _ = try await send(ChatterAPI.cancelFriendRequest(id))
    }

    // MARK: Conversations and messages

    /// Conversations updated after `updatedSince` (all when nil), oldest `updatedAt` first, at most 100:
    /// page with the last `updatedAt`.
    public func conversations(updatedSince: Timestamp? = nil) async throws -> [Conversation] {
        try await send(ChatterAPI.conversations(updatedSince: updatedSince)).conversations
    }

    /// The direct conversation with a friend, created if it does not exist yet.
    public func directConversation(with userId: User.ID) async throws -> Conversation {
        try await send(ChatterAPI.createConversation(.direct(userId: userId)))
    }

    /// A new group of the caller's friends.
    public func createGroup(title: String, memberIds: [User.ID]) async throws -> Conversation {
        try await send(ChatterAPI.createConversation(.group(title: title, memberIds: memberIds)))
    }

    /// One of the caller's conversations, with members and watermarks.
    public func conversation(_ id: Conversation.ID) async throws -> Conversation {
        try await send(ChatterAPI.conversation(id))
    }

    /// Changes the non-nil fields of a group (owner or admin).
    public func updateConversation(_ id: Conversation.ID, title: String? = nil, avatarUrl: String? = nil) async throws -> Conversation {
        try await send(ChatterAPI.updateConversation(id, ConversationUpdateBody(title: title, avatarUrl: avatarUrl)))
    }

    /// Adds friends of the caller to a group (owner or admin).
    public func addMembers(_ userIds: [User.ID], to id: Conversation.ID) async throws -> Conversation {
        try await send(ChatterAPI.addMembers(MembersBody(userIds: userIds), to: id))
    }

    /// Removes a member (owner or admin), or leaves when `userId` is the caller.
    public func removeMember(_ userId: User.ID, from id: Conversation.ID) async throws {
        _ = try await send(ChatterAPI.removeMember(userId, from: id))
    }

    /// Mutes or unmutes the caller's pushes for a conversation.
    public func setMuted(_ muted: Bool, conversation id: Conversation.ID) async throws {
        _ = try await send(ChatterAPI.updateConversationSettings(id, ConversationSettingsBody(muted: muted)))
    }

    /// Messages after `afterSeq`, ascending (`limit` at most 500, service default 100).
    public func messages(in id: Conversation.ID, afterSeq: Int, limit: Int? = nil) async throws -> MessagePage {
        try await send(ChatterAPI.messages(in: id, afterSeq: afterSeq, limit: limit))
    }

    /// History before `beforeSeq`, descending.
    public func messages(in id: Conversation.ID, beforeSeq: Int, limit: Int? = nil) async throws -> MessagePage {
        try await send(ChatterAPI.messages(in: id, beforeSeq: beforeSeq, limit: limit))
    }

    /// Posts a message over REST; a repeated `clientMessageId` returns the same message.
    public func postMessage(_ content: MessageContent, clientMessageId: ClientMessageID, in id: Conversation.ID) async throws -> Message {
        try await send(ChatterAPI.postMessage(MessagePostBody(clientMessageId: clientMessageId, content: content), in: id))
    }

    /// Replaces the text of the caller's own message; members get `message.updated`.
    public func editMessage(_ messageId: Message.ID, in id: Conversation.ID, body: String) async throws -> Message {
        try await send(ChatterAPI.editMessage(messageId, in: id, MessageEditBody(body: body)))
    }

    /// Deletes a message for everyone.
    public func deleteMessage(_ messageId: Message.ID, in id: Conversation.ID) async throws -> Message {
        try await send(ChatterAPI.deleteMessage(messageId, in: id))
    }

    /// Reacts to a message with an emoji; members get `message.updated`.
    public func addReaction(_ emoji: String, to messageId: Message.ID, in id: Conversation.ID) async throws -> Message {
        try await send(ChatterAPI.addReaction(emoji, to: messageId, in: id))
    }

    /// Takes the caller's reaction back.
    public func removeReaction(_ emoji: String, from messageId: Message.ID, in id: Conversation.ID) async throws -> Message {
        try await send(ChatterAPI.removeReaction(emoji, from: messageId, in: id))
    }

    /// Uploads a file for a photo, voice, video or document message.
    public func uploadMedia(_ data: Data, contentType: String) async throws -> MediaUpload {
        try await send(ChatterAPI.uploadMedia(data, contentType: contentType))
    }

    /// Downloads an uploaded file (its uploader's, or one carried by a message of a conversation the caller is in).
    public func downloadMedia(_ id: Media.ID) async throws -> MediaFile {
        try await send(ChatterAPI.downloadMedia(id))
    }

    // MARK: Developer (workspace), with the client secret

    /// Uploads the workspace's APNs key.
    public func configureAPNs(_ key: APNsKeyBody) async throws {
        _ = try await send(ChatterAPI.configureAPNs(key))
    }

    /// Whether the workspace has an APNs key, and which.
    public func apnsConfiguration() async throws -> APNsConfiguration {
        try await send(ChatterAPI.apnsConfiguration())
    }

    /// Sends a test push to every device of a user, with each device's outcome.
    public func sendTestPush(to userId: User.ID) async throws -> TestPushReport {
        try await send(ChatterAPI.sendTestPush(TestPushBody(userId: userId)))
    }

    // MARK: One exchange

    /// Sends `request`, waiting out `RATE_LIMITED` answers as `retryPolicy` allows.
    private func perform<Response>(_ request: ChatterRequest<Response>, accessToken: String?) async throws -> Response {
        var retry = 0
        while true {
            do {
                return try await exchange(request, accessToken: accessToken)
            } catch let error as ChatterAPIError {
                retry += 1
                guard let wait = retryPolicy.wait(before: retry, after: error) else { throw error }
                try await clock.sleep(for: wait)
            }
        }
    }

    /// One HTTP request and its response.
    private func exchange<Response>(_ request: ChatterRequest<Response>, accessToken: String?) async throws -> Response {
        let endpoint = request.endpoint
        let isRawFile = Response.self == MediaFile.self
        var headers = [("X-Client-Key", configuration.clientKey), ("Accept", isRawFile ? "*/*" : "application/json")]
        switch endpoint.authorization {
        case .clientKey:
            break
        case .user:
            if let accessToken { headers.append(("Authorization", "Bearer \(accessToken)")) }
        case .developer:
            guard let clientSecret else { throw ChatterClientError.missingClientSecret(endpoint) }
            headers.append(("X-Client-Secret", clientSecret))
        }
        var body: Data?
        switch request.body {
        case .none:
            break
        case .json(let value):
            do {
                body = try WireCoding.encoder.encode(value)
            } catch {
                throw ChatterClientError.invalidRequest(endpoint, description: "body not encodable as JSON: \(error)")
            }
            headers.append(("Content-Type", "application/json"))
        case .raw(let data, let contentType):
            body = data
            headers.append(("Content-Type", contentType))
        }

        let http: ChatterHTTPTransport.Response
        do {
            http = try await transport.send(
                ChatterHTTPTransport.Request(
                    method: endpoint.method.rawValue, url: try configuration.url(for: request), headers: headers, body: body,
                    repeatable: endpoint.repeatsHarmlessly, largestResponse: largestResponses[endpoint]),
                timeout: requestTimeouts.timeout(of: endpoint))
        } catch let error as ChatterClientError {
            throw error
        } catch HTTPClientError.responseTooLarge(let limit) {
            throw ChatterClientError.responseTooLarge(endpoint, limit: limit)
        } catch {
            try Task.checkCancellation()
            throw ChatterClientError.transport(endpoint, description: Self.describe(error))
        }
        let data = http.body
        guard (200..<300).contains(http.status) else {
            throw Self.apiError(endpoint: endpoint, status: http.status, retryAfterHeader: http.header("Retry-After"), body: data, now: clock.now)
        }
        if let nothing = NoContent() as? Response { return nothing }
        if isRawFile, let file = MediaFile(
            data: data, contentType: http.header("Content-Type") ?? "application/octet-stream") as? Response
        {
            return file
        }
        do {
            return try WireCoding.decoder.decode(Response.self, from: data)
        } catch let error as DecodingError {
            let located = FrameDecodingError(frameType: nil, error)
            throw ChatterClientError.invalidResponse(endpoint, httpStatus: http.status, field: located.field, description: located.detail)
        }
    }

    /// The API error of a non-2xx response. A body that is not an error object (a proxy's HTML page) gets the code
    /// its status implies, except a 401: the service has four 401 codes, and taking a proxy's 401 for
    /// `UNAUTHORIZED` would spend the one-time refresh token, so it keeps `HTTP_401`. `now` reads a `Retry-After`
    /// given as an HTTP-date.
    static func apiError(endpoint: ChatterEndpoint, status: Int, retryAfterHeader: String?, body: Data, now: Date) -> ChatterAPIError {
        let retryAfter = retryAfterHeader.flatMap { RetryAfter.delay(inHeader: $0, now: now) }
        if let errorBody = try? WireCoding.decoder.decode(ChatterErrorBody.self, from: body) {
            return ChatterAPIError(errorBody, httpStatus: status, retryAfter: retryAfter, endpoint: endpoint)
        }
        let code: ChatterErrorCode
        switch status {
        case 400: code = .validationFailed
        case 403: code = .forbidden
        case 404: code = .notFound
        case 413: code = .payloadTooLarge
        case 429: code = .rateLimited
        case 500..<600: code = .internalError
        default: code = ChatterErrorCode(rawValue: "HTTP_\(status)")
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return ChatterAPIError(
            code: code, message: "HTTP \(status) without a Chatter error body" + (text.isEmpty ? "" : ": \(text)"),
            httpStatus: status, retryAfter: retryAfter, endpoint: endpoint)
    }

    private static func describe(_ error: any Error) -> String {
        if let urlError = error as? URLError {
            return "URLError \(urlError.code.rawValue): \(urlError.localizedDescription)"
        }
        return String(describing: error)
    }
}
