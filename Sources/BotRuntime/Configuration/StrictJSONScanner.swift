import Foundation

/// Finds what Foundation's JSON decoder lets through in `bots.json` although JSON forbids it or readers disagree on
/// it, so that no setting is dropped or misread silently: a key given twice in one object (the decoder keeps the
/// first, most readers the last), a trailing comma, and a number beyond a Double's range (which the decoder reports
/// as a type mismatch that names no number).
///
/// It follows well-formed JSON only: at any other syntax error it gives up and leaves the report to the decoder.
struct StrictJSONScanner {
    /// The deepest nesting followed; deeper input is left to the decoder, which refuses it.
    static let maximumDepth = 512

    private enum Step {
        case key(String)
        case index(Int)
    }

    /// The input is not JSON this scanner can follow.
    private struct Unfollowable: Error {}

    private let bytes: [UInt8]
    private var offset = 0
    private var line = 1
    private var path: [Step] = []
    private var issues: [ConfigurationIssue] = []

    private init(_ data: Data) {
        bytes = Array(data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
    }

    /// The issues in `data`, each naming where it is; nil when `data` is not JSON that this scanner can follow.
    static func issues(in data: Data) -> [ConfigurationIssue]? {
        var scanner = StrictJSONScanner(data)
        do {
            try scanner.value(depth: 0)
            scanner.skipWhitespace()
            guard scanner.offset == scanner.bytes.count else { return nil }
        } catch {
            return nil
        }
        return scanner.issues
    }

    private var next: UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    private mutating func skipWhitespace() {
        while let byte = next, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            if byte == 0x0A { line += 1 }
            offset += 1
        }
    }

    private mutating func expect(_ character: Unicode.Scalar) throws(Unfollowable) {
        guard next == UInt8(ascii: character) else { throw Unfollowable() }
        offset += 1
    }

    private mutating func value(depth: Int) throws(Unfollowable) {
        guard depth <= Self.maximumDepth else { throw Unfollowable() }
        skipWhitespace()
        guard let byte = next else { throw Unfollowable() }
        switch byte {
        case UInt8(ascii: "{"): try object(depth: depth)
        case UInt8(ascii: "["): try array(depth: depth)
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw Unfollowable()
        }
    }

    private mutating func object(depth: Int) throws(Unfollowable) {
        try expect("{")
        // Keys compare as Swift strings, as the decoder's dictionary compares them.
        var firstLines: [String: Int] = [:]
        skipWhitespace()
        if next == UInt8(ascii: "}") {
            offset += 1
            return
        }
        while true {
            skipWhitespace()
            let keyLine = line
            let key = try string()
            skipWhitespace()
            try expect(":")
            path.append(.key(key))
            if let firstLine = firstLines[key] {
                report("is given twice in one object (lines \(firstLine) and \(keyLine)); keep only the one you mean, "
                    + "since JSON readers disagree on which one counts")
            } else {
                firstLines[key] = keyLine
            }
            try value(depth: depth + 1)
            path.removeLast()
            if try closes("}") { return }
        }
    }

    private mutating func array(depth: Int) throws(Unfollowable) {
        try expect("[")
        skipWhitespace()
        if next == UInt8(ascii: "]") {
            offset += 1
            return
        }
        var index = 0
        while true {
            path.append(.index(index))
            try value(depth: depth + 1)
            path.removeLast()
            if try closes("]") { return }
            index += 1
        }
    }

    /// After a member: true when `close` ends the container (reporting a comma just before it), false after a comma
    /// that another member follows.
    private mutating func closes(_ close: Unicode.Scalar) throws(Unfollowable) -> Bool {
        skipWhitespace()
        if next == UInt8(ascii: close) {
            offset += 1
            return true
        }
        try expect(",")
        let commaLine = line
        skipWhitespace()
        guard next == UInt8(ascii: close) else { return false }
        offset += 1
        report("has a comma before its closing \(close) (line \(commaLine)); remove it: JSON allows none")
        return true
    }

    private mutating func literal(_ word: String) throws(Unfollowable) {
        for byte in word.utf8 {
            guard next == byte else { throw Unfollowable() }
            offset += 1
        }
    }

    private mutating func digits() throws(Unfollowable) -> ArraySlice<UInt8> {
        let start = offset
        while let byte = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { offset += 1 }
        guard offset > start else { throw Unfollowable() }
        return bytes[start..<offset]
    }

    private mutating func number() throws(Unfollowable) {
        let start = offset
        if next == UInt8(ascii: "-") { offset += 1 }
        var mantissa = try digits()
        if mantissa.count > 1, mantissa.first == UInt8(ascii: "0") { throw Unfollowable() }
        if next == UInt8(ascii: ".") {
            offset += 1
            mantissa += try digits()
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            offset += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { offset += 1 }
            _ = try digits()
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        guard let number = Double(text) else { throw Unfollowable() }
        if number.isInfinite {
            report("is \(text), a number too large to read (beyond ±1.8e308); write a number within the field's range")
        } else if number == 0, mantissa.contains(where: { $0 != UInt8(ascii: "0") }) {
            report("is \(text), a number too close to 0 to read (below 1e-308); write 0 or a number within the field's range")
        }
    }

    /// A string's decoded text (the quotes, escapes and UTF-8 checked).
    private mutating func string() throws(Unfollowable) -> String {
        try expect("\"")
        var text: [UInt8] = []
        while true {
            guard let byte = next, byte >= 0x20 else { throw Unfollowable() }
            offset += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let decoded = String(validating: text, as: UTF8.self) else { throw Unfollowable() }
                return decoded
            case UInt8(ascii: "\\"):
                try escape(into: &text)
            default:
                text.append(byte)
            }
        }
    }

    private mutating func escape(into text: inout [UInt8]) throws(Unfollowable) {
        guard let byte = next else { throw Unfollowable() }
        offset += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(byte)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hexQuad()
            if (0xD800...0xDBFF).contains(scalar) {
                try expect("\\")
                try expect("u")
                let low = try hexQuad()
                guard (0xDC00...0xDFFF).contains(low) else { throw Unfollowable() }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let decoded = Unicode.Scalar(scalar) else { throw Unfollowable() }
            text += Array(String(decoded).utf8)
        default:
            throw Unfollowable()
        }
    }

    private mutating func hexQuad() throws(Unfollowable) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = next, let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { throw Unfollowable() }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    /// Records `message` for the value at the current path: within a bot, by its position and the field inside it.
    private mutating func report(_ message: String) {
        var steps = path[...]
        var botIndex: Int?
        if steps.count >= 2, case .key("bots") = steps[0], case .index(let index) = steps[1] {
            botIndex = index
            steps = steps.dropFirst(2)
        }
        var field = ""
        for step in steps {
            switch step {
            case .key(let key): field += field.isEmpty ? key : ".\(key)"
            case .index(let index): field += "[\(index)]"
            }
        }
        issues.append(ConfigurationIssue(botIndex: botIndex, field: field, message: message))
    }
}
