@testable import BotRuntime
import ChatterBots
import Foundation
import TestSupport
import Testing

@Suite("secrets from files")
struct FileSecretTests {
    func remote(password: String, options: String = "{}") -> String {
        #"""
        {"server": {"apiURL": "https://api.example.com/v1", "webSocketURL": "wss://api.example.com/v1/ws",
                    "clientKey": {"file": "secrets/client-key"}},
         "bots": [{"name": "r", "kind": "echo", "credentials": {"username": "r_bot", "password": \#(password)},
                   "friendRequests": "everyone", "options": \#(options)}]}
        """#
    }

    func load(_ json: String, in directory: TemporaryDirectory) throws(ConfigurationError) -> BotsConfiguration {
        try BotsConfiguration(json: Data(json.utf8), environment: [:], baseDirectory: directory.url)
    }

    @Test func aFileGivesItsContentWithOneTrailingNewlineRemoved() throws {
        let directory = try TemporaryDirectory("FileSecretTests")
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("secrets"), withIntermediateDirectories: true)
        try directory.write("ck_live\n", to: "secrets/client-key")
        let password = try directory.write("  two lines\nkept\n\n", to: "password")
        let configuration = try load(remote(password: #"{"file": "\#(password.path)"}"#), in: directory)
        #expect(configuration.bots.first?.credentials.password == "  two lines\nkept\n")
        guard case .remote(_, _, let clientKey) = configuration.server else {
            Issue.record("not a remote server")
            return
        }
        #expect(clientKey == "ck_live")
    }

    @Test func aRelativePathIsRelativeToTheConfigurationsDirectory() throws {
        let directory = try TemporaryDirectory("FileSecretTests")
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("secrets"), withIntermediateDirectories: true)
        try directory.write("ck_live", to: "secrets/client-key")
        try directory.write("s3cret\n", to: "secrets/password")
        let configuration = try load(remote(password: #"{"file": "secrets/password"}"#), in: directory)
        #expect(configuration.bots.first?.credentials.password == "s3cret")
    }

    @Test func anOptionMayComeFromAFile() throws {
        let directory = try TemporaryDirectory("FileSecretTests")
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("secrets"), withIntermediateDirectories: true)
        try directory.write("ck_live", to: "secrets/client-key")
        try directory.write("pw", to: "secrets/password")
        try directory.write("token-123\n", to: "secrets/api-token")
        let configuration = try load(
            remote(password: #"{"file": "secrets/password"}"#, options: #"{"api": {"token": {"file": "secrets/api-token"}}}"#),
            in: directory)
        let options = try #require(configuration.bots.first?.options)
        struct Options: Decodable { struct API: Decodable { var token: String }; var api: API }
        #expect(try options.decode(as: Options.self).api.token == "token-123")
    }

    @Test func aMissingOrEmptyFileIsAnErrorNamingTheBotAndTheField() throws {
        let directory = try TemporaryDirectory("FileSecretTests")
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("secrets"), withIntermediateDirectories: true)
        try directory.write("\n", to: "secrets/client-key")
        let missing = directory.url.appendingPathComponent("secrets/nope").path
        do {
            _ = try load(
                remote(password: #"{"file": "secrets/nope"}"#, options: #"{"token": {"file": "secrets/nope"}}"#), in: directory)
            Issue.record("loaded without problems")
        } catch {
            let found = error.issues.map(\.description)
            #expect(found.contains("server.clientKey: the file \(directory.url.appendingPathComponent("secrets/client-key").path) is empty"))
            #expect(found.contains { $0.hasPrefix("bot \"r\", credentials.password: the file \(missing) cannot be read") })
            #expect(found.contains { $0.hasPrefix("bot \"r\", options.token: the file \(missing) cannot be read") })
            #expect(found.count == 3)
        }
    }

    @Test func aFileReferenceReadsAndWritesAsWritten() throws {
        let file = try BotsFile(json: Data(remote(password: #"{"file": "/run/secrets/r"}"#).utf8))
        #expect(file.bots.first?.credentials.password == .file("/run/secrets/r"))
        let again = try BotsFile(json: try JSONEncoder().encode(file))
        #expect(again == file)
    }

    @Test func anEmptyFilePathIsRefused() {
        do {
            _ = try BotsFile(json: Data(remote(password: #"{"file": ""}"#).utf8))
            Issue.record("read without problems")
        } catch {
            #expect(error.issues.map(\.description) == [#"bot "r", credentials.password: names an empty file path"#])
        }
    }
}
