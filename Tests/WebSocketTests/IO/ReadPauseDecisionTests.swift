import Glibc
import Synchronization
import Testing
@testable import WebSocket

/// A slow consumer pauses its socket's reading and resumes it; the buffer numbers its decisions, and the channel
/// applies only the newest, so a pause that reaches it after a later resume cannot stop reading for good.
@Suite("Read pause decisions")
struct ReadPauseDecisionTests {
    final class Decisions: Sendable {
        private let recorded = Mutex<[ReadPauseDecision]>([])
        var all: [ReadPauseDecision] { recorded.withLock { $0 } }
        func record(_ decision: ReadPauseDecision) { recorded.withLock { $0.append(decision) } }
    }

    @Test func theBufferNumbersItsPauseAndItsResumeInTheOrderItMadeThem() async {
        let decisions = Decisions()
        let buffer = InboundMessageBuffer(highWatermark: 4, lowWatermark: 2) { decisions.record($0) }
        buffer.push([.binary([1, 2, 3]), .binary([4, 5, 6])])
        _ = await buffer.next()
        _ = await buffer.next()
        #expect(decisions.all == [ReadPauseDecision(paused: true, number: 1), ReadPauseDecision(paused: false, number: 2)])
    }

    @Test func emptyMessagesAreChargedAnOverheadSoTheirFloodPausesReading() {
        let decisions = Decisions()
        let buffer = InboundMessageBuffer(highWatermark: 10 * WebSocketMessage.bufferOverhead, lowWatermark: 0) { decisions.record($0) }
        buffer.push(Array(repeating: .binary([]), count: 10))
        #expect(decisions.all.isEmpty, "at the high watermark, not past it")
        buffer.push([.text("")])
        #expect(decisions.all == [ReadPauseDecision(paused: true, number: 1)])
    }

    @Test func aPauseThatArrivesAfterTheLaterResumeLeavesReadingOn() throws {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
            throw IOError(operation: "socketpair", errno: errno)
        }
        defer { fds.forEach { _ = close($0) } }
        let channel = SocketChannel(fd: fds[0], loop: try EventLoopGroup.shared.next())

        channel.setReadingPaused(ReadPauseDecision(paused: false, number: 2))
        channel.setReadingPaused(ReadPauseDecision(paused: true, number: 1))
        #expect(!channel.isReadingPaused)
        channel.setReadingPaused(ReadPauseDecision(paused: true, number: 3))
        #expect(channel.isReadingPaused)
    }
}
