/// Tests and case mapping of ASCII bytes, for code that reads UTF-8 directly: identifiers, percent-encoding, log text.
package enum ASCII {
    /// Whether every character of `text` is ASCII.
    package static func holdsOnlyASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// Whether `byte` is an ASCII letter or digit.
    package static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    /// Whether `byte` is an ASCII digit.
    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// `byte` lowercased if it is an ASCII capital letter, else `byte` itself.
    package static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    /// Whether `text` holds `word` (lowercase ASCII) in any ASCII case.
    package static func text(_ text: String, holdsInAnyCase word: String) -> Bool {
        let bytes = text.utf8
        let word = word.utf8
        assert(word.allSatisfy { lowercased($0) == $0 }, "the word is matched as given, so it must be lowercase")
        guard !word.isEmpty else { return true }
        guard bytes.count >= word.count else { return false }
        var start = bytes.startIndex
        let lastStart = bytes.index(bytes.endIndex, offsetBy: -word.count)
        while true {
            if zip(bytes[start...], word).allSatisfy({ lowercased($0) == $1 }) { return true }
            guard start != lastStart else { return false }
            bytes.formIndex(after: &start)
        }
    }
}
