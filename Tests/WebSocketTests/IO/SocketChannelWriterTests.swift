import Glibc
import Synchronization
import Testing
@testable import WebSocket

/// A caller that finds nothing queued becomes the channel's writer and sends outside the lock: bytes accepted
/// meanwhile follow its bytes in order, and a close waits for it.
@Suite("SocketChannel writer")
struct SocketChannelWriterTests {
    /// A non-blocking stream socket pair: the channel's end, and the peer's end the test reads.
    private struct Pair {
        let channel: SocketChannel
        let peer: Int32
        let closed: ClosedRecorder

        /// - Parameter handler: what hears the channel; a `ClosedRecorder` (`closed`) when nil.
        init(handler: (any ChannelHandler)? = nil) throws {
            var fds: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
                throw IOError(operation: "socketpair", errno: errno)
            }
            _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
            let loop = try EventLoopGroup.shared.next()
            channel = SocketChannel(fd: fds[0], loop: loop)
            peer = fds[1]
            closed = ClosedRecorder()
            let handler = handler ?? closed
            loop.execute { [channel] in channel.start(handler: handler) }
        }

        /// Everything the peer can read until the channel's end of stream; nil if it has not ended within 60 s.
        func readUntilEnd() -> [UInt8]? {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                var poller = pollfd(fd: peer, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 60_000) == 1 else { return nil }
                let count = read(peer, &buffer, buffer.count)
                if count <= 0 { return bytes }
                bytes += buffer[0..<count]
            }
        }

        /// Whether the peer sees anything (bytes or the end of stream) within `milliseconds`.
        func peerIsReadable(within milliseconds: Int32) -> Bool {
            var poller = pollfd(fd: peer, events: Int16(POLLIN), revents: 0)
            return poll(&poller, 1, milliseconds) == 1
        }
    }

    private final class ClosedRecorder: ChannelHandler {
        let isClosed = Atomic<Bool>(false)
        func channelRead(_ channel: SocketChannel, _ bytes: UnsafeRawBufferPointer) {}
        func channelClosed(_ channel: SocketChannel, error: ChannelError?) { isClosed.store(true, ordering: .releasing) }
    }

    @Test func bytesAcceptedWhileAWriterSendsFollowItsBytesInOrder() throws {
        let pair = try Pair()
        defer { close(pair.peer) }
        let (_, pending) = pair.channel.enqueue(Array("first ".utf8))
        let writer = try #require(pending)
        #expect(pair.channel.enqueue(Array("second ".utf8)).1 == nil)
        #expect(pair.channel.enqueue(Array("third".utf8)).1 == nil)
        #expect(pair.channel.flush(writer) == false)
        pair.channel.closeAfterFlush()
        #expect(pair.readUntilEnd().map { String(decoding: $0, as: UTF8.self) } == "first second third")
    }

    @Test func aCloseAfterFlushRequestedWhileAWriterSendsWaitsForItsBytesAndRefusesNewOnes() throws {
        let pair = try Pair()
        defer { close(pair.peer) }
        let writer = try #require(pair.channel.enqueue(Array("last words".utf8)).1)
        pair.channel.closeAfterFlush()
        #expect(pair.channel.enqueue(Array(" and more".utf8)).0 == .closed)
        #expect(!pair.peerIsReadable(within: 100), "nothing is sent or closed before the writer flushes")
        _ = pair.channel.flush(writer)
        #expect(pair.readUntilEnd().map { String(decoding: $0, as: UTF8.self) } == "last words")
    }

    @Test func aSocketClosedWhileAWriterSendsKeepsItsDescriptorUntilTheWriterIsDone() async throws {
        let pair = try Pair()
        defer { close(pair.peer) }
        let writer = try #require(pair.channel.enqueue(Array("in flight".utf8)).1)
        pair.channel.close()
        await pair.channel.waitUntilClosed()
        // The handler hears the close just after the channel is marked closed.
        let deadline = ContinuousClock.now + .seconds(60)
        while !pair.closed.isClosed.load(ordering: .acquiring), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let handlerHeardTheClose = pair.closed.isClosed.load(ordering: .acquiring)
        #expect(handlerHeardTheClose)
        #expect(!pair.peerIsReadable(within: 100), "the descriptor stays open while the writer holds it")
        _ = pair.channel.flush(writer)
        #expect(pair.readUntilEnd() != nil, "the writer closed the descriptor once done")
    }

    /// Records what a write and `closeError` tell a writer at the moment the handler is told of the close: another
    /// thread can find the channel closed then, before the handler has recorded why.
    private final class CloseWitness: ChannelHandler {
        let seen = Mutex<(write: SocketChannel.WriteOutcome, reason: ChannelError?)?>(nil)
        func channelRead(_ channel: SocketChannel, _ bytes: UnsafeRawBufferPointer) {}
        func channelClosed(_ channel: SocketChannel, error: ChannelError?) {
            let seen = (channel.write([0]), channel.closeError)
            self.seen.withLock { $0 = seen }
        }
    }

    @Test func aWriteRefusedBeforeTheHandlerHearsOfAFailureCanTellWhy() async throws {
        let witness = CloseWitness()
        let pair = try Pair(handler: witness)
        defer { close(pair.peer) }
        pair.channel.close(error: .io(IOError(operation: "read", errno: ECONNRESET)))
        await pair.channel.waitUntilClosed()
        let seen = try #require(witness.seen.withLock { $0 })
        #expect(seen.write == .closed)
        guard case .io(let error)? = seen.reason else {
            Issue.record("expected the read's ECONNRESET, found \(String(describing: seen.reason))")
            return
        }
        #expect(error == IOError(operation: "read", errno: ECONNRESET))
    }

    @Test func aQueueTakesWhatAnotherQueueStillHoldsAfterItsOwnBytes() {
        var first = WriteQueue()
        first.append([1, 2, 3])
        var second = WriteQueue()
        second.append([4, 5, 6, 7])
        _ = second.write { buffers in buffers.isEmpty ? 0 : 1 }  // the peer took one byte
        first.append(second)
        var collected: [UInt8] = []
        _ = first.write { buffers in
            for buffer in buffers { collected += buffer }
            return collected.count
        }
        #expect(collected == [1, 2, 3, 5, 6, 7])
        #expect(first.isEmpty)
    }
}
