import ChatterBots
import ChatterSandbox
import ChildProcesses
import Foundation
import TestSupport
import Testing
import WebSocket

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The router behind a real `HTTPServer` on 127.0.0.1, reached through ChatterBots' own REST client (over its
/// built-in HTTP client and over URLSession, so both ends of the wire format are checked against each other) and curl.
@Suite("REST over a real HTTP server")
struct LoopbackRESTTests {
    struct Server {
        let harness: ServiceHarness
        let http: HTTPServer
        var apiURL: URL { URL(string: "http://127.0.0.1:\(http.port)/v1")! }

        func client(secret: String? = nil, transport: ChatterHTTPTransport = .shared) -> ChatterRESTClient {
            ChatterRESTClient(
                configuration: ChatterServerConfiguration(
                    apiBaseURL: apiURL, webSocketURL: URL(string: "ws://127.0.0.1:\(http.port)/v1/ws")!, clientKey: "ck_sandbox"),
                clientSecret: secret, transport: transport, requestTimeouts: .hangGuard)
        }
    }

    private func withServer(
        _ configuration: SandboxServiceConfiguration = .testing(), _ body: (Server) async throws -> Void
    ) async throws {
        let harness = try await ServiceHarness.make(configuration)
        let router = harness.router
        let http = try await HTTPServer.start(
            configuration: HTTPServerConfiguration(parserLimits: HTTPParserLimits(maxBodyBytes: router.requiredMaxBodyBytes)),
            responder: router.responder)
        do {
            try await body(Server(harness: harness, http: http))
        } catch {
            await http.shutdown()
            throw error
        }
        await http.shutdown()
    }

    /// Both transports: the built-in HTTP client (the default) and URLSession.
    @Test(arguments: ["built-in", "URLSession"])
    func chatterBotsRESTClientRunsTheWholeFlowAgainstTheSandbox(transport name: String) async throws {
        let transport: ChatterHTTPTransport = name == "URLSession" ? .urlSession(URLSession(configuration: .ephemeral)) : .shared
        try await withServer { server in
            let ana = server.client(transport: transport)
            let ben = server.client(transport: transport)
            let anaSession = try await ana.register(username: "ana_souza", password: ServiceHarness.password, displayName: "Ana Souza")
            let benSession = try await ben.register(username: "ben_tan", password: ServiceHarness.password, displayName: "Ben Tan")

            let request = try await ana.sendFriendRequest(to: .username("ben_tan"))
            #expect(try await ben.friendRequests().incoming == [request])
            let accepted = try await ben.acceptFriendRequest(request.id)
            #expect(accepted.friend.user == anaSession.user)
            let direct = try await ana.directConversation(with: benSession.user.id)
            #expect(try await ben.directConversation(with: anaSession.user.id).id == direct.id)

            let key = ClientMessageID.random()
            let first = try await ana.postMessage(.text("See you at 8?"), clientMessageId: key, in: direct.id)
            let resent = try await ana.postMessage(.text("See you at 8?"), clientMessageId: key, in: direct.id)
            #expect(resent == first)
            let page = try await ben.messages(in: direct.id, afterSeq: 0)
            #expect(page.messages == [first])
            #expect(!page.hasMore)

            let upload = try await ana.uploadMedia(Data([0xff, 0xd8, 0xff]), contentType: "image/jpeg")
            #expect(upload.url.hasPrefix(server.apiURL.absoluteString))
            let (_, anonymous) = try await URLSession.patient.data(for: URLRequest(url: try #require(URL(string: upload.url))).patient)
            #expect((anonymous as? HTTPURLResponse)?.statusCode == 401, "the URL needs the bearer token")
            #expect(try await ana.downloadMedia(upload.mediaId) == MediaFile(data: Data([0xff, 0xd8, 0xff]), contentType: "image/jpeg"))
            let photo = try await ana.postMessage(.media(.photo, upload.mediaId), clientMessageId: .random(), in: direct.id)
            #expect(photo.seq == 2)

            let conversations = try await ben.conversations()
            #expect(conversations.map(\.id) == [direct.id])
            #expect(conversations.first?.lastMessage == photo)

            let developer = server.client(secret: "cs_sandbox")
            try await developer.configureAPNs(testAPNsKey)
            #expect(try await developer.apnsConfiguration().configured)

            try await ana.logout()
            await #expect(throws: (any Error).self) { try await ana.me() }
        }
    }

    @Test func anOversizedBodyIsAnsweredByTheRouterAsPayloadTooLarge() async throws {
        try await withServer { server in
            let ana = try await server.harness.signUp("ana")
            var request = URLRequest(url: server.apiURL.appendingPathComponent("me"))
            request.httpMethod = "PATCH"
            request.setValue("ck_sandbox", forHTTPHeaderField: "X-Client-Key")
            request.setValue("Bearer \(ana.accessToken)", forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(repeating: UInt8(ascii: " "), count: (1 << 20) + 10)

            let (data, response) = try await URLSession.patient.data(for: request.patient)

            #expect((response as? HTTPURLResponse)?.statusCode == 413)
            #expect(try JSONDecoder().decode(ChatterErrorBody.self, from: data).code == .payloadTooLarge)
        }
    }

    @Test func aRateLimitedRequestCarriesRetryAfterOverTheWire() async throws {
        try await withServer(.testing { $0.deviceRateLimit = SandboxRateLimit(requests: 1, window: .seconds(42)) }) { server in
            let ana = try await server.harness.signUp("ana")
            var request = URLRequest(url: server.apiURL.appendingPathComponent("me"))
            request.setValue("ck_sandbox", forHTTPHeaderField: "X-Client-Key")
            request.setValue("Bearer \(ana.accessToken)", forHTTPHeaderField: "Authorization")

            _ = try await URLSession.patient.data(for: request.patient)
            let (data, response) = try await URLSession.patient.data(for: request.patient)

            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 429)
            #expect(http.value(forHTTPHeaderField: "Retry-After") == "42")
            #expect(try JSONDecoder().decode(ChatterErrorBody.self, from: data).code == .rateLimited)
        }
    }

    @Test func curlUploadsAMediaFileLargerThanTheJSONLimit() async throws {
        try await withServer { server in
            let ana = try await server.harness.signUp("ana")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-media-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("clip.mp4")
            try Data(repeating: 0x42, count: 3 << 20).write(to: file)

            let output = try await runCurl([
                "-sS", "-X", "POST", server.apiURL.appendingPathComponent("media").absoluteString,
                "-H", "X-Client-Key: ck_sandbox", "-H", "Authorization: Bearer \(ana.accessToken)",
                "-H", "Content-Type: video/mp4", "-H", "Expect:", "--data-binary", "@\(file.path)", "-w", "\n%{http_code}",
            ])

            let lines = output.split(separator: "\n")
            #expect(lines.last == "201")
            let upload = try JSONDecoder().decode(MediaUpload.self, from: Data(try #require(lines.first).utf8))
            #expect(try await server.harness.service.mediaFile(ana.caller, upload.mediaId).bytes.count == 3 << 20)
        }
    }

    /// Runs curl and returns its standard output; its output is read off the cooperative pool.
    private func runCurl(_ arguments: [String]) async throws -> String {
        let child = try ChildProcess([try TestPeer.command("curl"), "--max-time", Duration.hangGuardSeconds] + arguments, discardingInput: true)
        let output = try await child.allOutput(timeout: .hangGuard)
        return String(decoding: output, as: UTF8.self)
    }
}
