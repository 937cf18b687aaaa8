import ChatterBots
import ChatterSandbox
import Foundation
import TestSupport
import Testing
import WebSocket

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `/sandbox/` routes over HTTP: guarded by the client secret, and doing what the in-process admin does.
@Suite("Sandbox admin routes")
struct AdminRoutesTests {
    private func request(
        _ fixture: SandboxFixture, _ method: String, _ path: String, body: String? = nil, secret: String? = nil
    ) async throws -> (status: Int, body: Data) {
        let url = try #require(URL(string: fixture.sandbox.adminURL.absoluteString + "/" + path))
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue(fixture.sandbox.clientKey, forHTTPHeaderField: "X-Client-Key")
        request.setValue(secret ?? fixture.sandbox.clientSecret, forHTTPHeaderField: "X-Client-Secret")
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.patient.data(for: request.patient)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    @Test func createsUsersAndFriendshipsInOneCall() async throws {
        try await SandboxFixture.run { fixture in
            let seed = #"""
                {"users":[{"username":"eve","password":"long enough","displayName":"Eve"},
                          {"username":"finn","password":"long enough","lastSeen":"nobody"}],
                 "friendships":[["eve","finn"]]}
                """#
            let (status, body) = try await request(fixture, "POST", "users", body: seed)
            #expect(status == 201)
            let accounts = try JSONDecoder().decode(SeededAccounts.self, from: body)
            let eve = try #require(accounts["eve"])
            let finn = try #require(accounts["finn"])
            #expect(eve.user.displayName == "Eve" && finn.user.displayName == "finn")
            let friends = try await fixture.rest(eve.session).friends()
            #expect(friends.map(\.user.id) == [finn.user.id])
            let (client, ready, _) = try await RealtimeTestClient.signIn(accessToken: eve.session.accessToken, to: fixture.sandbox)
            #expect(ready.userId == eve.user.id)
            await client.close()
        }
    }

    @Test func theRoutesRequireTheClientSecret() async throws {
        try await SandboxFixture.run { fixture in
            let (status, body) = try await request(fixture, "GET", "pushes", secret: "cs_wrong")
            #expect(status == 401)
            #expect(try JSONDecoder().decode(ChatterErrorBody.self, from: body).code == .unauthorized)
        }
    }

    @Test func listsRecordedPushesAndInjectsFaults() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            try await fixture.rest(fixture.ben).setPushToken(SandboxFixture.pushToken(7), environment: .production)
            let ana = try await fixture.connect(fixture.ana)
            try await fixture.send("ping me", in: chat, over: ana)
            let (status, body) = try await request(fixture, "GET", "pushes?userId=\(fixture.ben.user.id)")
            #expect(status == 200)
            let list = try JSONDecoder().decode(RecordedPushList.self, from: body)
            #expect(list.pushes.map(\.payload.aps.alert.body) == ["ping me"])

            let (faultStatus, _) = try await request(
                fixture, "POST", "devices/\(fixture.ana.session.deviceId)/faults", body: #"{"type":"close","code":4321,"reason":"test"}"#)
            #expect(faultStatus == 204)
            let info = try await ana.closeInfo()
            #expect(info.code == WebSocketCloseCode(4321) && info.reason == "test")
        }
    }

    @Test func aBadBodyIsReportedExactlyAsTheRESTAPIReportsIt() async throws {
        try await SandboxFixture.run { fixture in
            let (status, body) = try await request(fixture, "POST", "users", body: #"{"users":[{"username":"eve"}]}"#)
            #expect(status == 400)
            let error = try JSONDecoder().decode(ChatterErrorBody.self, from: body)
            #expect(error.code == .validationFailed)
            #expect(error.details?["field"] == "users.0.password", "the API's dotted form, as in REST errors")
            let (emptyStatus, emptyBody) = try await request(fixture, "POST", "users")
            #expect(emptyStatus == 400)
            #expect(try JSONDecoder().decode(ChatterErrorBody.self, from: emptyBody).details?["field"] == "body")
        }
    }

    @Test func aFaultWithAFieldItDoesNotTakeIsValidationFailed() async throws {
        try await SandboxFixture.run { fixture in
            let ana = try await fixture.connect(fixture.ana)
            let (status, body) = try await request(
                fixture, "POST", "devices/\(fixture.ana.session.deviceId)/faults", body: #"{"type":"dropSocket","copies":2}"#)
            #expect(status == 400)
            #expect(try JSONDecoder().decode(ChatterErrorBody.self, from: body).details?["field"] == "copies")
            try await ana.send(.ping, id: "still-open")
            #expect(try await ana.next() == ServerFrame(.pong, replyTo: "still-open"), "the fault was not performed")
            await ana.close()
        }
    }

    /// `POST /sandbox/devices/{deviceId}/faults` with `json`; returns the status.
    private func inject(_ fixture: SandboxFixture, _ json: String, into deviceId: Device.ID) async throws -> Int {
        try await request(fixture, "POST", "devices/\(deviceId)/faults", body: json).status
    }

    @Test(arguments: [
        #"{"type":"dropSocket"}"#, #"{"type":"dropBeforeNextAck"}"#, #"{"type":"duplicateMessageNew","copies":1}"#,
        #"{"type":"loseMessageNew","count":2}"#, #"{"type":"reorderMessageNew"}"#, #"{"type":"delayAcks","milliseconds":10}"#,
        #"{"type":"duplicateEvents","types":["typing"],"copies":1}"#,
        #"{"type":"close","code":4000}"#,
        #"{"type":"expireToken"}"#, #"{"type":"revokeDevice"}"#,
    ])
    func everyFaultOnAnUnknownDeviceIsNotFound(_ json: String) async throws {
        try await SandboxFixture.run { fixture in
            let (status, body) = try await request(fixture, "POST", "devices/01JBNOSUCHDEVICE0000000000/faults", body: json)
            #expect(status == 404)
            #expect(try JSONDecoder().decode(ChatterErrorBody.self, from: body).code == .notFound)
        }
    }

    @Test func dropSocketOverHTTPEndsTheConnectionWithoutACloseFrame() async throws {
        try await SandboxFixture.run { fixture in
            let ana = try await fixture.connect(fixture.ana)
            #expect(try await inject(fixture, #"{"type":"dropSocket"}"#, into: fixture.ana.session.deviceId) == 204)
            let info = try await ana.closeInfo()
            #expect(info.code == .abnormalClosure && info.initiator == .transport)
        }
    }

    @Test func dropBeforeNextAckOverHTTPStoresTheMessageAndLosesItsAck() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ana = try await fixture.connect(fixture.ana)
            #expect(try await inject(fixture, #"{"type":"dropBeforeNextAck"}"#, into: fixture.ana.session.deviceId) == 204)
            let key = ClientMessageID.random()
            try await ana.send(SandboxFixture.text("lost ack", in: chat, key: key), id: "c-1")
            #expect(try await ana.closeInfo().code == .abnormalClosure)
            let again = try await fixture.connect(fixture.ana)
            let ack = try await fixture.send("lost ack", in: chat, over: again, key: key)
            #expect(ack.seq == 1)
            #expect(try await fixture.rest(fixture.ana).messages(in: chat, afterSeq: 0).messages.count == 1)
            await again.close()
        }
    }

    @Test func duplicateOverHTTPRepeatsMessageNewUntilTheFaultsAreDeleted() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ben = try await fixture.connect(fixture.ben)
            let ana = try await fixture.connect(fixture.ana)
            let benDevice = fixture.ben.session.deviceId
            #expect(try await inject(fixture, #"{"type":"duplicateMessageNew","copies":1}"#, into: benDevice) == 204)
            let first = try await fixture.send("twice", in: chat, over: ana)
            let copies = try await ben.framesBeforePong().compactMap(\.event.message?.id)
            #expect(copies == [first.messageId, first.messageId])

            #expect(try await request(fixture, "DELETE", "devices/\(benDevice)/faults").status == 204)
            let second = try await fixture.send("once", in: chat, over: ana)
            #expect(try await ben.framesBeforePong().compactMap(\.event.message?.id) == [second.messageId])
            await ana.close()
            await ben.close()
        }
    }

    @Test func reorderOverHTTPSwapsConsecutiveMessageNewEvents() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ben = try await fixture.connect(fixture.ben)
            let ana = try await fixture.connect(fixture.ana)
            #expect(try await inject(fixture, #"{"type":"reorderMessageNew"}"#, into: fixture.ben.session.deviceId) == 204)
            try await fixture.send("first", in: chat, over: ana)
            try await fixture.send("second", in: chat, over: ana)
            #expect(try await ben.framesBeforePong().compactMap(\.event.message?.seq) == [2, 1])
            await ana.close()
            await ben.close()
        }
    }

    @Test func delayAcksOverHTTPHoldsTheAckForTheGivenMillisecondsOfSandboxTime() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ana = try await fixture.connect(fixture.ana)
            #expect(try await inject(fixture, #"{"type":"delayAcks","milliseconds":1500}"#, into: fixture.ana.session.deviceId) == 204)
            try await ana.send(SandboxFixture.text("slow", in: chat), id: "c-1")
            #expect(try await ana.framesBeforePong().isEmpty, "no ack before the delay")
            await fixture.clock.advance(by: .milliseconds(1500))
            #expect(try await ana.next { if case .messageAck = $0 { true } else { false } }.frame.replyTo == "c-1")
            await ana.close()
        }
    }

    @Test func expireTokenAndRevokeDeviceOverHTTPCloseWith4001And4003() async throws {
        try await SandboxFixture.run { fixture in
            let ana = try await fixture.connect(fixture.ana)
            #expect(try await inject(fixture, #"{"type":"expireToken"}"#, into: fixture.ana.session.deviceId) == 204)
            #expect(try await ana.closeInfo().code == .chatterTokenInvalid)
            let ben = try await fixture.connect(fixture.ben)
            #expect(try await inject(fixture, #"{"type":"revokeDevice"}"#, into: fixture.ben.session.deviceId) == 204)
            #expect(try await ben.closeInfo().code == .chatterSessionRevoked)
        }
    }

    @Test func connectionsListTheDevicesWithAnOpenSocket() async throws {
        try await SandboxFixture.run { fixture in
            let ana = try await fixture.connect(fixture.ana)
            let (status, body) = try await request(fixture, "GET", "connections")
            #expect(status == 200)
            #expect(try JSONDecoder().decode(ConnectedDeviceList.self, from: body).deviceIds == [fixture.ana.session.deviceId])
            await ana.close()
        }
    }

    @Test func deviceEventsRecordEachSocketsOpenAndCloseWithItsCode() async throws {
        try await SandboxFixture.run { fixture in
            let ana = try await fixture.connect(fixture.ana)
            await ana.close()
            let ben = try await fixture.connect(fixture.ben)
            #expect(try await inject(fixture, #"{"type":"revokeDevice"}"#, into: fixture.ben.session.deviceId) == 204)
            _ = try await ben.closeInfo()
            // The close is recorded once the server has seen the socket end.
            #expect(await eventually(timeout: .hangGuard) {
                await fixture.sandbox.admin.socketEvents().filter { $0.kind == .closed }.count == 2
            })

            let (status, body) = try await request(
                fixture, "GET", "devices/events?deviceId=\(fixture.ana.session.deviceId.rawValue)")
            #expect(status == 200)
            let events = try JSONDecoder().decode(DeviceSocketEventList.self, from: body).events
            #expect(events.map(\.kind) == [.opened, .closed])
            #expect(events.map(\.username) == ["ana", "ana"])
            #expect(events.last?.closeCode == 1000)
            #expect(events.last?.closedBy == "client")
            #expect(events[0].socketId == events[1].socketId)

            let all = await fixture.sandbox.admin.socketEvents()
            let benClose = try #require(all.last { $0.deviceId == fixture.ben.session.deviceId && $0.kind == .closed })
            #expect(benClose.closeCode == 4003)
            #expect(benClose.closedBy == "server")
            let (_, newer) = try await request(fixture, "GET", "devices/events?afterSequence=\(all[1].sequence)")
            #expect(try JSONDecoder().decode(DeviceSocketEventList.self, from: newer).events.map(\.sequence)
                == all.dropFirst(2).map(\.sequence))
        }
    }

    @Test func aMalformedFaultIsValidationFailed() async throws {
        try await SandboxFixture.run { fixture in
            let (status, body) = try await request(
                fixture, "POST", "devices/\(fixture.ana.session.deviceId)/faults", body: #"{"type":"meteor"}"#)
            #expect(status == 400)
            let error = try JSONDecoder().decode(ChatterErrorBody.self, from: body)
            #expect(error.code == .validationFailed && error.details?["field"] == "type")
        }
    }
}
