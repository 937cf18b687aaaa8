import Foundation
import Glibc
import Synchronization
import Testing
@testable import WebSocket

/// The order of a loop's turn: what the turn's input starts runs before the timers due in the same turn.
@Suite("Event loop turns")
struct EventLoopTurnTests {
    /// What ran, in order, from any thread.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    /// At each readiness, reads the byte the test wrote (so that the socket is quiet again) and queues the work that
    /// records it.
    final class Reader: EventLoopSelectable {
        let fd: Int32
        let loop: EventLoop
        let order: Lines

        init(fd: Int32, loop: EventLoop, order: Lines) {
            self.fd = fd
            self.loop = loop
            self.order = order
        }

        func selectableReadable() {
            var byte: UInt8 = 0
            _ = read(fd, &byte, 1)
            // As a connection's reader does: the frame is handled by work the readiness queues on the loop.
            loop.execute { [order] in order.append("input") }
        }

        func selectableWritable() {}
    }

    @Test func inputReadInTheTurnATimerFallsDueIsHandledBeforeTheTimer() async throws {
        let group = try EventLoopGroup(threadCount: 1)
        defer { group.shutdown() }
        let loop = try #require(try group.nextTaskExecutor() as? EventLoop)
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let order = Lines()
        let reader = Reader(fd: ends[0], loop: loop, order: order)
        let token = try loop.register(fd: ends[0], events: EpollEvents.input, reader)
        defer { loop.deregister(fd: ends[0], token: token) }
        let writer = ends[1]
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.execute {
                // After this turn's timers ran: the timer is set, the input arrives and the deadline passes before
                // the next poll, which finds both at once.
                loop.atEndOfTurn {
                    let timer = loop.scheduleTimer(in: .milliseconds(20)) {
                        order.append("timer")
                        done.resume()
                    }
                    var byte: UInt8 = 1
                    _ = write(writer, &byte, 1)
                    while MonotonicTime.now() < timer.deadline {}
                }
            }
        }
        #expect(order.all == ["input", "timer"])
    }

    @Test func endOfTurnWorkRunsOnceInOrderWithWhatItAddsAndAgainInLaterTurns() async throws {
        let group = try EventLoopGroup(threadCount: 1)
        defer { group.shutdown() }
        let loop = try #require(try group.nextTaskExecutor() as? EventLoop)
        let order = Lines()
        for turn in 1...3 {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                loop.execute {
                    loop.atEndOfTurn {
                        order.append("\(turn)a")
                        loop.atEndOfTurn {
                            order.append("\(turn)c")
                            done.resume()
                        }
                    }
                    loop.atEndOfTurn { order.append("\(turn)b") }
                }
            }
        }
        #expect(order.all == ["1a", "1b", "1c", "2a", "2b", "2c", "3a", "3b", "3c"])
    }
}
