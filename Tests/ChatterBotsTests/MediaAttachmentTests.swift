import Foundation
import Testing

@testable import ChatterBots

/// A file is checked against the contract when it becomes an attachment, before any request.
@Suite struct MediaAttachmentTests {
    @Test(arguments: [
        ("png", "image/png", Message.Kind.photo), ("JPG", "image/jpeg", .photo), ("m4a", "audio/mp4", .voice),
        ("mp4", "video/mp4", .video), ("pdf", "application/pdf", .document),
    ])
    func aFilesTypeFollowsItsExtension(pathExtension: String, contentType: String, kind: Message.Kind) throws {
        let url = try Self.file(named: "file.\(pathExtension)", bytes: 3)
        let attachment = try MediaAttachment(contentsOf: url)
        #expect(attachment.contentType == contentType)
        #expect(attachment.kind == kind)
        #expect(attachment.data.count == 3)
    }

    @Test func aTypeTheServiceDoesNotStoreIsRefused() {
        #expect(throws: MediaAttachmentError.unsupportedContentType("text/plain")) {
            try MediaAttachment(data: Data("hi".utf8), contentType: "text/plain")
        }
    }

    @Test func anEmptyFileIsRefused() {
        #expect(throws: MediaAttachmentError.empty) { try MediaAttachment(data: Data(), contentType: "image/png") }
    }

    @Test func dataOverTenMebibytesIsRefused() {
        let bytes = MediaAttachment.maxBytes + 1
        #expect(throws: MediaAttachmentError.tooLarge(bytes: bytes, limit: MediaAttachment.maxBytes)) {
            try MediaAttachment(data: Data(count: bytes), contentType: "video/mp4")
        }
    }

    @Test func aFileOverTheLimitIsRefusedBeforeItIsRead() throws {
        let url = try Self.file(named: "big.mp4", bytes: 0)
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(MediaAttachment.maxBytes + 1))
        try handle.close()
        #expect(throws: MediaAttachmentError.tooLarge(bytes: MediaAttachment.maxBytes + 1, limit: MediaAttachment.maxBytes)) {
            try MediaAttachment(contentsOf: url)
        }
    }

    @Test func aFileWhoseExtensionNamesNoTypeNeedsOneGiven() throws {
        let url = try Self.file(named: "notes.bin", bytes: 2)
        #expect(throws: MediaAttachmentError.unknownFileType(path: url.path)) { try MediaAttachment(contentsOf: url) }
        #expect(try MediaAttachment(contentsOf: url, contentType: "application/pdf").kind == .document)
    }

    @Test func aMissingFileSaysItCouldNotBeRead() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString).png")
        guard case .unreadableFile(let path, _)? = #expect(throws: MediaAttachmentError.self, performing: {
            try MediaAttachment(contentsOf: url)
        }) else { return }
        #expect(path == url.path)
    }

    @Test func aRecordedMediaSendCanBeDownloadedAndIsDiscardedWithAThrowingHandler() async throws {
        struct Refusal: Error {}
        let context = RecordingBotContext()
        let picture = try MediaAttachment(data: Data([1, 2, 3]), contentType: "image/gif")
        let sent = try await context.messaging.sendMedia(picture, caption: "look", to: "C1")
        let mediaId = try #require(sent.content.mediaId)
        #expect(sent.content.kind == .photo)
        #expect(try await context.service.downloadMedia(mediaId).data == Data([1, 2, 3]))
        await #expect(throws: Refusal.self) {
            try await context.run {
                _ = try await context.messaging.sendMedia(picture, caption: "again", to: "C1")
                throw Refusal()
            }
        }
        #expect(context.sentMessages.map(\.content.body) == ["look"])
    }

    /// A file of `bytes` bytes in a fresh directory.
    static func file(named name: String, bytes: Int) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("media-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(repeating: 7, count: bytes).write(to: url)
        return url
    }
}
