import ChatterBots
import Testing

/// The contract ties a media message's kind to its upload's content type.
@Suite("Message kind of a media type")
struct MediaKindTests {
    @Test(arguments: [
        ("image/png", Message.Kind.photo), ("image/jpeg", .photo), ("audio/ogg", .voice), ("video/mp4", .video),
        ("application/pdf", .document), ("Image/PNG; charset=binary", .photo),
    ])
    func eachAcceptedMediaTypeGivesTheKindTheContractNames(contentType: String, kind: Message.Kind) {
        #expect(Message.Kind(mediaContentType: contentType) == kind)
    }

    @Test(arguments: ["text/plain", "application/zip", "image", "image/", "", "pdf"])
    func aTypeNoMediaMessageCarriesGivesNoKind(contentType: String) {
        #expect(Message.Kind(mediaContentType: contentType) == nil)
    }
}
