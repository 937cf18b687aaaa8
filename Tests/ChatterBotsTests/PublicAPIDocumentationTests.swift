import Foundation
import Testing

/// The convention that every public symbol of ChatterBots (and of the testing kit) says what it is and why, checked on the sources: a
/// `public` declaration, a case of a public enum or a requirement of a public protocol needs a `///` comment.
///
/// Conformance witnesses whose meaning the standard protocol defines (`init(from:)`, `encode(to:)`,
/// `description`, `rawValue`, literal initialisers, `==`, `<`, `hash(into:)`, async iteration) are exempt:
/// documentation tools show the protocol's comment for them.
@Suite("Public API documentation")
struct PublicAPIDocumentationTests {
    /// The modules a bot author imports: the bot API and the testing kit.
    @Test(arguments: ["ChatterBots", "ChatterBotsTesting"])
    func everyPublicDeclarationHasADocComment(module: String) throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/\(module)").standardizedFileURL
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        try #require(!files.isEmpty, "no sources at \(sources.path)")
        var undocumented: [String] = []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (line, declaration) in UndocumentedDeclarations.find(in: text) {
                undocumented.append("\(file.path.dropFirst(sources.path.count + 1)):\(line): \(declaration)")
            }
        }
        #expect(undocumented.isEmpty, "public declarations without a /// comment:\n\(undocumented.sorted().joined(separator: "\n"))")
    }

    @Test func theCheckFindsWhatItLooksFor() {
        let source = """
            /// Documented.
            public struct Thing {
                public var name: String
                /// Documented.
                @discardableResult
                public func run() -> Int { 1 }
                public init(from decoder: any Decoder) throws {}
            }
            public enum Kind {
                case first
                /// Documented.
                case second
            }
            enum Hidden {
                case internalCase
            }
            """
        #expect(UndocumentedDeclarations.find(in: source).map(\.line) == [3, 9, 10])
    }
}

/// A line-based reader of Swift source that is exact enough for this codebase's layout (one declaration per
/// line, braces outside strings); it never needs to parse expressions.
enum UndocumentedDeclarations {
    private struct Container {
        let kind: Substring
        let isPublic: Bool
        let depth: Int
    }

    /// The 1-based line and text of each public declaration without a `///` comment.
    static func find(in source: String) -> [(line: Int, text: String)] {
        // Regexes are not Sendable, so they are made per call rather than kept in static constants.
        let declaration =
            #/^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:static|class|final|override|mutating|nonmutating|convenience|required|indirect|nonisolated|private\(set\)|fileprivate\(set\)|internal\(set\))\s+)*(func|var|let|init[?!]?|subscript|struct|class|enum|protocol|actor|typealias|extension|case)\b/#
        let enumCase = #/^\s*(?:indirect\s+)?case\s+[`\w]/#
        let requirement = #/^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:static|mutating|nonisolated)\s+)*(?:func|var|init[?!]?|subscript|associatedtype|typealias)\b/#
        let container = #/^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(public|open|internal|private|fileprivate)\s+)?(?:(?:final|indirect)\s+)*(struct|class|enum|protocol|actor|extension)\s/#
        let witness =
            #/init\(from decoder|func encode\(to encoder|var description: String|var debugDescription|init\(rawValue|var rawValue|init\((?:stringLiteral|integerLiteral|floatLiteral|booleanLiteral|nilLiteral|arrayLiteral|dictionaryLiteral|extendedGraphemeClusterLiteral|unicodeScalarLiteral)|static func (?:==|<|!=)|func hash\(into|func makeAsyncIterator|func next\(|init\?<Key: CodingKey>\(codingKey|var codingKey|typealias (?:Element|Failure)\b/#
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        var found: [(line: Int, text: String)] = []
        var containers: [Container] = []
        var depth = 0
        for (index, line) in lines.enumerated() {
            let code = codeOnly(line)
            let inside = containers.last.flatMap { $0.depth + 1 == depth ? $0 : nil }
            var isDeclaration = false
            if let match = line.firstMatch(of: declaration) {
                isDeclaration = match.1 != "extension"
            } else if let inside, inside.isPublic {
                isDeclaration =
                    (inside.kind == "enum" && line.firstMatch(of: enumCase) != nil)
                    || (inside.kind == "protocol" && line.firstMatch(of: requirement) != nil)
            }
            if isDeclaration, line.firstMatch(of: witness) == nil, !isDocumented(lines, before: index) {
                found.append((index + 1, line.trimmingCharacters(in: .whitespaces)))
            }
            let opens = code.filter { $0 == "{" }.count
            let closes = code.filter { $0 == "}" }.count
            if opens > 0, let match = line.firstMatch(of: container) {
                let isPublic = match.1 == "public" || match.1 == "open" || match.2 == "extension"
                containers.append(Container(kind: match.2, isPublic: isPublic, depth: depth))
            }
            depth += opens - closes
            while let last = containers.last, depth <= last.depth { containers.removeLast() }
        }
        return found
    }

    /// Whether the lines above `index`, past any attributes, end in a doc comment.
    private static func isDocumented(_ lines: [Substring], before index: Int) -> Bool {
        var above = index - 1
        while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
        guard above >= 0 else { return false }
        let text = lines[above].trimmingCharacters(in: .whitespaces)
        return text.hasPrefix("///") || text.hasSuffix("*/")
    }

    /// The line without string literals and `//` comments, so that their braces do not count.
    private static func codeOnly(_ line: Substring) -> String {
        var code = ""
        var inString = false
        var escaped = false
        var previous: Character?
        for character in line {
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
            } else if character == "\"" {
                inString = true
            } else if character == "/" && previous == "/" {
                code.removeLast()
                break
            } else {
                code.append(character)
            }
            previous = character
        }
        return code
    }
}
