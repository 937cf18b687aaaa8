@testable import ChatterBotsCLI
@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

@Suite("ChatDeviceFile")
struct ChatDeviceFileTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("chat-device-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func aSavedDeviceIdIsLoadedBack() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = ChatDeviceFile(dataDirectory: directory, username: "alice")
        try file.save("01DEVICE", username: "alice")
        #expect(try file.load() == "01DEVICE")
        #expect(file.url.path == directory.path + "/chat/alice.json")
    }

    @Test func noFileMeansNoDeviceYet() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try ChatDeviceFile(dataDirectory: directory, username: "alice").load() == nil)
    }

    @Test func theFileAndItsDirectoryAreTheOwnersOnly() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = ChatDeviceFile(dataDirectory: directory, username: "alice")
        try file.save("01DEVICE", username: "alice")
        let fileMode = try FileManager.default.attributesOfItem(atPath: file.url.path)[.posixPermissions] as? Int
        let directoryMode = try FileManager.default.attributesOfItem(atPath: file.url.deletingLastPathComponent().path)[.posixPermissions] as? Int
        #expect(fileMode == 0o600)
        #expect(directoryMode == 0o700)
    }

    @Test func aFileThatIsNotADeviceFileIsAnErrorNamingIt() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = ChatDeviceFile(dataDirectory: directory, username: "alice")
        try FileManager.default.createDirectory(at: file.url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("not json".utf8).write(to: file.url)
        let error = #expect(throws: ChatDeviceFileError.self) { try file.load() }
        #expect(error?.description.contains(file.url.path) == true)
    }

    @Test func usernamesCannotEscapeTheChatDirectory() throws {
        let directory = URL(fileURLWithPath: "/tmp/data")
        #expect(ChatDeviceFile(dataDirectory: directory, username: "../../etc/passwd").url.path == "/tmp/data/chat/_.._.._etc_passwd.json")
        #expect(ChatDeviceFile(dataDirectory: directory, username: "Alice").url.lastPathComponent == "alice.json")
    }
}
