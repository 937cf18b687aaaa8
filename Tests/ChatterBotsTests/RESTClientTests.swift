import Foundation
import Synchronization
import Testing
import TestSupport

@testable import ChatterBots
import WebSocket

private func session(_ access: String, _ refresh: String) throws -> JSONValue {
    try jsonValue(#"{ "accessToken": "\#(access)", "refreshToken": "\#(refresh)", "expiresIn": 3600, "deviceId": "D1", "user": \#(Fixture.ana) }"#)
}

private func errorBody(_ code: String, _ message: String = "nope") -> JSONValue {
    ["code": .string(code), "message": .string(message)]
}

private let signedIn = SessionTokens(accessToken: "at1", refreshToken: "rt1")

/// Calls every typed method of the client once, against a peer that answers each endpoint with a
/// well-formed body, and returns what the peer received.
private func callEveryEndpoint() async throws -> [RecordedRequest] {
    let message = try jsonValue(Fixture.message(seq: 42))
    let conversation = try jsonValue(Fixture.conversation)
    let user = try jsonValue(Fixture.ben)
    let routes: [ScriptedRoute] = [
        ScriptedRoute(method: "POST", path: "/v1/auth/register", status: 201, body: try session("at1", "rt1")),
        ScriptedRoute(method: "POST", path: "/v1/auth/login", body: try session("at1", "rt1")),
        ScriptedRoute(method: "POST", path: "/v1/auth/refresh", body: try session("at2", "rt2")),
        ScriptedRoute(method: "POST", path: "/v1/auth/logout", status: 204),
        ScriptedRoute(method: "PUT", path: "/v1/me/devices/current/push-token", status: 204),
        ScriptedRoute(method: "DELETE", path: "/v1/me/devices/current/push-token", status: 204),
        ScriptedRoute(method: "GET", path: "/v1/me", body: try jsonValue(#"{ "id": "U1", "username": "ana_souza", "displayName": "Ana", "avatarUrl": null, "privacy": { "lastSeen": "everyone" } }"#)),
        ScriptedRoute(method: "PATCH", path: "/v1/me", body: user),
        ScriptedRoute(method: "GET", path: "/v1/users/U2", body: user),
        ScriptedRoute(method: "GET", path: "/v1/users", body: ["users": [user]]),
        ScriptedRoute(method: "GET", path: "/v1/friends", body: ["friends": [try jsonValue(Fixture.friend)]]),
        ScriptedRoute(method: "DELETE", path: "/v1/friends/U2", status: 204),
        ScriptedRoute(method: "GET", path: "/v1/friend-requests", body: ["incoming": [try jsonValue(Fixture.friendRequest)], "outgoing": []]),
        ScriptedRoute(method: "POST", path: "/v1/friend-requests", status: 201, body: try jsonValue(Fixture.friendRequest)),
        ScriptedRoute(method: "POST", path: "/v1/friend-requests/R1/accept", body: ["requestId": "R1", "friend": try jsonValue(Fixture.friend)]),
        ScriptedRoute(method: "POST", path: "/v1/friend-requests/R1/decline", status: 204),
        ScriptedRoute(method: "DELETE", path: "/v1/friend-requests/R1", status: 204),
        ScriptedRoute(method: "GET", path: "/v1/conversations", body: ["conversations": [conversation]]),
        ScriptedRoute(method: "POST", path: "/v1/conversations", status: 201, body: conversation),
        ScriptedRoute(method: "GET", path: "/v1/conversations/C1", body: conversation),
        ScriptedRoute(method: "PATCH", path: "/v1/conversations/C1", body: conversation),
        ScriptedRoute(method: "POST", path: "/v1/conversations/C1/members", body: conversation),
        ScriptedRoute(method: "DELETE", path: "/v1/conversations/C1/members/U2", status: 204),
        ScriptedRoute(method: "PUT", path: "/v1/conversations/C1/settings", status: 204),
        ScriptedRoute(method: "GET", path: "/v1/conversations/C1/messages", body: ["messages": [message], "hasMore": false]),
        ScriptedRoute(method: "POST", path: "/v1/conversations/C1/messages", status: 201, body: message),
        ScriptedRoute(method: "PATCH", path: "/v1/conversations/C1/messages/M1", body: message),
        ScriptedRoute(method: "DELETE", path: "/v1/conversations/C1/messages/M1", body: message),
        ScriptedRoute(method: "PUT", path: "/v1/conversations/C1/messages/M1/reactions/%F0%9F%91%8D", body: message),
        ScriptedRoute(method: "DELETE", path: "/v1/conversations/C1/messages/M1/reactions/%F0%9F%91%8D", body: message),
        ScriptedRoute(method: "POST", path: "/v1/media", status: 201, body: ["mediaId": "MD1", "url": "http://cdn/MD1"]),
        ScriptedRoute(method: "GET", path: "/v1/media/MD1", body: ["not": "parsed"]),
        ScriptedRoute(method: "PUT", path: "/v1/developer/apns", status: 204),
        ScriptedRoute(method: "GET", path: "/v1/developer/apns", body: ["configured": true, "teamId": "T", "keyId": "K", "bundleId": "B"]),
        ScriptedRoute(method: "POST", path: "/v1/developer/test-push", body: ["sent": 1, "failed": 0, "results": [["deviceId": "D1", "status": "sent"]]]),
    ]
    let server = try await ScriptedHTTPServer.start(routes)
    defer { server.stop() }
    let client = ChatterRESTClient(
        configuration: server.configuration, clientSecret: "cs_secret", requestTimeouts: .hangGuard)
    let device = DeviceDescription(name: "echo-bot", platform: "linux")

    try await client.register(username: "echo_bot", password: "pw", displayName: "Echo")
    try await client.login(username: "echo_bot", password: "pw", deviceId: "D1", device: device)
    try await client.refreshTokens()
    try await client.setPushToken("a1b2c3", environment: .sandbox)
    try await client.removePushToken()
    _ = try await client.me()
    _ = try await client.updateMe(displayName: "Echo Bot")
    _ = try await client.user("U2")
    _ = try await client.users(username: "ben tan+1")
    _ = try await client.friends()
    try await client.removeFriend("U2")
    _ = try await client.friendRequests()
    _ = try await client.sendFriendRequest(to: .username("ben_tan"))
    _ = try await client.acceptFriendRequest("R1")
    try await client.declineFriendRequest("R1")
    try await client.cancelFriendRequest("R1")
    _ = try await client.conversations(updatedSince: try Timestamp(iso8601: "2026-10-22T14:03:11.482Z"))
    _ = try await client.directConversation(with: "U2")
    _ = try await client.createGroup(title: "Dinner", memberIds: ["U2", "U3"])
    _ = try await client.conversation("C1")
    _ = try await client.updateConversation("C1", title: "Lunch")
    _ = try await client.addMembers(["U3"], to: "C1")
    try await client.removeMember("U2", from: "C1")
    try await client.setMuted(true, conversation: "C1")
    _ = try await client.messages(in: "C1", afterSeq: 40, limit: 100)
    _ = try await client.messages(in: "C1", beforeSeq: 41)
    _ = try await client.postMessage(.text("hi"), clientMessageId: "cm1", in: "C1")
    _ = try await client.editMessage("M1", in: "C1", body: "hi!")
    _ = try await client.deleteMessage("M1", in: "C1")
    _ = try await client.addReaction("👍", to: "M1", in: "C1")
    _ = try await client.removeReaction("👍", from: "M1", in: "C1")
    _ = try await client.uploadMedia(Data([0x89, 0x50, 0x4e, 0x47, 0xff]), contentType: "image/png")
    _ = try await client.downloadMedia("MD1")
    try await client.configureAPNs(APNsKeyBody(teamId: "T", keyId: "K", bundleId: "B", privateKey: "P"))
    _ = try await client.apnsConfiguration()
    _ = try await client.sendTestPush(to: "U1")
    try await client.logout()
    return try await server.requests()
}

@Suite("REST client against a scripted loopback server")
struct RESTClientTests {
    @Test func everyEndpointSendsTheMethodPathQueryAndBodyOfTheTable() async throws {
        let requests = try await callEveryEndpoint()
        let expected: [(ChatterEndpoint, String, String, String, JSONValue?)] = [
            (.register, "POST", "/v1/auth/register", "", ["username": "echo_bot", "password": "pw", "displayName": "Echo"]),
            (.login, "POST", "/v1/auth/login", "", ["username": "echo_bot", "password": "pw", "deviceId": "D1", "device": ["name": "echo-bot", "platform": "linux"]]),
            (.refresh, "POST", "/v1/auth/refresh", "", ["refreshToken": "rt1"]),
            (.setPushToken, "PUT", "/v1/me/devices/current/push-token", "", ["token": "a1b2c3", "environment": "sandbox"]),
            (.removePushToken, "DELETE", "/v1/me/devices/current/push-token", "", nil),
            (.me, "GET", "/v1/me", "", nil),
            (.updateMe, "PATCH", "/v1/me", "", ["displayName": "Echo Bot"]),
            (.user, "GET", "/v1/users/U2", "", nil),
            (.searchUsers, "GET", "/v1/users", "username=ben%20tan%2B1", nil),
            (.friends, "GET", "/v1/friends", "", nil),
            (.removeFriend, "DELETE", "/v1/friends/U2", "", nil),
            (.friendRequests, "GET", "/v1/friend-requests", "", nil),
            (.sendFriendRequest, "POST", "/v1/friend-requests", "", ["username": "ben_tan"]),
            (.acceptFriendRequest, "POST", "/v1/friend-requests/R1/accept", "", nil),
            (.declineFriendRequest, "POST", "/v1/friend-requests/R1/decline", "", nil),
            (.cancelFriendRequest, "DELETE", "/v1/friend-requests/R1", "", nil),
            (.conversations, "GET", "/v1/conversations", "updatedSince=2026-10-22T14%3A03%3A11.482Z", nil),
            (.createConversation, "POST", "/v1/conversations", "", ["type": "direct", "userId": "U2"]),
            (.createConversation, "POST", "/v1/conversations", "", ["type": "group", "title": "Dinner", "memberIds": ["U2", "U3"]]),
            (.conversation, "GET", "/v1/conversations/C1", "", nil),
            (.updateConversation, "PATCH", "/v1/conversations/C1", "", ["title": "Lunch"]),
            (.addMembers, "POST", "/v1/conversations/C1/members", "", ["userIds": ["U3"]]),
            (.removeMember, "DELETE", "/v1/conversations/C1/members/U2", "", nil),
            (.updateConversationSettings, "PUT", "/v1/conversations/C1/settings", "", ["muted": true]),
            (.messages, "GET", "/v1/conversations/C1/messages", "afterSeq=40&limit=100", nil),
            (.messages, "GET", "/v1/conversations/C1/messages", "beforeSeq=41", nil),
            (.postMessage, "POST", "/v1/conversations/C1/messages", "", ["clientMessageId": "cm1", "type": "text", "body": "hi", "mediaId": nil, "replyToId": nil]),
            (.editMessage, "PATCH", "/v1/conversations/C1/messages/M1", "", ["body": "hi!"]),
            (.deleteMessage, "DELETE", "/v1/conversations/C1/messages/M1", "", nil),
            (.addReaction, "PUT", "/v1/conversations/C1/messages/M1/reactions/%F0%9F%91%8D", "", nil),
            (.removeReaction, "DELETE", "/v1/conversations/C1/messages/M1/reactions/%F0%9F%91%8D", "", nil),
            (.uploadMedia, "POST", "/v1/media", "", nil),
            (.downloadMedia, "GET", "/v1/media/MD1", "", nil),
            (.configureAPNs, "PUT", "/v1/developer/apns", "", ["teamId": "T", "keyId": "K", "bundleId": "B", "privateKey": "P"]),
            (.apnsConfiguration, "GET", "/v1/developer/apns", "", nil),
            (.sendTestPush, "POST", "/v1/developer/test-push", "", ["userId": "U1"]),
            (.logout, "POST", "/v1/auth/logout", "", nil),
        ]
        try #require(requests.count == expected.count)
        for (request, (endpoint, method, path, query, body)) in zip(requests, expected) {
            #expect(request.method == method && request.path == path && request.query == query, "\(endpoint)")
            #expect(request.bodyJSON == body, "\(endpoint) body")
            // The table routes the request back to the endpoint that sent it (the sandbox relies on it).
            let httpMethod = HTTPMethod(rawValue: request.method)
            #expect(ChatterEndpoint.match(method: httpMethod, path: String(request.path.dropFirst(3)))?.endpoint == endpoint)
        }
        #expect(Set(expected.map(\.0)) == Set(ChatterEndpoint.allCases), "every endpoint is exercised")
    }

    @Test func eachRequestCarriesTheCredentialsOfItsEndpoint() async throws {
        let requests = try await callEveryEndpoint()
        for request in requests {
            let httpMethod = HTTPMethod(rawValue: request.method)
            let endpoint = try #require(ChatterEndpoint.match(method: httpMethod, path: String(request.path.dropFirst(3)))?.endpoint)
            #expect(request.headers["x-client-key"] == "ck_test", "\(endpoint)")
            switch endpoint.authorization {
            case .clientKey:
                #expect(request.headers["authorization"] == nil && request.headers["x-client-secret"] == nil, "\(endpoint)")
            case .user:
                #expect(request.headers["authorization"] == "Bearer at2" || request.headers["authorization"] == "Bearer at1", "\(endpoint)")
                #expect(request.headers["x-client-secret"] == nil, "\(endpoint)")
            case .developer:
                #expect(request.headers["x-client-secret"] == "cs_secret" && request.headers["authorization"] == nil, "\(endpoint)")
            }
        }
        let logout = try #require(requests.last)
        #expect(logout.headers["authorization"] == "Bearer at2", "requests after the refresh use the rotated token")
    }

    @Test func mediaIsUploadedAsRawBytesWithItsContentType() async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "POST", path: "/v1/media", status: 201, body: ["mediaId": "MD1", "url": "http://cdn/MD1"])
        ])
        defer { server.stop() }
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: ChatterTokenStore(tokens: signedIn),
            requestTimeouts: .hangGuard)
        let bytes = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0xff, 0x00])
        let upload = try await client.uploadMedia(bytes, contentType: "image/png")
        #expect(upload == MediaUpload(mediaId: "MD1", url: "http://cdn/MD1"))
        let request = try #require(try await server.requests().first)
        #expect(request.headers["content-type"] == "image/png")
        #expect(request.bodyBase64.flatMap { Data(base64Encoded: $0) } == bytes)
    }

    @Test(arguments: ChatterErrorCode.documented)
    func eachDocumentedErrorBecomesAChatterAPIError(code: ChatterErrorCode) async throws {
        let status = try #require(code.documentedHTTPStatus)
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "POST", path: "/v1/auth/login", status: status,
                          body: ["code": .string(code.rawValue), "message": "It failed.", "details": ["field": "username"]])
        ])
        defer { server.stop() }
        let client = ChatterRESTClient(configuration: server.configuration, requestTimeouts: .hangGuard)
        let error = await #expect(throws: ChatterAPIError.self) {
            try await client.login(username: "u", password: "p", deviceId: nil, device: DeviceDescription(name: "b", platform: "linux"))
        }
        #expect(error?.code == code)
        #expect(error?.httpStatus == status)
        #expect(error?.message == "It failed.")
        #expect(error?.details == ["field": "username"])
        #expect(error?.endpoint == .login)
        #expect(await client.tokenStore.tokens == nil, "a failed login stores nothing")
    }

    @Test func unknownErrorCodeIsKeptAsIs() async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "GET", path: "/v1/friends", status: 451, body: errorBody("ACCOUNT_FROZEN", "Frozen."))
        ])
        defer { server.stop() }
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: ChatterTokenStore(tokens: signedIn),
            requestTimeouts: .hangGuard)
        let error = await #expect(throws: ChatterAPIError.self) { try await client.friends() }
        #expect(error?.code == ChatterErrorCode(rawValue: "ACCOUNT_FROZEN") && error?.httpStatus == 451)
        #expect(error?.isTransient == false, "a refusal this version does not know is not retried forever")
    }

    @Test func rateLimitSurfacesRetryAfterSeconds() async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "GET", path: "/v1/friends", status: 429, headers: ["Retry-After": "7"], body: errorBody("RATE_LIMITED", "Slow down."))
        ])
        defer { server.stop() }
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: ChatterTokenStore(tokens: signedIn),
            requestTimeouts: .hangGuard)
        let error = await #expect(throws: ChatterAPIError.self) { try await client.friends() }
        #expect(error?.code == .rateLimited && error?.retryAfter == .seconds(7))
        #expect(error?.isTransient == true)
        #expect(try await server.requests().count == 1, "without a retry policy the client does not wait and retry")
    }

    @Test func aRetryPolicyWaitsRetryAfterOnTheClientsClockThenRetries() async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "GET", path: "/v1/friends", times: 1, status: 429, headers: ["Retry-After": "1.5"], body: errorBody("RATE_LIMITED")),
            ScriptedRoute(method: "GET", path: "/v1/friends", body: ["friends": []]),
        ])
        defer { server.stop() }
        let clock = ManualClock()
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: ChatterTokenStore(tokens: signedIn), retryPolicy: RESTRetryPolicy(),
            clock: clock, requestTimeouts: .hangGuard)
        let call = Task { try await client.friends() }
        try await clock.waitForSleepers(1)
        #expect(clock.nextDeadline == clock.now.addingTimeInterval(1.5), "a decimal Retry-After is waited exactly")
        #expect(try await server.requests().count == 1)
        await clock.advance(by: .seconds(1.5))
        #expect(try await call.value == [])
        #expect(try await server.requests().count == 2)
    }

    @Test func anHTTPDateRetryAfterIsWaitedUntil() async throws {
        let clock = ManualClock()  // 2026-01-01T00:00:00Z, a Thursday
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(
                method: "GET", path: "/v1/friends", times: 1, status: 429, headers: ["Retry-After": "Thu, 01 Jan 2026 00:00:04 GMT"],
                body: errorBody("RATE_LIMITED")),
            ScriptedRoute(method: "GET", path: "/v1/friends", body: ["friends": []]),
        ])
        defer { server.stop() }
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: ChatterTokenStore(tokens: signedIn), retryPolicy: RESTRetryPolicy(),
            clock: clock, requestTimeouts: .hangGuard)
        let call = Task { try await client.friends() }
        try await clock.waitForSleepers(1)
        #expect(clock.nextDeadline == clock.now.addingTimeInterval(4))
        await clock.advance(by: .seconds(4))
        #expect(try await call.value == [])
    }

    @Test func aWaitBeyondThePolicysCapIsThrownAtOnce() async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "GET", path: "/v1/friends", status: 429, headers: ["Retry-After": "60"], body: errorBody("RATE_LIMITED"))
        ])
        defer { server.stop() }
        let clock = ManualClock()
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: ChatterTokenStore(tokens: signedIn),
            retryPolicy: RESTRetryPolicy(maxRetries: 1, maxWait: .seconds(10)), clock: clock,
            requestTimeouts: .hangGuard)
        let error = await #expect(throws: ChatterAPIError.self) { try await client.friends() }
        #expect(error?.code == .rateLimited && error?.retryAfter == .seconds(60))
        #expect(clock.sleeperCount == 0 && clock.now == ManualClock.defaultStart)
        #expect(try await server.requests().count == 1)
    }

    @Test func retriesStopAfterMaxRetries() async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "GET", path: "/v1/friends", status: 429, headers: ["Retry-After": "2"], body: errorBody("RATE_LIMITED"))
        ])
        defer { server.stop() }
        let clock = ManualClock()
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: ChatterTokenStore(tokens: signedIn),
            retryPolicy: RESTRetryPolicy(maxRetries: 2), clock: clock, requestTimeouts: .hangGuard)
        let call = Task { try await client.friends() }
        for _ in 0..<2 {
            try await clock.waitForSleepers(1)
            await clock.advance(by: .seconds(2))
        }
        let error = await #expect(throws: ChatterAPIError.self) { try await call.value }
        #expect(error?.code == .rateLimited)
        #expect(try await server.requests().count == 3, "the first try and two retries")
    }

    @Test func aRateLimitWithoutRetryAfterIsThrownEvenWithAPolicy() async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "GET", path: "/v1/friends", status: 429, body: errorBody("RATE_LIMITED"))
        ])
        defer { server.stop() }
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: ChatterTokenStore(tokens: signedIn), retryPolicy: RESTRetryPolicy(),
            clock: ManualClock(), requestTimeouts: .hangGuard)
        let error = await #expect(throws: ChatterAPIError.self) { try await client.friends() }
        #expect(error?.code == .rateLimited && error?.retryAfter == nil)
        #expect(try await server.requests().count == 1)
    }

    @Test func errorWithoutAChatterBodyGetsTheCodeItsStatusImplies() async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "GET", path: "/v1/friends", status: 502, headers: ["Content-Type": "text/html"], rawBody: "<html>Bad gateway</html>"),
            ScriptedRoute(method: "GET", path: "/v1/friend-requests", status: 429, headers: ["Retry-After": "3"], rawBody: ""),
        ])
        defer { server.stop() }
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: ChatterTokenStore(tokens: signedIn),
            requestTimeouts: .hangGuard)
        let gateway = await #expect(throws: ChatterAPIError.self) { try await client.friends() }
        #expect(gateway?.code == .internalError && gateway?.httpStatus == 502)
        #expect(gateway?.message.contains("Bad gateway") == true)
        let limited = await #expect(throws: ChatterAPIError.self) { try await client.friendRequests() }
        #expect(limited?.code == .rateLimited && limited?.retryAfter == .seconds(3))
    }

    @Test func unauthorizedRefreshesOnceRetriesAndReportsTheRotatedTokens() async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "GET", path: "/v1/friends", requestHeaders: ["Authorization": "Bearer at1"], status: 401, body: errorBody("UNAUTHORIZED")),
            ScriptedRoute(method: "GET", path: "/v1/friends", requestHeaders: ["Authorization": "Bearer at2"], body: ["friends": []]),
            ScriptedRoute(method: "POST", path: "/v1/auth/refresh", body: try session("at2", "rt2")),
        ])
        defer { server.stop() }
        let observed = Mutex<[SessionTokens?]>([])
        let store = ChatterTokenStore(tokens: signedIn) { tokens in observed.withLock { $0.append(tokens) } }
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: store, requestTimeouts: .hangGuard)
        #expect(try await client.friends() == [])
        #expect(await store.tokens == SessionTokens(accessToken: "at2", refreshToken: "rt2"))
        #expect(observed.withLock { $0 } == [SessionTokens(accessToken: "at2", refreshToken: "rt2")])
        let requests = try await server.requests()
        #expect(requests.map { "\($0.method) \($0.path)" } == ["GET /v1/friends", "POST /v1/auth/refresh", "GET /v1/friends"])
        #expect(requests[1].bodyJSON == ["refreshToken": "rt1"])
    }

    @Test(arguments: [
        ScriptedRoute(method: "GET", path: "/v1/friends", status: 401, headers: ["Content-Type": "text/html"], rawBody: "<html>Proxy login</html>"),
        ScriptedRoute(method: "GET", path: "/v1/friends", status: 401, rawBody: ""),
        ScriptedRoute(method: "GET", path: "/v1/friends", status: 401, body: errorBody("INVALID_CLIENT_KEY")),
    ])
    func a401WithoutAnUnauthorizedBodyKeepsTheRefreshToken(route: ScriptedRoute) async throws {
        let server = try await ScriptedHTTPServer.start([
            route, ScriptedRoute(method: "POST", path: "/v1/auth/refresh", body: try session("at2", "rt2")),
        ])
        defer { server.stop() }
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: ChatterTokenStore(tokens: signedIn),
            requestTimeouts: .hangGuard)
        let error = await #expect(throws: ChatterAPIError.self) { try await client.friends() }
        #expect(error?.httpStatus == 401 && error?.code != .unauthorized)
        #expect(try await server.requests().map(\.path) == ["/v1/friends"], "no refresh: the one-time refresh token is kept")
        #expect(await client.tokenStore.tokens == signedIn)
    }

    @Test func unauthorizedAfterTheRefreshIsThrownNotRetriedAgain() async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "GET", path: "/v1/friends", status: 401, body: errorBody("UNAUTHORIZED")),
            ScriptedRoute(method: "POST", path: "/v1/auth/refresh", body: try session("at2", "rt2")),
        ])
        defer { server.stop() }
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: ChatterTokenStore(tokens: signedIn),
            requestTimeouts: .hangGuard)
        let error = await #expect(throws: ChatterAPIError.self) { try await client.friends() }
        #expect(error?.code == .unauthorized)
        let requests = try await server.requests()
        #expect(requests.map { "\($0.method) \($0.path)" } == ["GET /v1/friends", "POST /v1/auth/refresh", "GET /v1/friends"])
    }

    @Test func failedRefreshIsThrownAndTheRequestIsNotRetried() async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "GET", path: "/v1/friends", status: 401, body: errorBody("UNAUTHORIZED")),
            ScriptedRoute(method: "POST", path: "/v1/auth/refresh", status: 401, body: errorBody("INVALID_REFRESH_TOKEN")),
        ])
        defer { server.stop() }
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: ChatterTokenStore(tokens: signedIn),
            requestTimeouts: .hangGuard)
        let error = await #expect(throws: ChatterAPIError.self) { try await client.friends() }
        #expect(error?.code == .invalidRefreshToken && error?.endpoint == .refresh)
        #expect(try await server.requests().count == 2)
        #expect(await client.tokenStore.tokens == signedIn, "the caller decides what to do: sign in again")
    }

    @Test func concurrentRejectionsShareOneRefresh() async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "GET", path: "/v1/friends", requestHeaders: ["Authorization": "Bearer at1"], status: 401, body: errorBody("UNAUTHORIZED")),
            ScriptedRoute(method: "GET", path: "/v1/friends", requestHeaders: ["Authorization": "Bearer at2"], body: ["friends": []]),
            ScriptedRoute(method: "POST", path: "/v1/auth/refresh", body: try session("at2", "rt2")),
        ])
        defer { server.stop() }
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: ChatterTokenStore(tokens: signedIn),
            requestTimeouts: .hangGuard)
        try await withThrowingTaskGroup(of: [Friend].self) { group in
            for _ in 0..<4 { group.addTask { try await client.friends() } }
            for try await friends in group { #expect(friends.isEmpty) }
        }
        let refreshes = try await server.requests().filter { $0.path == "/v1/auth/refresh" }
        #expect(refreshes.count == 1)
    }

    @Test func loginStoresTheTokensAndLogoutClearsThem() async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "POST", path: "/v1/auth/login", body: try session("at9", "rt9")),
            ScriptedRoute(method: "POST", path: "/v1/auth/logout", status: 204),
        ])
        defer { server.stop() }
        let client = ChatterRESTClient(configuration: server.configuration, requestTimeouts: .hangGuard)
        let session = try await client.login(username: "u", password: "p", deviceId: nil, device: DeviceDescription(name: "b", platform: "linux"))
        #expect(session.deviceId == "D1" && session.user.username == "ana_souza")
        #expect(await client.tokenStore.tokens == SessionTokens(accessToken: "at9", refreshToken: "rt9"))
        try await client.logout()
        #expect(await client.tokenStore.tokens == nil)
        #expect(try await server.requests().first?.bodyJSON?["deviceId"] == nil, "no deviceId key without a device")
    }

    @Test func malformedSuccessBodyNamesTheField() async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "GET", path: "/v1/friends", body: ["friends": [["user": try jsonValue(Fixture.ben), "since": "last week"]]])
        ])
        defer { server.stop() }
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: ChatterTokenStore(tokens: signedIn),
            requestTimeouts: .hangGuard)
        let error = await #expect(throws: ChatterClientError.self) { try await client.friends() }
        guard case .invalidResponse(let endpoint, let status, let field, _) = error else {
            Issue.record("expected invalidResponse, got \(String(describing: error))")
            return
        }
        #expect(endpoint == .friends && status == 200 && field == "friends[0].since")
    }

    @Test func noResponseIsATransportError() async throws {
        let configuration = ChatterServerConfiguration(
            apiBaseURL: URL(string: "http://127.0.0.1:1/v1")!, webSocketURL: URL(string: "ws://127.0.0.1:1/v1/ws")!, clientKey: "ck")
        let client = ChatterRESTClient(
            configuration: configuration, tokenStore: ChatterTokenStore(tokens: signedIn), requestTimeouts: .hangGuard)
        let error = await #expect(throws: ChatterClientError.self) { try await client.friends() }
        guard case .transport(.friends, _) = error else { Issue.record("expected transport, got \(String(describing: error))"); return }
    }

    @Test func userEndpointWithoutTokensFailsBeforeSending() async throws {
        let server = try await ScriptedHTTPServer.start([])
        defer { server.stop() }
        let client = ChatterRESTClient(configuration: server.configuration, requestTimeouts: .hangGuard)
        await #expect(throws: ChatterClientError.notSignedIn(.friends)) { try await client.friends() }
        await #expect(throws: ChatterClientError.missingClientSecret(.apnsConfiguration)) { try await client.apnsConfiguration() }
        #expect(try await server.requests().isEmpty)
    }
}

@Suite("Endpoint table and configuration")
struct EndpointTableTests {
    @Test func everyTemplateRoutesBackToItsEndpoint() {
        for endpoint in ChatterEndpoint.allCases {
            let path = endpoint.pathTemplate.replacingOccurrences(of: "{", with: "x").replacingOccurrences(of: "}", with: "")
            #expect(ChatterEndpoint.match(method: endpoint.method, path: path)?.endpoint == endpoint, "\(endpoint)")
        }
    }

    @Test(arguments: ["", ".", ".."])
    func aPathParameterThatNamesNoSingleResourceIsAnInvalidRequest(id: String) {
        // `GET /users/` would be the user search, and a dot segment would climb to another path.
        #expect(throws: ChatterClientError.self) { try ChatterAPI.user(User.ID(id)).path }
        #expect(throws: ChatterClientError.self) { try ChatterAPI.removeMember("U2", from: Conversation.ID(id)).path }
    }

    @Test func pathParametersArePercentEncodedIntoOneSegment() throws {
        #expect(try ChatterAPI.user("a/b?c").path == "/users/a%2Fb%3Fc")
        #expect(try ChatterAPI.user("...").path == "/users/...")
        #expect(try ChatterAPI.addReaction("👍", to: "M 1", in: "C1").path == "/conversations/C1/messages/M%201/reactions/%F0%9F%91%8D")
    }

    @Test func missingOrUnknownPathParametersAreInvalidRequests() {
        #expect(throws: ChatterClientError.self) { try ChatterRequest<User>(.user).path }
        #expect(throws: ChatterClientError.self) {
            try ChatterRequest<User>(.user, pathParameters: ["userId": "U1", "userID": "U1"]).path
        }
    }

    @Test func theClientSendsNothingForAnEmptyIdentifier() async throws {
        let server = try await ScriptedHTTPServer.start([
            ScriptedRoute(method: "GET", path: "/v1/users", body: ["users": []])
        ])
        defer { server.stop() }
        let client = ChatterRESTClient(
            configuration: server.configuration, tokenStore: ChatterTokenStore(tokens: signedIn),
            requestTimeouts: .hangGuard)
        let error = await #expect(throws: ChatterClientError.self) { try await client.user("") }
        guard case .invalidRequest(.user, let description)? = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(description.contains("userId"))
        #expect(try await server.requests().isEmpty)
    }

    @Test func theTableRoutesByTheWebSocketModulesHTTPMethod() {
        // One HTTPMethod type for the table and the HTTP server: a request's method routes without conversion.
        let request = HTTPRequest(method: .delete, target: "/friends/U2")
        #expect(ChatterEndpoint.match(method: request.method, path: request.path)?.endpoint == .removeFriend)
        #expect(ChatterEndpoint.removeFriend.method == WebSocket.HTTPMethod.delete)
    }

    @Test func matchingDecodesPathParameters() {
        let match = ChatterEndpoint.match(method: .put, path: "/conversations/C%201/messages/M1/reactions/%F0%9F%91%8D")
        #expect(match?.endpoint == .addReaction)
        #expect(match?.parameters == ["conversationId": "C 1", "messageId": "M1", "emoji": "👍"])
        #expect(ChatterEndpoint.match(method: .get, path: "/nowhere") == nil)
        #expect(ChatterEndpoint.match(method: .patch, path: "/friends") == nil)
    }

    @Test func urlsJoinTheBaseAndThePath() throws {
        let configuration = ChatterServerConfiguration(
            apiBaseURL: URL(string: "https://api.chatter.maragato.ca/v1/")!,
            webSocketURL: URL(string: "wss://api.chatter.maragato.ca/v1/ws")!, clientKey: "ck_1/2")
        #expect(try configuration.url(for: ChatterAPI.messages(in: "01JE", afterSeq: 4)).absoluteString
            == "https://api.chatter.maragato.ca/v1/conversations/01JE/messages?afterSeq=4")
        #expect(configuration.webSocketURL(accessToken: "a+b=")?.absoluteString
            == "wss://api.chatter.maragato.ca/v1/ws?clientKey=ck_1%2F2&token=a%2Bb%3D")
    }
}
