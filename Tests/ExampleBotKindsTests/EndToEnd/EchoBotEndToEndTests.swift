import BotRuntime
import ChatterBots
import ChatterBotsTesting
import Foundation
import Testing
@testable import ExampleBotKinds

/// The echo bot as it runs, against the sandbox: a picture comes back as a picture.
@Suite("EchoBot end to end")
struct EchoBotEndToEndTests {
    @Test func aPictureWithACaptionComesBackAsThatPictureWithThePrefixedCaption() async throws {
        try await BotTestHarness.start(EchoBot.botKind).run { harness in
            let alice = try await harness.user("alice")
            let picture = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4])
            _ = try await alice.sendMedia(picture, contentType: "image/png", caption: "my cat")
            let echo = try await alice.nextMessage()
            #expect(echo.kind == .photo)
            #expect(echo.body == "echo: my cat")
            let mediaId = try #require(echo.mediaId)
            let file = try await alice.rest.downloadMedia(mediaId)
            #expect(file.data == picture)
            #expect(file.contentType == "image/png")
        }
    }
}
