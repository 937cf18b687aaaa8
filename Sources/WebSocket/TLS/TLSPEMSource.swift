#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where PEM text (certificates or a private key) comes from: given inline, or read from a file when the
/// configuration is created.
public enum TLSPEMSource: Sendable, Hashable, CustomStringConvertible {
    /// PEM text, e.g. the contents of `ca.pem` embedded in a configuration.
    case pem(String)
    /// A PEM file, read once when the configuration is created.
    case file(path: String)

    public var description: String {
        switch self {
        case .pem: "inline PEM text"
        case let .file(path): "PEM file \(path)"
        }
    }

    /// The PEM bytes; reads the file for `.file`.
    func load() throws(TLSError) -> [UInt8] {
        switch self {
        case let .pem(text):
            return Array(text.utf8)
        case let .file(path):
            return try Self.readFile(atPath: path)
        }
    }

    /// PEM files are small (a few KiB), so the whole file is read at once.
    private static func readFile(atPath path: String) throws(TLSError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .unreadableFile(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return contents }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadableFile(path: path, reason: String(cString: strerror(errno)))
            }
            contents.append(contentsOf: chunk[0..<count])
        }
    }
}
