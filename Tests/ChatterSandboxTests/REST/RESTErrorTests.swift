import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import WebSocket

/// Every error code of the contract's table, through the router, with its HTTP status and `details.field`.
@Suite("REST errors: every code of the table")
struct RESTErrorTests {
    @Test func aMissingOrUnknownClientKeyIsInvalidClientKey() async throws {
        let harness = try await ServiceHarness.make()
        let register = RegisterBody(username: "ana", password: ServiceHarness.password, displayName: "Ana")
        expectErrorResponse(await harness.call(.post, "/auth/register", json: register, clientKey: nil), .invalidClientKey)
        expectErrorResponse(await harness.call(.post, "/auth/register", json: register, clientKey: "ck_nope"), .invalidClientKey)
        let ana = try await harness.signUp("ana")
        expectErrorResponse(await harness.call(.get, "/me", as: ana, clientKey: "ck_nope"), .invalidClientKey)
    }

    @Test func aMissingOrInvalidAccessTokenIsUnauthorized() async throws {
        let harness = try await ServiceHarness.make()
        expectErrorResponse(await harness.call(.get, "/me"), .unauthorized)
        expectErrorResponse(await harness.call(.get, "/me", headers: ["Authorization": "Bearer forged"]), .unauthorized)
        expectErrorResponse(await harness.call(.get, "/me", headers: ["Authorization": "Basic abc"]), .unauthorized)
    }

    @Test func aWrongPasswordIsInvalidCredentials() async throws {
        let harness = try await ServiceHarness.make()
        _ = try await harness.signUp("ana")
        let login = LoginBody(username: "ana", password: "not it at all", device: DeviceDescription(name: "bot", platform: "linux"))
        expectErrorResponse(await harness.call(.post, "/auth/login", json: login), .invalidCredentials)
    }

    @Test func aUsedRefreshTokenIsInvalidRefreshToken() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let refresh = RefreshBody(refreshToken: ana.session.refreshToken)
        #expect(await harness.call(.post, "/auth/refresh", json: refresh).status == .ok)
        expectErrorResponse(await harness.call(.post, "/auth/refresh", json: refresh), .invalidRefreshToken)
    }

    @Test func somethingNotAllowedIsForbidden() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben")
        let group = try await harness.group(accounts[0], "Trip", [accounts[1]])
        let response = await harness.call(.patch, "/conversations/\(group.id)", as: accounts[1], json: ConversationUpdateBody(title: "X"))
        expectErrorResponse(response, .forbidden)
    }

    @Test func messagingSomeoneWhoIsNotAFriendIsNotFriends() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")
        let response = await harness.call(.post, "/conversations", as: ana, json: NewConversationBody.direct(userId: ben.id))
        let error = expectErrorResponse(response, .notFriends)
        #expect(error?.message.isEmpty == false)
    }

    @Test func anUnknownResourceOrRouteIsNotFound() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        expectErrorResponse(await harness.call(.get, "/users/01NOSUCHUSER", as: ana), .notFound)
        expectErrorResponse(await harness.call(.get, "/conversations/01NOSUCHCONVERSATION", as: ana), .notFound)
        expectErrorResponse(await harness.call(.get, "/no/such/endpoint", as: ana), .notFound)
        expectErrorResponse(await harness.call(.put, "/me", as: ana), .notFound)
    }

    @Test func aRequestToAFriendIsAlreadyFriendsAndASecondRequestIsRequestExists() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben")
        let cai = try await harness.signUp("cai")
        expectErrorResponse(
            await harness.call(.post, "/friend-requests", as: accounts[0], json: FriendRequestBody.userId(accounts[1].id)), .alreadyFriends)
        #expect(await harness.call(.post, "/friend-requests", as: accounts[0], json: FriendRequestBody.username("cai")).status == .created)
        expectErrorResponse(
            await harness.call(.post, "/friend-requests", as: cai, json: FriendRequestBody.userId(accounts[0].id)), .requestExists)
    }

    @Test func malformedJSONIsValidationFailedOnTheBody() async throws {
        let harness = try await ServiceHarness.make()
        expectErrorResponse(await harness.call(.post, "/auth/register", body: Array("{\"username\":".utf8)), .validationFailed, field: "body")
        expectErrorResponse(await harness.call(.post, "/auth/register", body: Array("[1, 2]".utf8)), .validationFailed, field: "body")
        expectErrorResponse(await harness.call(.post, "/auth/register"), .validationFailed, field: "body")
    }

    @Test func aMissingOrMistypedFieldIsValidationFailedNamingIt() async throws {
        let harness = try await ServiceHarness.make()
        let missing = await harness.call(.post, "/auth/register", body: Array(#"{"username":"ana","displayName":"Ana"}"#.utf8))
        expectErrorResponse(missing, .validationFailed, field: "password")
        let nested = await harness.call(
            .post, "/auth/login", body: Array(#"{"username":"ana","password":"x","device":{"platform":"linux"}}"#.utf8))
        expectErrorResponse(nested, .validationFailed, field: "device.name")
        let mistyped = await harness.call(.post, "/auth/register", body: Array(#"{"username":7,"password":"p","displayName":"A"}"#.utf8))
        expectErrorResponse(mistyped, .validationFailed, field: "username")
    }

    @Test func anUnknownFieldIsValidationFailedNamingItAndChangesNothing() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben")
        let ana = accounts[0]
        let before = try await harness.service.me(ana.caller)

        let misspelled = await harness.call(.patch, "/me", as: ana, body: Array(#"{"displayname":"Ana B"}"#.utf8))
        expectErrorResponse(misspelled, .validationFailed, field: "displayname")
        let nested = await harness.call(.patch, "/me", as: ana, body: Array(#"{"privacy":{"lastSeen":"nobody","lastseen":"x"}}"#.utf8))
        expectErrorResponse(nested, .validationFailed, field: "privacy.lastseen")
        #expect(try await harness.service.me(ana.caller) == before)

        let direct = try await harness.direct(ana, accounts[1])
        let post = await harness.call(
            .post, "/conversations/\(direct.id)/messages", as: ana,
            body: Array(#"{"clientMessageId":"k","type":"text","body":"hi","mediaId":null,"replyToId":null,"mediaID":null}"#.utf8))
        expectErrorResponse(post, .validationFailed, field: "mediaID")
        #expect(try await harness.service.conversation(ana.caller, direct.id).lastSeq == 0)
        #expect(await harness.sink.take().allSatisfy { !$0.event.isMessageNew })
    }

    @Test func everyKnownFieldMayBeGivenIncludingNulls() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben")
        let direct = try await harness.direct(accounts[0], accounts[1])
        let post = await harness.call(
            .post, "/conversations/\(direct.id)/messages", as: accounts[0],
            body: Array(#"{"clientMessageId":"k","type":"text","body":"hi","mediaId":null,"replyToId":null}"#.utf8))
        #expect(post.status == .created)
        let patch = await harness.call(
            .patch, "/me", as: accounts[0], body: Array(#"{"displayName":"Ana B","privacy":{"lastSeen":"friends"}}"#.utf8))
        #expect(patch.status == .ok)
    }

    @Test func aBodyThatIsNotUTF8IsValidationFailedOnTheBodyAndChangesNothing() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let before = try await harness.service.me(ana.caller)
        let body = Array(#"{"displayName":"A"#.utf8) + [0xff, 0xfe] + Array(#""}"#.utf8)

        let response = await harness.call(.patch, "/me", as: ana, body: body)

        let error = expectErrorResponse(response, .validationFailed, field: "body")
        #expect(error?.message.contains("UTF-8") == true)
        #expect(try await harness.service.me(ana.caller) == before)
    }

    @Test func aFieldBreakingARuleIsValidationFailedNamingIt() async throws {
        let harness = try await ServiceHarness.make()
        func register(_ username: String, _ password: String, _ displayName: String) async -> HTTPResponse {
            await harness.call(.post, "/auth/register", json: RegisterBody(username: username, password: password, displayName: displayName))
        }
        expectErrorResponse(await register("a", ServiceHarness.password, "A"), .validationFailed, field: "username")
        expectErrorResponse(await register("ana smith", ServiceHarness.password, "A"), .validationFailed, field: "username")
        expectErrorResponse(await register("ana", "short", "A"), .validationFailed, field: "password")
        expectErrorResponse(await register("ana", ServiceHarness.password, "   "), .validationFailed, field: "displayName")
        let ana = try await harness.signUp("ana")
        let pushToken = await harness.call(
            .put, "/me/devices/current/push-token", as: ana, body: Array(#"{"token":"ab","environment":"staging"}"#.utf8))
        expectErrorResponse(pushToken, .validationFailed, field: "environment")
        expectErrorResponse(await harness.call(.get, "/conversations?updatedSince=yesterday", as: ana), .validationFailed, field: "updatedSince")
        expectErrorResponse(await harness.call(.get, "/users", as: ana), .validationFailed, field: "username")
    }

    @Test func aBodyOverOneMebibyteIsPayloadTooLarge() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let oversized = [UInt8](repeating: UInt8(ascii: " "), count: (1 << 20) + 1)
        let error = expectErrorResponse(await harness.call(.patch, "/me", as: ana, body: oversized), .payloadTooLarge)
        #expect(error?.details?["limit"]?.doubleValue == Double(1 << 20))
        let atLimit = Array(#"{"displayName":"Ana"}"#.utf8) + [UInt8](repeating: UInt8(ascii: " "), count: (1 << 20) - 21)
        #expect(await harness.call(.patch, "/me", as: ana, body: atLimit).status == .ok)
    }

    @Test func aMessageBodyOver4096CharactersIsValidationFailedNotPayloadTooLarge() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben")
        let direct = try await harness.direct(accounts[0], accounts[1])
        let body = MessagePostBody(clientMessageId: "k", content: .text(String(repeating: "a", count: 4097)))
        expectErrorResponse(
            await harness.call(.post, "/conversations/\(direct.id)/messages", as: accounts[0], json: body), .validationFailed, field: "body")
    }

    @Test func tooManyRequestsIsRateLimitedWithRetryAfter() async throws {
        let harness = try await ServiceHarness.make(.testing {
            $0.deviceRateLimit = SandboxRateLimit(requests: 2, window: .seconds(10))
        })
        let ana = try await harness.signUp("ana")
        #expect(await harness.call(.get, "/me", as: ana).status == .ok)
        #expect(await harness.call(.get, "/me", as: ana).status == .ok)

        let limited = await harness.call(.get, "/me", as: ana)

        let error = expectErrorResponse(limited, .rateLimited)
        #expect(limited.headers.first(name: "Retry-After") == "5")
        #expect(error?.details?["retryAfter"]?.doubleValue == 5)
        let ben = try await harness.signUp("ben")
        #expect(await harness.call(.get, "/me", as: ben).status == .ok, "the limit is per device")
        await harness.clock.advance(by: .seconds(5))
        #expect(await harness.call(.get, "/me", as: ana).status == .ok)
    }

    @Test func registrationsAreLimitedPerClientKey() async throws {
        let harness = try await ServiceHarness.make(.testing {
            $0.clientRateLimit = SandboxRateLimit(requests: 1, window: .seconds(30))
        })
        let register = { (username: String) in RegisterBody(username: username, password: ServiceHarness.password, displayName: "A") }
        #expect(await harness.call(.post, "/auth/register", json: register("ana")).status == .created)
        let limited = await harness.call(.post, "/auth/register", json: register("ben"))
        expectErrorResponse(limited, .rateLimited)
        #expect(limited.headers.first(name: "Retry-After") == "30")
    }

    @Test func aLimitedSignInCarriesRetryAfter() async throws {
        let harness = try await ServiceHarness.make(.testing {
            $0.signInRateLimit = SandboxRateLimit(requests: 1, window: .seconds(30))
        })
        _ = try await harness.signUp("ana")
        let login = LoginBody(username: "ana", password: "not it at all", device: DeviceDescription(name: "bot", platform: "linux"))
        expectErrorResponse(await harness.call(.post, "/auth/login", json: login), .invalidCredentials)
        let limited = await harness.call(.post, "/auth/login", json: login)
        expectErrorResponse(limited, .rateLimited)
        #expect(limited.headers.first(name: "Retry-After") == "30")
    }

    @Test func aStoreFailureIsInternal() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        await harness.service.store.close()
        let error = expectErrorResponse(await harness.call(.post, "/friend-requests", as: ana, json: FriendRequestBody.username("x")), .internalError)
        #expect(error?.message.contains("store") == true)
    }

    @Test func everyErrorResponseIsJSONWithCodeAndMessage() async throws {
        let harness = try await ServiceHarness.make()
        let response = await harness.call(.get, "/me")
        #expect(response.headers.first(name: "Content-Type")?.hasPrefix("application/json") == true)
        let object = try JSONDecoder().decode(JSONValue.self, from: Data(response.body))
        #expect(object["code"] == "UNAUTHORIZED")
        #expect(object["message"]?.stringValue?.isEmpty == false)
    }
}
