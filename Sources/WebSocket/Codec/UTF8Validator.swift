/// A streaming UTF-8 validator: feed a message's bytes in any pieces and it fails at the first byte that cannot
/// belong to valid UTF-8 (overlong forms, surrogates U+D800-U+DFFF and code points above U+10FFFF are invalid),
/// so a fragmented text message is rejected as soon as its bad byte arrives.
public struct UTF8Validator: Sendable, Hashable {
    /// Where the validator is within a multi-byte sequence.
    @usableFromInline
    enum State: UInt8, Sendable {
        case boundary      // between characters
        case needs1        // one continuation byte 80-BF left
        case needs2        // two continuation bytes left
        case needs3        // three continuation bytes left
        case afterE0       // next must be A0-BF (no overlong 3-byte forms), then one more
        case afterED       // next must be 80-9F (no surrogates), then one more
        case afterF0       // next must be 90-BF (no overlong 4-byte forms), then two more
        case afterF4       // next must be 80-8F (at most U+10FFFF), then two more
        case failed
    }

    @usableFromInline
    var state: State = .boundary

    public init() {}

    /// Whether every byte so far can be part of valid UTF-8.
    @inlinable
    public var isValid: Bool { state != .failed }

    /// Whether the bytes so far are valid and end on a character boundary, i.e. form complete valid UTF-8.
    @inlinable
    public var isComplete: Bool { state == .boundary }

    /// Forgets everything, ready for a new message.
    @inlinable
    public mutating func reset() { state = .boundary }

    /// Feeds the next bytes; returns false as soon as one of them makes the input invalid (and stays failed).
    @inlinable
    public mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard state != .failed else { return false }
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return true }
        var index = 0
        var current = state
        while index < count {
            if current == .boundary {
                // ASCII fast path, 8 bytes at a time.
                while index &+ 8 <= count,
                      base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    index &+= 8
                }
                if index >= count { break }
            }
            current = Self.next(current, base.load(fromByteOffset: index, as: UInt8.self))
            if current == .failed {
                state = .failed
                return false
            }
            index &+= 1
        }
        state = current
        return true
    }

    /// Feeds the next bytes; returns false as soon as one of them makes the input invalid (and stays failed).
    @inlinable
    public mutating func validate(_ bytes: some Sequence<UInt8>) -> Bool {
        if let result = bytes.withContiguousStorageIfAvailable({ validate(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        guard state != .failed else { return false }
        var current = state
        for byte in bytes {
            current = Self.next(current, byte)
            if current == .failed { break }
        }
        state = current
        return current != .failed
    }

    /// Whether `bytes` are complete, valid UTF-8 on their own.
    @inlinable
    public static func isValidUTF8(_ bytes: some Sequence<UInt8>) -> Bool {
        var validator = UTF8Validator()
        return validator.validate(bytes) && validator.isComplete
    }

    @inlinable @inline(__always)
    static func next(_ state: State, _ byte: UInt8) -> State {
        switch state {
        case .boundary:
            switch byte {
            case 0x00...0x7F: return .boundary
            case 0xC2...0xDF: return .needs1
            case 0xE0: return .afterE0
            case 0xE1...0xEC, 0xEE...0xEF: return .needs2
            case 0xED: return .afterED
            case 0xF0: return .afterF0
            case 0xF1...0xF3: return .needs3
            case 0xF4: return .afterF4
            default: return .failed  // 80-BF stray continuation, C0/C1 overlong, F5-FF out of range
            }
        case .needs1: return byte & 0xC0 == 0x80 ? .boundary : .failed
        case .needs2: return byte & 0xC0 == 0x80 ? .needs1 : .failed
        case .needs3: return byte & 0xC0 == 0x80 ? .needs2 : .failed
        case .afterE0: return (0xA0...0xBF).contains(byte) ? .needs1 : .failed
        case .afterED: return (0x80...0x9F).contains(byte) ? .needs1 : .failed
        case .afterF0: return (0x90...0xBF).contains(byte) ? .needs2 : .failed
        case .afterF4: return (0x80...0x8F).contains(byte) ? .needs2 : .failed
        case .failed: return .failed
        }
    }
}
