import Foundation
import Glibc
import Synchronization
import Testing
@testable import WebSocket

/// When the system refuses the event loops (no descriptor left), the call that needed them throws a typed error
/// saying what to do, and the process keeps running.
@Suite("Event loops that cannot start")
struct EventLoopStartTests {
    /// A group whose loops fail to start the way `epoll_create1` fails with RLIMIT_NOFILE reached.
    static func exhaustedGroup() -> EventLoopGroup {
        EventLoopGroup(startingOnFirstUse: 2) { _ throws(IOError) in
            throw IOError(operation: "epoll_create1", errno: EMFILE)
        }
    }

    @Test func connectThrowsEventLoopUnavailableWithTheErrnoAndTheAdvice() async throws {
        let configuration = WebSocketClientConfiguration(eventLoopGroup: Self.exhaustedGroup())
        let url = try #require(URL(string: "ws://127.0.0.1:9/"))
        do throws(WebSocketError) {
            _ = try await WebSocketClient.connect(to: url, configuration: configuration)
            Issue.record("connect succeeded without event loops")
        } catch {
            guard case .eventLoopUnavailable(let cause) = error else {
                Issue.record("expected eventLoopUnavailable, got \(error)")
                return
            }
            #expect(cause == EventLoopStartError(operation: "epoll_create1", errno: EMFILE))
            #expect(error.description.contains("RLIMIT_NOFILE"))
        }
    }

    @Test func serverStartThrowsEventLoopUnavailable() async throws {
        let configuration = HTTPServerConfiguration(eventLoopGroup: Self.exhaustedGroup())
        do throws(HTTPServerError) {
            let server = try await HTTPServer.start(configuration: configuration) { _ in
                .response(HTTPResponse(status: .notFound, text: "no"))
            }
            await server.shutdown()
            Issue.record("the server started without event loops")
        } catch {
            #expect(error == .eventLoopUnavailable(EventLoopStartError(operation: "epoll_create1", errno: EMFILE)))
        }
    }

    @Test func aProcessWithNoDescriptorLeftGetsEventLoopUnavailableNotACrash() async {
        // A real refusal, in a child process (an exit test): lowering RLIMIT_NOFILE here would starve the tests
        // running alongside.
        await #expect(processExitsWith: .success) {
            // The lowest free descriptor: every one below it is taken, so with the limit at its number the next
            // epoll_create1 finds none left.
            let lowest = open("/dev/null", O_RDONLY)
            guard lowest >= 0 else { exit(3) }
            close(lowest)
            var limit = rlimit()
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
            limit.rlim_cur = rlim_t(lowest)
            guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { exit(4) }
            let group = EventLoopGroup(startingOnFirstUse: 2)
            do throws(WebSocketError) {
                try group.start()
                exit(1)
            } catch {
                guard case .eventLoopUnavailable(let cause) = error, cause.errno == EMFILE else { exit(2) }
            }
        }
    }

    @Test func aGroupThatFailedToStartStartsOnTheNextCallAndStopsTheLoopsItHadMade() throws {
        let attempts = Mutex(0)
        let made = Mutex<[EventLoop]>([])
        // The first attempt makes one loop, then the second loop's eventfd is refused.
        let group = EventLoopGroup(startingOnFirstUse: 2) { name throws(IOError) in
            let attempt = attempts.withLock { count -> Int in
                count += 1
                return count
            }
            if attempt == 2 { throw IOError(operation: "eventfd", errno: EMFILE) }
            let loop = try EventLoop(name: name)
            made.withLock { $0.append(loop) }
            return loop
        }
        #expect(throws: WebSocketError.self) { try group.start() }
        let first = try #require(made.withLock { $0.first })
        #expect(first.isStopped)
        try group.start()
        let loops = [try group.next(), try group.next()]
        #expect(loops.allSatisfy { !$0.isStopped })
        #expect(loops[0] !== loops[1])
        group.shutdown()
    }

    @Test func aShutDownGroupRefusesNewSockets() async throws {
        let group = try EventLoopGroup(threadCount: 1)
        group.shutdown()
        let configuration = WebSocketClientConfiguration(eventLoopGroup: group)
        let url = try #require(URL(string: "ws://127.0.0.1:9/"))
        do throws(WebSocketError) {
            _ = try await WebSocketClient.connect(to: url, configuration: configuration)
            Issue.record("connect succeeded on a shut-down group")
        } catch {
            guard case .eventLoopGroupShutDown = error else {
                Issue.record("expected eventLoopGroupShutDown, got \(error)")
                return
            }
        }
    }
}
