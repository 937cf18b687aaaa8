import Foundation

/// A value of `bots.json` given as `{"file": "/run/secrets/name"}`: the file's content with one trailing newline
/// removed (as `echo` and Kubernetes Secrets write it). A relative path is relative to the configuration's
/// directory. Read again at every load, so a rotated secret is picked up by a reload.
package struct SecretFile: Sendable, Hashable {
    /// The path as written.
    package var path: String

    package init(path: String) {
        self.path = path
    }

    /// The file's location: `path` itself when absolute (`~` expanded), else under `baseDirectory` (the working
    /// directory when nil).
    package func url(relativeTo baseDirectory: URL?) -> URL {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return URL(fileURLWithPath: expanded).standardizedFileURL }
        let base = baseDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        return base.appendingPathComponent(expanded).standardizedFileURL
    }

    /// The content, or why there is none: the file cannot be read, is not UTF-8, or holds nothing.
    package func read(relativeTo baseDirectory: URL?) -> Result<String, SecretFileFailure> {
        let url = url(relativeTo: baseDirectory)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            return .failure(SecretFileFailure(path: url.path, reason: "cannot be read (\(Self.reason(error)))"))
        }
        guard var text = String(data: data, encoding: .utf8) else {
            return .failure(SecretFileFailure(path: url.path, reason: "is not UTF-8 text"))
        }
        if text.hasSuffix("\r\n") {
            text.removeLast(1)
        } else if text.hasSuffix("\n") {
            text.removeLast()
        }
        guard !text.isEmpty else { return .failure(SecretFileFailure(path: url.path, reason: "is empty")) }
        return .success(text)
    }

    private static func reason(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let code = underlying?.code, underlying?.domain == NSPOSIXErrorDomain, let message = strerror(Int32(code)) {
            return String(cString: message)
        }
        return error.localizedDescription
    }
}

/// A secret file that gives no value, in words: "the file /run/secrets/pw is empty".
package struct SecretFileFailure: Error, Sendable, Hashable, CustomStringConvertible {
    package var path: String
    package var reason: String

    package var description: String { "the file \(path) \(reason)" }
}
