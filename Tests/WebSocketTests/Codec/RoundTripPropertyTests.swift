import Testing
@testable import WebSocket
import TestSupport

/// Seeded random round trips: whatever is encoded, fragmented and split into arbitrary reads comes back intact.
/// Serialized: in a debug build each case is seconds of CPU, and the whole run shares a cooperative pool of two
/// threads on this machine; run side by side they starved the tests that wait on sockets and peers.
@Suite(.serialized) struct RoundTripPropertyTests {
    typealias F = CodecFixtures

    static func randomLength(using generator: inout SeededGenerator) -> Int {
        // Mostly small, often on a length-encoding boundary, sometimes large.
        switch Int.random(in: 0..<10, using: &generator) {
        case 0..<5: Int.random(in: 0...130, using: &generator)
        case 5..<8: [0, 125, 126, 127, 65535, 65536].randomElement(using: &generator) ?? 0
        default: Int.random(in: 131...70_000, using: &generator)
        }
    }

    static func randomBytes(_ count: Int, using generator: inout SeededGenerator) -> [UInt8] {
        // Eight bytes per draw: byte-by-byte drawing made these tests hold a cooperative thread for seconds.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next()) { bytes.append(contentsOf: $0) }
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }

    static func randomText(maxScalars: Int, using generator: inout SeededGenerator) -> String {
        let ranges: [ClosedRange<UInt32>] = [0x20...0x7E, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF]
        var text = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...maxScalars, using: &generator) {
            let range = ranges.randomElement(using: &generator) ?? ranges[0]
            if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &generator)) { text.append(scalar) }
        }
        return String(text)
    }

    /// Splits `bytes` into reads of random sizes, including single bytes.
    static func randomReads(_ bytes: [UInt8], using generator: inout SeededGenerator) -> [[UInt8]] {
        var reads: [[UInt8]] = []
        var index = 0
        while index < bytes.count {
            let size = Bool.random(using: &generator) ? Int.random(in: 1...3, using: &generator) : Int.random(in: 1...9000, using: &generator)
            let end = min(bytes.count, index + size)
            reads.append(Array(bytes[index..<end]))
            index = end
        }
        return reads
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func framesSurviveEncodingAndArbitraryReadBoundaries(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        for role in [WebSocketRole.client, .server] {
            var frames: [WebSocketFrame] = []
            var wire: [UInt8] = []
            for _ in 0..<60 {
                let opcode = WebSocketOpcode.allCases.randomElement(using: &generator) ?? .binary
                let length = opcode.isControl ? Int.random(in: 0...125, using: &generator) : Self.randomLength(using: &generator)
                let frame = WebSocketFrame(
                    fin: opcode.isControl || Bool.random(using: &generator), opcode: opcode,
                    maskingKey: role == .server ? WebSocketMaskingKey.random(using: &generator) : nil,
                    payload: Self.randomBytes(length, using: &generator))
                frames.append(frame)
                WebSocketFrameEncoder.encode(frame, into: &wire)
            }
            var decoder = WebSocketFrameDecoder(role: role)
            var decoded: [WebSocketFrame] = []
            for read in Self.randomReads(wire, using: &generator) {
                decoder.append(read)
                while let frame = try decoder.nextFrame() { decoded.append(frame) }
            }
            #expect(decoded == frames, "seed \(seed) role \(role)")
            #expect(decoder.bufferedByteCount == 0)
        }
    }

    @Test(arguments: [UInt64(11), 12, 13, 14, 15])
    func fragmentedMessagesWithInterleavedPingsAreReassembled(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        for role in [WebSocketRole.client, .server] {
            let peer = F.peer(of: role)
            var expected: [F.Observed] = []
            var wire: [UInt8] = []
            func append(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool) {
                let key = peer == .client ? WebSocketMaskingKey.random(using: &generator) : nil
                WebSocketFrameEncoder.encode(WebSocketFrame(fin: fin, opcode: opcode, maskingKey: key, payload: payload), into: &wire)
            }
            for _ in 0..<40 {
                let message: WebSocketMessage = Bool.random(using: &generator)
                    ? .text(Self.randomText(maxScalars: Int.random(in: 0...3000, using: &generator), using: &generator))
                    : .binary(Self.randomBytes(Self.randomLength(using: &generator), using: &generator))
                let payload: [UInt8] = switch message {
                case .text(let text): Array(text.utf8)
                case .binary(let bytes): bytes
                }
                // Cut anywhere, even inside a UTF-8 sequence.
                var cuts = (0..<Int.random(in: 0...4, using: &generator)).map { _ in Int.random(in: 0...payload.count, using: &generator) }
                cuts = ([0] + cuts.sorted() + [payload.count])
                for index in 0..<(cuts.count - 1) {
                    append(index == 0 ? message.opcode : .continuation, Array(payload[cuts[index]..<cuts[index + 1]]), fin: index == cuts.count - 2)
                    if index < cuts.count - 2 && Bool.random(using: &generator) {
                        let ping = Self.randomBytes(Int.random(in: 0...125, using: &generator), using: &generator)
                        append(.ping, ping, fin: true)
                        expected.append(.wrote(.pong, ping))
                    }
                }
                expected.append(.deliver(message))
            }
            var state = WebSocketProtocolState(role: role)
            state.pendingPongLimit = 1  // the tightest limit: pings read together share one pong and the newest's
            var observed: [F.Observed] = []
            for read in Self.randomReads(wire, using: &generator) {
                observed += try F.feed(&state, read)
                // The pong leaves after each read; pings that came in one read are answered once, the newest last.
                observed += try F.observe(state.pongWritten(), writtenBy: role)
            }
            func isPong(_ action: F.Observed) -> Bool { if case .wrote(.pong, _) = action { true } else { false } }
            #expect(observed.filter { !isPong($0) } == expected.filter { !isPong($0) }, "seed \(seed) role \(role)")
            let pongs = observed.filter(isPong)
            let pings = expected.filter(isPong)
            #expect(pongs.last == pings.last, "the newest ping is answered, seed \(seed) role \(role)")
            var unmatched = pongs[...]
            for ping in pings where unmatched.first == ping { unmatched.removeFirst() }
            #expect(unmatched.isEmpty, "pongs answer pings, in order, seed \(seed) role \(role)")
        }
    }

    @Test(arguments: [UInt64(21), 22, 23])
    func whatOneEndSendsTheOtherDelivers(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        for role in [WebSocketRole.client, .server] {
            var sender = WebSocketProtocolState(role: role)
            var receiver = WebSocketProtocolState(role: F.peer(of: role))
            var messages: [WebSocketMessage] = []
            var wire: [UInt8] = []
            for _ in 0..<50 {
                let message: WebSocketMessage = Bool.random(using: &generator)
                    ? .text(Self.randomText(maxScalars: 200, using: &generator))
                    : .binary(Self.randomBytes(Self.randomLength(using: &generator), using: &generator))
                messages.append(message)
                try sender.send(message, into: &wire)
            }
            var delivered: [WebSocketMessage] = []
            for read in Self.randomReads(wire, using: &generator) {
                for case .deliver(let message) in receiver.receive(read) { delivered.append(message) }
            }
            #expect(delivered == messages, "seed \(seed) role \(role)")
        }
    }
}
