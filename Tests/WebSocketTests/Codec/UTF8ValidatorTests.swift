import Testing
@testable import WebSocket
import TestSupport

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
        _ = validator.validate(bytes)
        #expect(!validator.isValid)
    }

    /// Feeds `pieces` in order to one validator; returns what it answered for each piece and whether it ended complete.
    func verdicts(_ pieces: [UInt8]...) -> (accepted: [Bool], complete: Bool) {
        var validator = UTF8Validator()
        let accepted = pieces.map { validator.validate($0) }
        return (accepted, validator.isComplete)
    }

    @Test func rejectsAtTheFirstInvalidByte() {
        // κόσμε followed by F4 90: the 90 already proves the sequence would exceed U+10FFFF.
        let kosme: [UInt8] = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5]
        #expect(verdicts(kosme, [0xF4], [0x90]).accepted == [true, true, false])
    }

    @Test func rejectsSurrogateAtItsSecondByte() {
        #expect(verdicts([0xED], [0xA0]).accepted == [true, false])
    }

    @Test func truncatedSequenceIsValidSoFarButIncomplete() {
        #expect(verdicts([0xF0, 0x9D, 0x84]) == ([true], false))
        #expect(verdicts([0xF0, 0x9D, 0x84], [0x9E]) == ([true, true], true))
        #expect(!UTF8Validator.isValidUTF8([0xE2, 0x82] as [UInt8]))
    }

    @Test func everySplitOfValidTextIsAccepted() {
        let bytes = Array("aé€𝄞zκόσμε".utf8)
        for split in 0...bytes.count {
            #expect(verdicts(Array(bytes[..<split]), Array(bytes[split...])) == ([true, true], true), "split at \(split)")
        }
    }

    @Test func staysFailedAfterAnInvalidByteUntilReset() {
        var validator = UTF8Validator()
        _ = validator.validate([0xFF] as [UInt8])
        _ = validator.validate(Array("fine".utf8))
        #expect(!validator.isValid)
        validator.reset()
        _ = validator.validate(Array("fine".utf8))
        #expect(validator.isValid && validator.isComplete)
    }

    @Test func invalidByteAfterLongASCIIRunIsFound() {
        for position in 0..<24 {
            var bytes = [UInt8](repeating: 0x61, count: 24)
            bytes[position] = 0xC0
            #expect(!UTF8Validator.isValidUTF8(bytes), "position \(position)")
        }
    }

    @Test func agreesWithTheStandardLibraryOnRandomBytes() {
        var generator = SeededGenerator(seed: 7)
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
