import Foundation
import TestSupport
import Testing

/// The complete `bots.json` files the documentation shows (a JSON block with `bots`) pass `example-bots check`, so a
/// reader who copies one gets a file that loads: its kinds exist and their options decode.
@Suite("documented bots.json examples")
struct DocumentedConfigurationTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs")

    /// Each documented example: where it is, and its text.
    static var examples: [(place: String, text: String)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
        return names.filter { $0.hasSuffix(".md") }.sorted().flatMap { name -> [(place: String, text: String)] in
            let text = (try? String(contentsOf: docs.appendingPathComponent(name), encoding: .utf8)) ?? ""
            return jsonBlocks(in: text).filter(isWholeConfiguration).map { ("docs/\(name):\($0.line)", $0.text) }
        }
    }

    /// The fenced ```json blocks of `markdown`, each with the line its fence opens on.
    static func jsonBlocks(in markdown: String) -> [(line: Int, text: String)] {
        var blocks: [(line: Int, text: String)] = []
        var open: (line: Int, lines: [String])?
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if var block = open {
                if line.hasPrefix("```") {
                    blocks.append((block.line, block.lines.joined(separator: "\n")))
                    open = nil
                } else {
                    block.lines.append(String(line))
                    open = block
                }
            } else if line == "```json" {
                open = (index + 1, [])
            }
        }
        return blocks
    }

    static func isWholeConfiguration(_ block: (line: Int, text: String)) -> Bool {
        let object = try? JSONSerialization.jsonObject(with: Data(block.text.utf8)) as? [String: Any]
        return object?["bots"] is [Any]
    }

    /// The names of the `{"env": NAME}` values in `text`.
    static func variables(in text: String) -> Set<String> {
        let pattern = /"env"\s*:\s*"([A-Za-z_][A-Za-z0-9_]*)"/
        return Set(text.matches(of: pattern).map { String($0.output.1) })
    }

    @Test func theDocumentationShowsWholeConfigurations() {
        #expect(Self.examples.count >= 2, "\(Self.examples.map(\.place))")
    }

    @Test(arguments: examples.map(\.place))
    func aDocumentedConfigurationPassesCheck(place: String) async throws {
        let text = try #require(Self.examples.first { $0.place == place }).text
        let directory = try TemporaryDirectory("DocumentedConfigurationTests")
        try directory.write(text, to: "bots.json")
        let environment = Dictionary(uniqueKeysWithValues: Self.variables(in: text).map { ($0, "documented-example-secret") })
        let check = try BotProcess(["check", "--config", "bots.json"], in: directory.url, environment: environment, label: "check")
        let exit = await check.waitForExit(timeout: .hangGuard)
        #expect(exit == .code(0), "\(place): \(check.errors)")
    }
}
