@testable import BotRuntime
import Testing
import WebSocket

@Suite("the console's Host and Origin check")
struct ConsoleRequestCheckTests {
    func request(_ method: HTTPMethod = .get, host: String?, origin: String? = nil, fetchSite: String? = nil) -> HTTPRequest {
        var headers: HTTPHeaders = [:]
        if let host { headers.add(name: "Host", value: host) }
        if let origin { headers.add(name: "Origin", value: origin) }
        if let fetchSite { headers.add(name: "Sec-Fetch-Site", value: fetchSite) }
        return HTTPRequest(method: method, target: "/console/fleet", headers: headers)
    }

    let loopback = ConsoleRequestCheck(bind: "127.0.0.1", port: 8080)

    @Test func aLoopbackBindAcceptsLoopbackNamesWithItsPort() {
        for host in ["127.0.0.1:8080", "localhost:8080", "[::1]:8080", "LOCALHOST:8080"] {
            #expect(loopback.refusal(of: request(host: host)) == nil, "\(host)")
        }
    }

    @Test func aForeignNameIsRefusedAgainstDNSRebinding() throws {
        let refusal = try #require(loopback.refusal(of: request(host: "attacker.example:8080")))
        #expect(refusal.contains("Host attacker.example:8080 is not this console's address"))
    }

    @Test func aNameThatMerelyBeginsWithALoopbackNumberIsRefused() {
        for host in ["127.attacker.example:8080", "127.0.0.1.attacker.example:8080", "127.+0.0.1:8080", "127.0.0.256:8080"] {
            #expect(loopback.refusal(of: request(host: host, origin: "http://\(host)")) != nil, "\(host)")
        }
        #expect(loopback.refusal(of: request(host: "127.0.0.2:8080")) == nil)
    }

    @Test func aRequestTheBrowserMarksAsFromAnotherSiteIsRefusedEvenAGet() throws {
        let refusal = try #require(loopback.refusal(of: request(host: "127.0.0.1:8080", fetchSite: "cross-site")))
        #expect(refusal.contains("Sec-Fetch-Site: cross-site"))
        #expect(loopback.refusal(of: request(host: "127.0.0.1:8080", fetchSite: "same-site")) != nil)
        #expect(loopback.refusal(of: request(host: "127.0.0.1:8080", fetchSite: "same-origin")) == nil)
        #expect(loopback.refusal(of: request(host: "127.0.0.1:8080", fetchSite: "none")) == nil)
    }

    @Test func anotherPortOrNoHostIsRefused() {
        #expect(loopback.refusal(of: request(host: "127.0.0.1:9090")) != nil)
        #expect(loopback.refusal(of: request(host: "127.0.0.1")) != nil)
        #expect(loopback.refusal(of: request(host: nil)) != nil)
    }

    @Test func aForeignOriginIsRefusedAndTheSameOriginAccepted() throws {
        let refusal = try #require(loopback.refusal(of: request(host: "127.0.0.1:8080", origin: "http://evil.example")))
        #expect(refusal.contains("Origin http://evil.example is another site"))
        #expect(loopback.refusal(of: request(host: "127.0.0.1:8080", origin: "http://localhost:8080")) != nil)
        #expect(loopback.refusal(of: request(host: "127.0.0.1:8080", origin: "null")) != nil)
        #expect(loopback.refusal(of: request(.post, host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080")) == nil)
    }

    @Test func aRequestThatChangesSomethingMustCarryAnOrigin() throws {
        let refusal = try #require(loopback.refusal(of: request(.post, host: "127.0.0.1:8080")))
        #expect(refusal.contains("must carry an Origin header"))
    }

    @Test func aWildcardBindAcceptsAddressesButNotNames() {
        let wildcard = ConsoleRequestCheck(bind: "0.0.0.0", port: 80)
        #expect(wildcard.refusal(of: request(host: "192.168.1.20")) == nil)
        #expect(wildcard.refusal(of: request(host: "[fd00::1]:80")) == nil)
        #expect(wildcard.refusal(of: request(host: "bots.example")) != nil)
    }

    @Test func aBindToOneAddressAcceptsOnlyThatAddress() {
        let one = ConsoleRequestCheck(bind: "10.0.0.5", port: 8080)
        #expect(one.refusal(of: request(host: "10.0.0.5:8080")) == nil)
        #expect(one.refusal(of: request(host: "127.0.0.1:8080")) != nil)
    }
}
