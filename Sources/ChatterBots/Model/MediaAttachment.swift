import Foundation

/// A file a bot sends: its bytes and media type, checked against the contract when made, before any request (at
/// most 10 MiB, of a type the service stores: image/*, audio/*, video/* or application/pdf).
///
/// ```swift
/// let chart = try MediaAttachment(contentsOf: URL(fileURLWithPath: "chart.png"))
/// try await context.messaging.sendMedia(chart, caption: "This week", to: message.conversationId)
/// ```
public struct MediaAttachment: Hashable, Sendable {
    /// The largest file the service takes (`POST /media`).
    public static let maxBytes = 10 * 1024 * 1024

    /// The file's bytes.
    public let data: Data
    /// Its media type, e.g. `image/png`.
    public let contentType: String
    /// The kind of message it makes: a photo, a voice note, a video or a document.
    public let kind: Message.Kind

    /// A file of `contentType` holding `data`.
    /// - Throws: `.empty`, `.tooLarge`, or `.unsupportedContentType` for a type the service would refuse.
    public init(data: Data, contentType: String) throws(MediaAttachmentError) {
        guard let kind = Message.Kind(mediaContentType: contentType) else { throw .unsupportedContentType(contentType) }
        guard !data.isEmpty else { throw .empty }
        guard data.count <= Self.maxBytes else { throw .tooLarge(bytes: data.count, limit: Self.maxBytes) }
        self.data = data
        self.contentType = contentType
        self.kind = kind
    }

    /// The file at `url`, of `contentType`, or of the type its extension names when nil (`png`, `jpg`, `gif`, `webp`,
    /// `mp3`, `m4a`, `ogg`, `mp4`, `mov`, `pdf`).
    /// - Throws: `.unknownFileType` when the type is neither given nor known from the extension, `.unreadableFile`,
    ///   or what ``init(data:contentType:)`` throws. A file over the limit is refused before it is read.
    public init(contentsOf url: URL, contentType: String? = nil) throws(MediaAttachmentError) {
        guard let type = contentType ?? Self.contentType(ofExtension: url.pathExtension) else {
            throw .unknownFileType(path: url.path)
        }
        let data: Data
        do {
            let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
            guard size <= Self.maxBytes else { throw MediaAttachmentError.tooLarge(bytes: size, limit: Self.maxBytes) }
            data = try Data(contentsOf: url)
        } catch let error as MediaAttachmentError {
            throw error
        } catch {
            throw .unreadableFile(path: url.path, reason: "\(error)")
        }
        try self.init(data: data, contentType: type)
    }

    /// The media type a file extension names, for the types the service stores; nil for any other.
    public static func contentType(ofExtension pathExtension: String) -> String? {
        switch pathExtension.lowercased() {
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "mp3": "audio/mpeg"
        case "m4a": "audio/mp4"
        case "ogg", "oga": "audio/ogg"
        case "mp4", "m4v": "video/mp4"
        case "mov": "video/quicktime"
        case "pdf": "application/pdf"
        default: nil
        }
    }
}

/// Why a file cannot be sent, found before any request.
public enum MediaAttachmentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file has no bytes.
    case empty
    /// The file is over the service's limit.
    case tooLarge(bytes: Int, limit: Int)
    /// The service stores only image/*, audio/*, video/* and application/pdf.
    case unsupportedContentType(String)
    /// No media type was given and the file's extension names none.
    case unknownFileType(path: String)
    /// The file could not be read.
    case unreadableFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .empty: "the file is empty"
        case .tooLarge(let bytes, let limit): "the file has \(bytes) bytes; the service takes at most \(limit)"
        case .unsupportedContentType(let type):
            "the service does not store \(type) files: send image/*, audio/*, video/* or application/pdf"
        case .unknownFileType(let path): "\(path): give its content type, its extension names none the service stores"
        case .unreadableFile(let path, let reason): "\(path) could not be read: \(reason)"
        }
    }
}
