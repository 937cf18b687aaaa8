import ChatterBots
import ChatterSandbox
import Foundation
import SQLite
import Testing
import WebSocket

extension SandboxServiceConfiguration {
    /// The service's defaults with cheap password hashing, for tests.
    static func testing(_ adjust: (inout SandboxServiceConfiguration) -> Void = { _ in }) -> SandboxServiceConfiguration {
        var configuration = SandboxServiceConfiguration(passwordHashIterations: 1_000)
        adjust(&configuration)
        return configuration
    }
}

/// An event sink that keeps everything it is handed, for assertions.
actor RecordingEventSink: SandboxEventSink {
    private(set) var deliveries: [SandboxDelivery] = []
    private(set) var revokedDevices: [Device.ID] = []

    func deliver(_ deliveries: [SandboxDelivery]) async { self.deliveries += deliveries }

    nonisolated func deliverInOrder<Value: Sendable>(
        in conversationId: Conversation.ID, _ send: () async throws(ChatterErrorBody) -> SandboxOutcome<Value>
    ) async throws(ChatterErrorBody) -> SandboxOutcome<Value> {
        let outcome = try await send()
        await deliver(outcome.deliveries)
        return outcome
    }

    func endSessions(of deviceId: Device.ID, because reason: SandboxAuthError) async {
        if reason == .deviceRevoked { revokedDevices.append(deviceId) }
    }

    func privacyChanged(of userId: User.ID) async {}

    /// The deliveries received since the last call.
    func take() -> [SandboxDelivery] {
        defer { deliveries = [] }
        return deliveries
    }
}

/// A signed-in test user.
struct TestAccount: Sendable {
    var session: AuthSession
    var password: String

    var id: User.ID { session.user.id }
    var user: User { session.user }
    var caller: SandboxCaller { SandboxCaller(userId: session.user.id, deviceId: session.deviceId) }
    var accessToken: String { session.accessToken }
}

/// A service over an in-memory store on a manual clock, its router and a recording sink.
struct ServiceHarness: Sendable {
    static let password = "correct horse battery"

    let clock: ManualClock
    let service: ChatterService
    let sink: RecordingEventSink
    let router: SandboxRESTRouter

    static func make(_ configuration: SandboxServiceConfiguration = .testing()) async throws -> ServiceHarness {
        let clock = ManualClock()
        let service = ChatterService(store: try await SandboxStore.inMemory(), clock: clock, configuration: configuration)
        let sink = RecordingEventSink()
        return ServiceHarness(clock: clock, service: service, sink: sink, router: SandboxRESTRouter(service: service, sink: sink))
    }

    // MARK: Service-level set-up

    func signUp(_ username: String, displayName: String? = nil) async throws -> TestAccount {
        let session = try await service.register(
            RegisterBody(username: username, password: Self.password, displayName: displayName ?? username.capitalized))
        return TestAccount(session: session, password: Self.password)
    }

    func befriend(_ a: TestAccount, _ b: TestAccount) async throws {
        try await service.makeFriends(a.id, b.id)
    }

    /// Signs up users who are all friends with each other.
    func friends(_ usernames: String...) async throws -> [TestAccount] {
        var accounts: [TestAccount] = []
        for name in usernames { accounts.append(try await signUp(name)) }
        for (i, a) in accounts.enumerated() {
            for b in accounts[(i + 1)...] { try await befriend(a, b) }
        }
        return accounts
    }

    func direct(_ a: TestAccount, _ b: TestAccount) async throws -> Conversation {
        try await service.createConversation(a.caller, .direct(userId: b.id)).value.value
    }

    func group(_ owner: TestAccount, _ title: String, _ members: [TestAccount]) async throws -> Conversation {
        try await service.createConversation(owner.caller, .group(title: title, memberIds: members.map(\.id))).value.value
    }

    @discardableResult
    func send(_ from: TestAccount, _ text: String, in conversation: Conversation.ID, key: String? = nil) async throws -> Message {
        try await service.postMessage(
            from.caller, conversation,
            MessagePostBody(clientMessageId: ClientMessageID(key ?? UUID().uuidString), content: .text(text))
        ).value.value
    }

    // MARK: REST

    /// Sends one request through the router, as `account` (bearer token) when given.
    func call(
        _ method: WebSocket.HTTPMethod, _ path: String, as account: TestAccount? = nil, json: (any Encodable)? = nil,
        body: [UInt8]? = nil, headers: HTTPHeaders = [:], clientKey: String? = "ck_sandbox"
    ) async -> HTTPResponse {
        var allHeaders = headers
        if let clientKey { allHeaders.add(name: "X-Client-Key", value: clientKey) }
        if let account { allHeaders.add(name: "Authorization", value: "Bearer \(account.accessToken)") }
        var bytes = body ?? []
        if let json {
            bytes = Array((try? JSONEncoder().encode(json)) ?? Data())
            allHeaders.add(name: "Content-Type", value: "application/json")
        }
        allHeaders.add(name: "Host", value: "127.0.0.1:8080")
        return await router.respond(to: HTTPRequest(method: method, target: "/v1" + path, headers: allHeaders, body: bytes))
    }
}

// MARK: Reading responses and errors

func decode<Value: Decodable>(_ type: Value.Type, _ response: HTTPResponse) throws -> Value {
    try JSONDecoder().decode(Value.self, from: Data(response.body))
}

/// The error object of a failed response.
func apiError(_ response: HTTPResponse) throws -> ChatterErrorBody {
    try JSONDecoder().decode(ChatterErrorBody.self, from: Data(response.body))
}

/// The `details.field` of an error.
extension ChatterErrorBody {
    var field: String? { details?["field"]?.stringValue }
}

/// Expects `body` to fail with the API error `code` (and `details.field` when given); returns the error.
@discardableResult
func expectAPIError<T>(
    _ code: ChatterErrorCode, field: String? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async -> ChatterErrorBody? {
    do {
        _ = try await body()
        Issue.record("Expected \(code), but the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as ChatterErrorBody {
        #expect(error.code == code, "\(error.message)", sourceLocation: sourceLocation)
        if let field { #expect(error.field == field, sourceLocation: sourceLocation) }
        return error
    } catch {
        Issue.record("Expected \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Expects an HTTP error response with the contract's status for `code` (and `details.field` when given).
@discardableResult
func expectErrorResponse(
    _ response: HTTPResponse, _ code: ChatterErrorCode, field: String? = nil, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) -> ChatterErrorBody? {
    #expect(response.status.code == code.documentedHTTPStatus, comment, sourceLocation: sourceLocation)
    guard let error = try? apiError(response) else {
        Issue.record("Not an error body: \(String(decoding: response.body, as: UTF8.self))", sourceLocation: sourceLocation)
        return nil
    }
    #expect(error.code == code, "\(error.message)", sourceLocation: sourceLocation)
    if let field { #expect(error.field == field, sourceLocation: sourceLocation) }
    return error
}
