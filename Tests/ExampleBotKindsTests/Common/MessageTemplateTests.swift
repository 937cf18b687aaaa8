import ChatterBots
import Foundation
import Testing
@testable import ExampleBotKinds

/// Reply templates: placeholders, escaped braces, mistakes found when parsing, and the length limit.
@Suite("MessageTemplate")
struct MessageTemplateTests {
    @Test func placeholdersAreFilledInAndDoubledBracesAreLiteral() throws {
        let template = try MessageTemplate("{{hi}} {name} (@{username}) said \"{text}\": {1}/{0}{3}")
        #expect(template.placeholders == [.name, .username, .text, .capture(1), .capture(0), .capture(3)])
        let values = MessageTemplate.Values(name: "Alice", username: "alice", text: "order 42", captures: ["order 42", "42"])
        #expect(template.render(values) == "{hi} Alice (@alice) said \"order 42\": 42/order 42")
    }

    @Test(arguments: [
        ("Hi {nmae}", MessageTemplateError.unknownPlaceholder("nmae")),
        ("Hi {10}", .unknownPlaceholder("10")),
        ("Hi {}", .unknownPlaceholder("")),
        ("Hi {name", .unclosedBrace("Hi {name")),
        ("Hi name}", .unopenedBrace("Hi name}")),
    ])
    func mistakesAreFoundWhenParsing(source: String, expected: MessageTemplateError) {
        #expect(throws: expected) { try MessageTemplate(source) }
    }

    @Test func aRenderedTextIsCutToWhatOneMessageCarries() throws {
        let text = try MessageTemplate("{text}").render(.init(text: String(repeating: "a", count: 5_000)))
        #expect(text.count == MessageTemplate.maximumLength)
        #expect(text.hasSuffix("a…"))
    }
}
