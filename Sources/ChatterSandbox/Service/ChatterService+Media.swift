import ChatterBots
import Foundation
import SQLite

// Media uploads.
extension ChatterService {
    /// The media types `POST /media` accepts: image/*, audio/*, video/* and application/pdf.
    public static func isAcceptedMediaType(_ contentType: String) -> Bool {
        let type = mediaType(contentType)
        let parts = type.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty else { return false }
        return ["image", "audio", "video"].contains(parts[0]) || type == "application/pdf"
    }

    /// `POST /media`: stores the raw file and returns its id. The body is 1 byte to `maxMediaBytes`.
    public func uploadMedia(_ caller: SandboxCaller, bytes: [UInt8], contentType: String?) async throws(ChatterErrorBody) -> Media.ID {
        guard bytes.count <= configuration.maxMediaBytes else {
            throw ChatterErrorBody(
                code: .payloadTooLarge, message: "A media file is at most \(configuration.maxMediaBytes) bytes.",
                details: ["limit": .number(Double(configuration.maxMediaBytes))])
        }
        guard let contentType, Self.isAcceptedMediaType(contentType) else {
            throw .validation(
                field: "Content-Type", "Upload image/*, audio/*, video/* or application/pdf, with that Content-Type.")
        }
        guard !bytes.isEmpty else { throw .validation(field: "body", "The upload is empty: send the file as the raw body.") }
        let time = now
        let mediaId: Media.ID = identifiers.make(at: time)
        let type = Self.mediaType(contentType)
        try await write { db in
            try db.execute(
                sql: "INSERT INTO media (id, owner_id, content_type, byte_count, bytes, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [mediaId.rawValue, caller.userId.rawValue, type, bytes.count, bytes, time.millisecondsSince1970])
        }
        return mediaId
    }

    /// `GET /media/{mediaId}`: an uploaded file, for its uploader and for the members of a conversation with a
    /// message carrying it (a message deleted for everyone carries none). NOT_FOUND for anyone else, so an id
    /// alone never opens a file.
    public func mediaFile(_ caller: SandboxCaller, _ id: Media.ID) async throws(ChatterErrorBody) -> SandboxMediaFile {
        try await read { db in
            guard let row = try db.fetchOne(
                sql: """
                    SELECT content_type, bytes FROM media
                    WHERE id = ?1 AND (owner_id = ?2 OR EXISTS (
                        SELECT 1 FROM messages m JOIN members mb ON mb.conversation_id = m.conversation_id
                        WHERE m.media_id = media.id AND mb.user_id = ?2))
                    """,
                arguments: [id.rawValue, caller.userId.rawValue])
            else { throw ChatterErrorBody.notFound("No such media.") }
            return SandboxMediaFile(id: id, contentType: try row["content_type"], bytes: try row["bytes"])
        }
    }

    /// `type/subtype` in lowercase, without parameters.
    static func mediaType(_ contentType: String) -> String {
        String(contentType.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
    }
}
