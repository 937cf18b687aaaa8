@testable import BotRuntime
import BotRuntimeTestSupport
import ChatterBots
import ChildProcesses
import Foundation
import Synchronization
import TestSupport
import Testing
import WebSocket

@Suite("the web console's HTTP routes")
struct ConsoleRoutesTests {
    let changes = ChangeSignal()
    let client = HTTPClient(configuration: .patient)

    struct Running {
        var supervisor: BotSupervisor
        var server: HealthServer
        var run: Task<SupervisorOutcome, Never>
        var origin: HTTPOrigin { HTTPOrigin(isSecure: false, host: "127.0.0.1", port: server.port) }
        var host: String { "127.0.0.1:\(server.port)" }
    }

    func start(
        token: String? = nil, bind: String = "127.0.0.1", console: Bool = true, faults: (any ConsoleFaultInjector)? = nil,
        logTail: ConsoleLogTail? = nil
    ) async throws -> Running {
        let bots: [any SupervisedBot] = [StandInSession("echo", changes: changes), StandInSession("greeter", changes: changes)]
        let supervisor = BotSupervisor(bots: bots, log: LogSink(minimumLevel: .info, output: CapturedLines(changes: changes)))
        let run = Task { await supervisor.run() }
        let server = try await HealthServer.start(
            supervisor: supervisor, reloader: nil, host: bind, port: 0, access: ControlAccess(token: token), console: console, faults: faults,
            consoleExtensions: [], logTail: logTail)
        try await changes.wait(until: { await supervisor.health().isHealthy }, "every bot to be live")
        return Running(supervisor: supervisor, server: server, run: run)
    }

    func stop(_ running: Running) async throws {
        await running.supervisor.shutdown(deadline: .seconds(1))
        _ = try await value(of: running.run, within: .hangGuard, "the supervisor's run to end")
        await running.server.shutdown()
    }

    func send(
        _ running: Running, _ method: HTTPMethod = .get, _ target: String, headers: HTTPHeaders = [:], body: String = ""
    ) async throws -> HTTPResponse {
        var request = HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8))
        if !request.headers.contains(name: "Host") { request.headers.add(name: "Host", value: running.host) }
        return try await client.send(request, to: running.origin, timeout: .hangGuard)
    }

    func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func onLoopbackWithoutATokenThePageAndTheFleetAreServed() async throws {
        let running = try await start()
        let page = try await send(running, .get, "/console/")
        #expect(page.status == .ok)
        #expect(page.headers.first(name: "Content-Type") == "text/html; charset=utf-8")
        #expect(text(page).contains("<script src=\"/console/console.js\""))
        #expect(try await send(running, .get, "/console/console.js").status == .ok)

        let fleet = try await send(running, .get, "/console/fleet")
        #expect(fleet.status == .ok)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(fleet.body)) as? [String: Any])
        let bots = try #require(json["bots"] as? [[String: Any]])
        #expect(bots.map { $0["name"] as? String } == ["echo", "greeter"])
        #expect(bots.map { $0["state"] as? String } == ["live", "live"])
        #expect(json["total"] as? Int == 2)
        try await stop(running)
    }

    @Test func thePageIsServedAtAnAddressThatNamesAPageOfTheFleet() async throws {
        let running = try await start()
        let page = try await send(running, .get, "/console/?state=live&page=2&pageSize=1")
        #expect(page.status == .ok)
        #expect(text(page).contains(#"<a id="next" rel="next""#))
        let fleet = try await send(running, .get, "/console/fleet?state=live&page=2&pageSize=1")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(fleet.body)) as? [String: Any])
        #expect((json["bots"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["greeter"])
        try await stop(running)
    }

    @Test func theConsoleIsOffUnlessConfigured() async throws {
        let running = try await start(console: false)
        let response = try await send(running, .get, "/console/")
        #expect(response.status == .notFound)
        #expect(text(response).contains("\"console\": true"))
        try await stop(running)
    }

    @Test func aWrongHostIsRefusedWith403EvenOnLoopback() async throws {
        let running = try await start()
        let response = try await send(running, .get, "/console/", headers: ["Host": "rebound.example:\(running.server.port)"])
        #expect(response.status == .forbidden)
        #expect(text(response).contains("is not this console's address"))
        try await stop(running)
    }

    @Test func aForeignOriginIsRefusedWith403() async throws {
        let running = try await start()
        let response = try await send(running, .get, "/console/fleet", headers: ["Origin": "http://evil.example"])
        #expect(response.status == .forbidden)
        #expect(text(response).contains("another site"))
        let post = try await send(running, .post, "/console/session", headers: ["Content-Type": "application/json"], body: "{}")
        #expect(post.status == .forbidden)
        try await stop(running)
    }

    @Test func offLoopbackTheFleetNeedsTheTokenOrTheSessionCookie() async throws {
        let running = try await start(token: "s3cret", bind: "0.0.0.0")
        #expect(try await send(running, .get, "/console/").status == .ok)
        let refused = try await send(running, .get, "/console/fleet")
        #expect(refused.status == .unauthorized)
        #expect(text(refused).contains("POST /console/session"))
        #expect(try await send(running, .get, "/console/events", headers: ["Cookie": "chatterbots_console_\(running.server.port)=guessed"]).status
            == .unauthorized)
        #expect(try await send(running, .get, "/console/fleet", headers: ["Authorization": "Bearer s3cret"]).status == .ok)
        try await stop(running)
    }

    @Test func theSessionCookieIsNamedForItsPortAndAnotherPortsCookieOpensNothing() async throws {
        let running = try await start(token: "s3cret")
        let origin: HTTPHeaders = ["Origin": "http://\(running.host)", "Content-Type": "application/json"]
        let opened = try await send(running, .post, "/console/session", headers: origin, body: #"{"token":"s3cret"}"#)
        let cookie = try #require(opened.headers.first(name: "Set-Cookie"))
        #expect(cookie.hasPrefix("chatterbots_console_\(running.server.port)="))
        let pair = try #require(cookie.split(separator: ";").first)
        let value = try #require(pair.split(separator: "=", maxSplits: 1).last)
        let elsewhere = "chatterbots_console_\(running.server.port + 1)=\(value)"
        #expect(try await send(running, .get, "/console/fleet", headers: ["Cookie": elsewhere]).status == .unauthorized)
        try await stop(running)
    }

    @Test func theTokenOpensACookieSessionThatTheFleetAccepts() async throws {
        let running = try await start(token: "s3cret")
        let origin: HTTPHeaders = ["Origin": "http://\(running.host)", "Content-Type": "application/json"]
        let wrong = try await send(running, .post, "/console/session", headers: origin, body: #"{"token":"nope"}"#)
        #expect(wrong.status == .unauthorized)
        #expect(wrong.headers.first(name: "Set-Cookie") == nil)

        let opened = try await send(running, .post, "/console/session", headers: origin, body: #"{"token":"s3cret"}"#)
        #expect(opened.status == .noContent)
        let cookie = try #require(opened.headers.first(name: "Set-Cookie"))
        #expect(cookie.hasSuffix("; HttpOnly; SameSite=Strict; Path=/console"))
        let pair = try #require(cookie.split(separator: ";").first.map(String.init))
        #expect(try await send(running, .get, "/console/fleet", headers: ["Cookie": pair]).status == .ok)
        #expect(try await send(running, .get, "/quarantine", headers: ["Cookie": pair]).status == .unauthorized)

        let form = try await send(
            running, .post, "/console/session",
            headers: ["Origin": "http://\(running.host)", "Content-Type": "application/x-www-form-urlencoded"], body: "token=s3cret")
        #expect(form.status == .noContent)
        try await stop(running)
    }

    @Test func aFormTokenWithAStrayPercentSignIsRefusedWithoutCrashing() async throws {
        let running = try await start(token: "s3cret")
        let form: HTTPHeaders = ["Origin": "http://\(running.host)", "Content-Type": "application/x-www-form-urlencoded"]
        let stray = try await send(running, .post, "/console/session", headers: form, body: "token=100%")
        #expect(stray.status == .badRequest)
        #expect(text(stray).contains("write a literal % as %25"))
        #expect(stray.headers.first(name: "Set-Cookie") == nil)
        #expect(try await send(running, .post, "/console/session", headers: form, body: "token=s3cret").status == .noContent)
        try await stop(running)
    }

    @Test func aFormTokenIsReadWithPlusAsASpaceAndPercentEscapesDecoded() async throws {
        let running = try await start(token: "s3 cr+t%")
        let form: HTTPHeaders = ["Origin": "http://\(running.host)", "Content-Type": "application/x-www-form-urlencoded"]
        let opened = try await send(running, .post, "/console/session", headers: form, body: "other=1&token=s3+cr%2Bt%25")
        #expect(opened.status == .noContent)
        try await stop(running)
    }

    @Test func badInputGetsA4xxThatSaysWhatToSend() async throws {
        let running = try await start(token: "s3cret")
        let bearer: HTTPHeaders = ["Authorization": "Bearer s3cret"]
        let state = try await send(running, .get, "/console/fleet?state=flying", headers: bearer)
        #expect(state.status == .badRequest)
        #expect(text(state).contains("is not a bot state; use one of"))
        #expect(try await send(running, .get, "/console/fleet?pageSize=0", headers: bearer).status == .badRequest)

        let origin = "http://\(running.host)"
        let plain = try await send(running, .post, "/console/session", headers: ["Origin": origin, "Content-Type": "text/plain"], body: "s3cret")
        #expect(plain.status == .badRequest)
        #expect(text(plain).contains("send the token as JSON"))
        let empty = try await send(running, .post, "/console/session", headers: ["Origin": origin, "Content-Type": "application/json"], body: "{}")
        #expect(empty.status == .badRequest)
        #expect(try await send(running, .get, "/console/session").status == .methodNotAllowed)
        #expect(try await send(running, .get, "/console/nothing-here").status == .notFound)
        try await stop(running)
    }

    @Test func faultsNeedTheSandboxAValidFaultAndASignedInBot() async throws {
        let post: HTTPHeaders = ["Content-Type": "application/json"]
        let without = try await start()
        var headers = post
        headers.add(name: "Origin", value: "http://\(without.host)")
        let noSandbox = try await send(without, .post, "/console/faults", headers: headers, body: #"{"bot":"echo","fault":"rateLimit"}"#)
        #expect(noSandbox.status == HTTPStatus(code: 409))
        #expect(text(noSandbox).contains("embedded sandbox"))
        try await stop(without)

        let running = try await start(faults: RefusingFaults())
        headers = post
        headers.add(name: "Origin", value: "http://\(running.host)")
        let fleet = try await send(running, .get, "/console/fleet")
        #expect(text(fleet).contains(#""faults":["dropSocket","#))
        let unknown = try await send(running, .post, "/console/faults", headers: headers, body: #"{"bot":"echo","fault":"meteor"}"#)
        #expect(unknown.status == .badRequest)
        #expect(text(unknown).contains("rateLimit"))
        let noBot = try await send(running, .post, "/console/faults", headers: headers, body: #"{"bot":"nobody","fault":"rateLimit"}"#)
        #expect(noBot.status == .badRequest)
        let notSignedIn = try await send(running, .post, "/console/faults", headers: headers, body: #"{"bot":"echo","fault":"rateLimit"}"#)
        #expect(notSignedIn.status == HTTPStatus(code: 409))
        #expect(text(notSignedIn).contains("has not signed in yet"))
        try await stop(running)
    }

    @Test func theAboutRouteSaysWhatThisConsoleOffers() async throws {
        let running = try await start(faults: RefusingFaults())
        let about = try await send(running, .get, "/console/about")
        #expect(about.status == .ok)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(about.body)) as? [String: Any])
        #expect(json["fleet"] as? Bool == true)
        #expect(json["logs"] as? Bool == false)
        #expect(json["chat"] as? Bool == false)
        #expect(json["faults"] as? [String] == ConsoleFault.allCases.map(\.rawValue))
        try await stop(running)
    }

    @Test func aConsoleWithoutAFleetServesNoFleetAndHitsSandboxUsersByNameOrEveryone() async throws {
        let faults = RecordingFaults()
        let routes = ConsoleRoutes(
            supervisor: nil, access: ConsoleAccess(control: ControlAccess(token: nil)), bind: "127.0.0.1", faults: faults,
            faultTargets: NamedUsers(connected: ["alice": User.ID("U-ALICE")]))
        let console = try await BareConsole.start(routes)
        func send(_ method: HTTPMethod, _ target: String, body: String = "") async throws -> HTTPResponse {
            try await console.send(method, target, headers: ["Content-Type": "application/json"], body: body)
        }
        let fleet = try await send(.get, "/console/fleet")
        #expect(fleet.status == .notFound)
        #expect(text(fleet).contains("runs no bots"))
        #expect(text(try await send(.get, "/console/about")).contains(#""fleet":false"#))
        #expect(text(try await send(.get, "/console/faults")).contains(#""users":["alice"]"#))
        let hit = try await send(.post, "/console/faults", body: #"{"user":"alice","fault":"dropSocket"}"#)
        #expect(hit.status == .ok)
        #expect(faults.injected.withLock { $0 } == [Injected(fault: .dropSocket, userId: User.ID("U-ALICE"))])
        let nobody = try await send(.post, "/console/faults", body: #"{"user":"mallory","fault":"dropSocket"}"#)
        #expect(nobody.status == .badRequest)
        #expect(text(nobody).contains("no user mallory"))
        let aBot = try await send(.post, "/console/faults", body: #"{"bot":"echo","fault":"dropSocket"}"#)
        #expect(aBot.status == .badRequest)
        #expect(text(aBot).contains("runs no bots"))
        let restart = try await send(.post, "/console/faults", body: #"{"fault":"restartServer"}"#)
        #expect(restart.status == .ok)
        #expect(faults.injected.withLock { $0.last } == Injected(fault: .restartServer, userId: nil))
        await console.server.shutdown()
    }

    @Test func aGetThatActsForAUserAnswersOnlyTheConsolesOwnPageOrTheToken() async throws {
        let open = try await BareConsole.start(ConsoleRoutes(
            supervisor: nil, access: ConsoleAccess(control: ControlAccess(token: nil)), bind: "127.0.0.1",
            extensions: [ActingRoutes()]))
        let refused = try await open.send(.get, "/console/acting/act")
        #expect(refused.status == .forbidden)
        #expect(text(refused).contains("acts for a test user"))
        #expect(try await open.send(.get, "/console/acting/act", headers: ["Sec-Fetch-Site": "same-origin"]).status == .ok)
        #expect(try await open.send(.get, "/console/acting/look").status == .ok)
        await open.server.shutdown()

        let guarded = try await BareConsole.start(ConsoleRoutes(
            supervisor: nil, access: ConsoleAccess(control: ControlAccess(token: "t0ken")), bind: "127.0.0.1",
            extensions: [ActingRoutes()]))
        #expect(try await guarded.send(.get, "/console/acting/act", headers: ["Authorization": "Bearer t0ken"]).status == .ok)
        await guarded.server.shutdown()
    }

    @Test func theChatNeedsTheEmbeddedSandbox() async throws {
        let running = try await start()
        let response = try await send(running, .get, "/console/chat")
        #expect(response.status == HTTPStatus(code: 409))
        #expect(text(response).contains("embedded sandbox"))
        try await stop(running)
    }

    @Test func theLogTailStreamsTheRecordsOfOneBotRedactedAsLogged() async throws {
        let tail = ConsoleLogTail()
        let log = LogSink.discarding.teeing { tail.record($0) }
        var sink = log
        sink.minimumLevel = .trace
        sink.registerSecret("hunter2")
        sink.log(.info, "signed in with hunter2", bot: "greeter", trace: "t-1")
        sink.log(.info, "sent the reply", bot: "echo", trace: "t-2")
        let running = try await start(logTail: tail)
        #expect(try await send(running, .get, "/console/logs?level=debug").status == .badRequest)
        let curl = try ChildProcess(
            ["curl", "-sN", "http://127.0.0.1:\(running.server.port)/console/logs?bot=greeter"], mergingStandardError: true)
        var lines: [String] = []
        while let line = try await curl.nextLine(timeout: .hangGuard) {
            lines.append(line)
            if line.hasPrefix("data: ") && line.contains("trace") { break }
        }
        curl.kill()
        _ = await curl.termination()
        #expect(lines.contains("event: logs"))
        let record = try #require(lines.last)
        #expect(record.contains(#""trace":"t-1""#))
        #expect(record.contains("[REDACTED]") && !record.contains("hunter2"))
        #expect(!lines.contains { $0.contains("sent the reply") })
        try await stop(running)
    }

    @Test func aBurstOfLogRecordsReachesThePageInOrderInFullBatchesOnceTheFlushIntervalPasses() async throws {
        let clock = ManualClock()
        let tail = ConsoleLogTail(clock: clock)
        var log = LogSink.discarding.teeing { tail.record($0) }
        log.minimumLevel = .trace
        let running = try await start(logTail: tail)
        let curl = try ChildProcess(
            ["curl", "-sN", "http://127.0.0.1:\(running.server.port)/console/logs?bot=echo"], mergingStandardError: true)
        while let line = try await curl.nextLine(timeout: .hangGuard), line != "event: ready" {}
        for index in 0..<600 { log.log(.info, "record \(index)", bot: "echo") }
        // The first record set the page gathering; the whole burst is in before the flush interval passes.
        try await clock.waitForSleepers(1)
        await clock.advance(by: ConsoleLogPart.flushInterval)
        var batches: [[String]] = []
        while batches.joined().count < 600, let line = try await curl.nextLine(timeout: .hangGuard) {
            guard line.hasPrefix("data: ["),
                  let records = try JSONSerialization.jsonObject(with: Data(line.dropFirst("data: ".count).utf8)) as? [[String: Any]]
            else { continue }
            batches.append(records.compactMap { $0["message"] as? String })
        }
        curl.kill()
        _ = await curl.termination()
        #expect(batches.joined().elementsEqual((0..<600).map { "record \($0)" }))
        // Gathered in one flush, the burst fills events of `batchSize` records and one with the rest, not one each.
        let size = ConsoleLogPart.batchSize
        #expect(batches.map(\.count) == [size, size, 600 - 2 * size])
        try await stop(running)
    }

    /// `GET /console/stream` read with curl: its id (from `ready`), and its events as they come.
    struct PageStream {
        let curl: ChildProcess
        let id: String

        static func open(port: Int) async throws -> PageStream {
            let curl = try ChildProcess(["curl", "-sN", "http://127.0.0.1:\(port)/console/stream"], mergingStandardError: true)
            let ready = try await PageStream(curl: curl, id: "").next()
            let object = try JSONSerialization.jsonObject(with: Data(ready.data.utf8)) as? [String: Any]
            guard ready.name == "ready", let id = object?["stream"] as? String else {
                throw ProcessTestError("the stream began with \(ready.name) \(ready.data), not its ready event")
            }
            return PageStream(curl: curl, id: id)
        }

        /// The next event (comments skipped).
        func next() async throws -> (name: String, data: String) {
            var name = ""
            while let line = try await curl.nextLine(timeout: .hangGuard) {
                if line.hasPrefix("event: ") { name = String(line.dropFirst("event: ".count)) }
                if line.hasPrefix("data: "), !name.isEmpty { return (name, String(line.dropFirst("data: ".count))) }
            }
            throw ProcessTestError("the stream ended")
        }

        /// The events up to and including the first that `found` accepts.
        func events(until found: (String, String) -> Bool) async throws -> [(name: String, data: String)] {
            var events: [(name: String, data: String)] = []
            repeat { events.append(try await next()) } while !found(events[events.count - 1].name, events[events.count - 1].data)
            return events
        }

        func close() async {
            curl.kill()
            _ = await curl.termination()
        }
    }

    func choose(_ running: Running, _ body: String) async throws -> HTTPResponse {
        try await send(running, .post, "/console/stream", headers: ["Origin": "http://\(running.host)", "Content-Type": "application/json"], body: body)
    }

    @Test func thePagesOneStreamCarriesTheFleetAndTheLogItChooses() async throws {
        let tail = ConsoleLogTail()
        var log = LogSink.discarding.teeing { tail.record($0) }
        log.minimumLevel = .trace
        log.log(.info, "signed in", bot: "greeter")
        let running = try await start(logTail: tail)
        let stream = try await PageStream.open(port: running.server.port)
        let chosen = try await choose(running, #"{"stream": "\#(stream.id)", "fleet": {"state": "live"}, "logs": {"bot": "greeter"}}"#)
        #expect(chosen.status == .noContent, "\(text(chosen))")
        var seen: [String: String] = [:]
        while seen["fleet"] == nil || seen["logs"] == nil {
            let event = try await stream.next()
            seen[event.name] = event.data
        }
        let fleet = try #require(seen["fleet"].flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect((fleet["bots"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["echo", "greeter"])
        #expect(seen["logs"]?.contains(#""message":"signed in""#) == true)
        await stream.close()
        try await stop(running)
    }

    @Test func aNewChoiceOfAPartReplacesTheOldOneOnTheStream() async throws {
        let tail = ConsoleLogTail()
        var log = LogSink.discarding.teeing { tail.record($0) }
        log.minimumLevel = .trace
        let running = try await start(logTail: tail)
        let stream = try await PageStream.open(port: running.server.port)
        #expect(try await choose(running, #"{"stream": "\#(stream.id)", "logs": {"bot": "echo"}}"#).status == .noContent)
        _ = try await stream.events { name, _ in name == "logs-ready" }
        #expect(try await choose(running, #"{"stream": "\#(stream.id)", "logs": {"bot": "greeter"}}"#).status == .noContent)
        _ = try await stream.events { name, _ in name == "logs-ready" }
        log.log(.info, "from echo", bot: "echo")
        log.log(.info, "from greeter", bot: "greeter")
        let events = try await stream.events { name, data in name == "logs" && data.contains("from greeter") }
        #expect(!events.contains { $0.data.contains("from echo") })
        await stream.close()
        try await stop(running)
    }

    @Test func aChoiceTheStreamCannotCarryGetsA4xxThatSaysWhatToSend() async throws {
        let running = try await start(logTail: ConsoleLogTail())
        let stream = try await PageStream.open(port: running.server.port)
        let gone = try await choose(running, #"{"stream": "nope", "logs": {}}"#)
        #expect(gone.status == .notFound)
        #expect(text(gone).contains("open GET /console/stream"))
        let part = try await choose(running, #"{"stream": "\#(stream.id)", "weather": {}}"#)
        #expect(part.status == .badRequest)
        #expect(text(part).contains("its parts: fleet, logs"))
        let state = try await choose(running, #"{"stream": "\#(stream.id)", "fleet": {"state": "flying"}}"#)
        #expect(state.status == .badRequest)
        #expect(text(state).contains("is not a bot state"))
        let filter = try await choose(running, #"{"stream": "\#(stream.id)", "logs": {"level": "debug"}}"#)
        #expect(filter.status == .badRequest)
        #expect(text(filter).contains("use bot and trace"))
        let notAnObject = try await choose(running, #"{"stream": "\#(stream.id)", "logs": "echo"}"#)
        #expect(text(notAnObject).contains("null to stop it"))
        #expect(try await choose(running, #"{"logs": {}}"#).status == .badRequest)
        #expect(try await send(running, .get, "/console/stream?bot=echo").status == .badRequest)
        #expect(try await send(running, .put, "/console/stream", headers: ["Origin": "http://\(running.host)"]).status == .methodNotAllowed)
        await stream.close()
        try await stop(running)
    }

    @Test func aStreamPartThatActsForAUserIsChosenOnlyByThePageOrWithTheToken() async throws {
        let console = try await BareConsole.start(ConsoleRoutes(
            supervisor: nil, access: ConsoleAccess(control: ControlAccess(token: nil)), bind: "127.0.0.1",
            extensions: [ActingRoutes()]))
        let stream = try await PageStream.open(port: console.server.port)
        let body = #"{"stream": "\#(stream.id)", "acting": {}}"#
        let refused = try await console.send(.post, "/console/stream", headers: ["Content-Type": "application/json"], body: body)
        #expect(refused.status == .forbidden)
        #expect(text(refused).contains("acts for a test user"))
        let page = try await console.send(
            .post, "/console/stream", headers: ["Content-Type": "application/json", "Sec-Fetch-Site": "same-origin"], body: body)
        #expect(page.status == .noContent)
        #expect(try await stream.next().name == "acting-done", "an extension's event, named after its part")
        await stream.close()
        await console.server.shutdown()
    }

    @Test func theEventStreamSendsTheFleetAtOnce() async throws {
        let running = try await start()
        let curl = try ChildProcess(["curl", "-sN", "http://127.0.0.1:\(running.server.port)/console/events?state=live"], mergingStandardError: true)
        var lines: [String] = []
        while let line = try await curl.nextLine(timeout: .hangGuard) {
            lines.append(line)
            if line.hasPrefix("data: ") { break }
        }
        #expect(lines.first == "event: fleet")
        let data = try #require(lines.last?.dropFirst("data: ".count))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
        #expect((json["bots"] as? [[String: Any]])?.map { $0["name"] as? String } == ["echo", "greeter"])
        curl.kill()
        _ = await curl.termination()
        try await stop(running)
    }
}

/// A fault injector that only refuses: the stand-in bots never sign in, so it is never reached.
private struct RefusingFaults: ConsoleFaultInjector {
    func inject(_ fault: ConsoleFault, into userId: User.ID?) async throws(ConsoleInputError) {
        throw ConsoleInputError("not expected in this test")
    }
}

private struct Injected: Equatable {
    var fault: ConsoleFault
    var userId: User.ID?
}

/// A fault injector that records what it was asked to do.
private final class RecordingFaults: ConsoleFaultInjector {
    let injected = Mutex<[Injected]>([])

    func inject(_ fault: ConsoleFault, into userId: User.ID?) async throws(ConsoleInputError) {
        injected.withLock { $0.append(Injected(fault: fault, userId: userId)) }
    }
}

/// Sandbox users by username, all connected.
private struct NamedUsers: ConsoleFaultTargets {
    var connected: [String: User.ID]

    func connectedUsernames() async -> [String] { connected.keys.sorted() }

    func userId(ofUsername username: String) async throws(ConsoleInputError) -> User.ID {
        guard let id = connected[username] else { throw ConsoleInputError("the sandbox has no user \(username)") }
        return id
    }
}

/// Console routes served alone on loopback, requests sent with the console's own Host and Origin.
private struct BareConsole {
    let server: HTTPServer
    let client = HTTPClient(configuration: .patient)

    static func start(_ routes: ConsoleRoutes) async throws -> BareConsole {
        let server = try await HTTPServer.start(host: "127.0.0.1", port: 0) { await routes.respond(to: $0) }
        routes.serve(onPort: server.port)
        return BareConsole(server: server)
    }

    func send(_ method: HTTPMethod, _ target: String, headers extra: HTTPHeaders = [:], body: String = "") async throws -> HTTPResponse {
        let host = "127.0.0.1:\(server.port)"
        var headers: HTTPHeaders = ["Host": host, "Origin": "http://\(host)"]
        for (name, value) in extra { headers.add(name: name, value: value) }
        return try await client.send(
            HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8)),
            to: HTTPOrigin(isSecure: false, host: "127.0.0.1", port: server.port), timeout: .hangGuard)
    }
}

/// An extension whose `act` route acts for someone and whose `look` route does not.
private struct ActingRoutes: ConsoleRouteExtension {
    let prefix = "/console/acting"

    func respond(to request: HTTPRequest) async -> HTTPServerResponse {
        .response(HTTPResponse(status: .ok, text: "done\n"))
    }

    func acts(_ request: HTTPRequest) -> Bool { request.path == prefix + "/act" }

    var streamParts: [any ConsoleStreamPart] { [ActingPart()] }
}

/// A stream part that acts for someone and sends one `done` event.
private struct ActingPart: ConsoleStreamPart {
    let name = "acting"
    let acts = true

    func feed(for choice: [String: Any]) throws(ConsoleInputError) -> ConsoleStreamFeed {
        { events in _ = await events.send(events.event("done", Array("{}".utf8))) }
    }
}
