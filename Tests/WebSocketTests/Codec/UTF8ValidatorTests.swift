import Testing
@testable import WebSocket

/// The streaming UTF-8 validator on valid, invalid and split input.
@Suite struct UTF8ValidatorTests {
    @Test(arguments: [
        "", "Hello", "κόσμε", "€", "𝄞 music", "\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}",
        "\u{D7FF}\u{E000}", String(repeating: "a", count: 1000) + "é",
    ])
    func acceptsValidText(text: String) {
        #expect(UTF8Validator.isValidUTF8(Array(text.utf8)))
    }

    @Test(arguments: [
        [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xF0, 0x80, 0x80, 0x80],
        [0xF0, 0x8F, 0xBF, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
        [0xFE], [0xFF], [0xC2, 0x41], [0xE1, 0x80, 0x41], [0x41, 0x80, 0x41],
    ] as [[UInt8]])
    func rejectsInvalidSequences(bytes: [UInt8]) {
        var validator = UTF8Validator()
        let accepted1 = validator.validate(bytes)
        #expect(!accepted1)
        #expect(!validator.isValid)
    }

    @Test func rejectsAtTheFirstInvalidByte() {
        // κόσμε followed by F4 90: the 90 already proves the sequence would exceed U+10FFFF.
        var validator = UTF8Validator()
        let accepted2 = validator.validate([0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5] as [UInt8])
        #expect(accepted2)
        let accepted3 = validator.validate([0xF4] as [UInt8])
        #expect(accepted3)
        let accepted4 = validator.validate([0x90] as [UInt8])
        #expect(!accepted4)
    }

    @Test func rejectsSurrogateAtItsSecondByte() {
        var validator = UTF8Validator()
        let accepted5 = validator.validate([0xED] as [UInt8])
        #expect(accepted5)
        let accepted6 = validator.validate([0xA0] as [UInt8])
        #expect(!accepted6)
    }

    @Test func truncatedSequenceIsValidSoFarButIncomplete() {
        var validator = UTF8Validator()
        let accepted7 = validator.validate([0xF0, 0x9D, 0x84] as [UInt8])
        #expect(accepted7)
        #expect(!validator.isComplete)
        let accepted8 = validator.validate([0x9E] as [UInt8])
        #expect(accepted8)
        #expect(validator.isComplete)
        #expect(!UTF8Validator.isValidUTF8([0xE2, 0x82] as [UInt8]))
    }

    @Test func everySplitOfValidTextIsAccepted() {
        let bytes = Array("aé€𝄞zκόσμε".utf8)
        for split in 0...bytes.count {
            var validator = UTF8Validator()
            let accepted9 = validator.validate(bytes[..<split])
            #expect(accepted9)
            let accepted10 = validator.validate(bytes[split...])
            #expect(accepted10)
            #expect(validator.isComplete, "split at \(split)")
        }
    }

    @Test func staysFailedAfterAnInvalidByte() {
        var validator = UTF8Validator()
        let accepted11 = validator.validate([0xFF] as [UInt8])
        #expect(!accepted11)
        let accepted12 = validator.validate(Array("fine".utf8))
        #expect(!accepted12)
        validator.reset()
        let accepted13 = validator.validate(Array("fine".utf8))
        #expect(accepted13)
    }

    @Test func invalidByteAfterLongASCIIRunIsFound() {
        for position in 0..<24 {
            var bytes = [UInt8](repeating: 0x61, count: 24)
            bytes[position] = 0xC0
            #expect(!UTF8Validator.isValidUTF8(bytes), "position \(position)")
        }
    }

    @Test func agreesWithTheStandardLibraryOnRandomBytes() {
        var generator = CodecFixtures.SeededGenerator(seed: 7)
        for _ in 0..<5000 {
            let count = Int.random(in: 0...8, using: &generator)
            let bytes = (0..<count).map { _ -> UInt8 in
                // Bias towards the interesting lead and continuation ranges.
                let pool: [ClosedRange<UInt8>] = [0x00...0x7F, 0x80...0xBF, 0xC0...0xFF, 0xE0...0xF4]
                return UInt8.random(in: pool[Int.random(in: 0..<4, using: &generator)], using: &generator)
            }
            let standard = String(validating: bytes, as: UTF8.self) != nil
            #expect(UTF8Validator.isValidUTF8(bytes) == standard, "\(bytes)")
        }
    }
}
