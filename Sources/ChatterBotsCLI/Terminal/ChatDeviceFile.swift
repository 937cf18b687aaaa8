import BotRuntime
import ChatterBots
import Foundation

/// The small file that makes repeated runs of the terminal client one device: it keeps the `deviceId` of the
/// last sign-in as `<dataDirectory>/chat/<username>.json`, readable by the owner only. It holds no tokens; each
/// run signs in with the password and this id, which signs the same device in again.
public struct ChatDeviceFile: Sendable, Hashable {
    /// The file's location.
    public let url: URL

    public init(dataDirectory: URL, username: String) {
        let safeName = String(username.lowercased().unicodeScalars.map { scalar -> Character in
            CharacterSet.alphanumerics.contains(scalar) || scalar == "_" || scalar == "-" || scalar == "." ? Character(scalar) : "_"
        })
        url = dataDirectory.appendingPathComponent("chat", isDirectory: true)
            .appendingPathComponent((safeName.isEmpty || safeName.hasPrefix(".") ? "_" + safeName : safeName) + ".json")
    }

    private struct Contents: Codable {
        var username: String
        var deviceId: Device.ID
    }

    /// The stored device id; nil when there is no file yet.
    /// - Throws: `ChatDeviceFileError` when the file exists but cannot be read or is not a device file.
    public func load() throws(ChatDeviceFileError) -> Device.ID? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ChatDeviceFileError(url: url, problem: "cannot be read: \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(Contents.self, from: data).deviceId
        } catch {
            throw ChatDeviceFileError(url: url, problem: "is not a device file: \(error)")
        }
    }

    /// Stores `deviceId` (the directory is created owner-only, the file written atomically and owner-only).
    /// - Throws: `ChatDeviceFileError` when the directory or the file cannot be written.
    public func save(_ deviceId: Device.ID, username: String) throws(ChatDeviceFileError) {
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = try encoder.encode(Contents(username: username, deviceId: deviceId))
            try data.write(to: url, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        } catch {
            throw ChatDeviceFileError(url: url, problem: "cannot be written: \(error.localizedDescription)")
        }
    }

    /// Deletes the file, so that the next run signs in as a new device (the server revoked this one).
    /// - Throws: `ChatDeviceFileError` when it exists and cannot be deleted.
    func remove() throws(ChatDeviceFileError) {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw ChatDeviceFileError(url: url, problem: "cannot be deleted: \(error.localizedDescription)")
        }
    }
}
