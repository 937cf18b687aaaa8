import Foundation

/// A fresh directory under the system's temporary directory, removed when released.
package final class TemporaryDirectory: Sendable {
    package let url: URL

    package init(_ label: String = "BotRuntimeHostTests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` inside the directory and returns its URL.
    @discardableResult
    package func write(_ text: String, to name: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
