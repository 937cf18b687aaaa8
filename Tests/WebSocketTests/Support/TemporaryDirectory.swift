import Foundation

/// A fresh directory under the system temporary directory, removed when the value is released.
final class TemporaryDirectory: Sendable {
    let url: URL

    init(prefix: String = "chatterbots-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
