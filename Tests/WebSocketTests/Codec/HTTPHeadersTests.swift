import Testing
@testable import WebSocket

/// HTTPHeaders: order kept, names matched without regard to case.
@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresNameCase() {
        let headers: HTTPHeaders = ["Content-Type": "text/plain"]
        #expect(headers.first(name: "content-type") == "text/plain")
        #expect(headers.contains(name: "CONTENT-TYPE"))
        #expect(headers.first(name: "Content-Length") == nil)
    }

    @Test func repeatedNamesKeepEveryValueInOrder() {
        var headers = HTTPHeaders()
        headers.add(name: "Set-Cookie", value: "a=1")
        headers.add(name: "X", value: "x")
        headers.add(name: "set-cookie", value: "b=2")
        #expect(headers["SET-COOKIE"] == ["a=1", "b=2"])
        #expect(headers.map(\.name) == ["Set-Cookie", "X", "set-cookie"])
    }

    @Test func replaceOrAddKeepsThePositionOfTheFirstAndDropsTheRest() {
        var headers: HTTPHeaders = ["A": "1", "B": "2", "a": "3"]
        headers.replaceOrAdd(name: "a", value: "new")
        #expect(headers.map(\.value) == ["new", "2"])
        headers.replaceOrAdd(name: "C", value: "4")
        #expect(headers.map(\.name) == ["A", "B", "C"])
    }

    @Test func removeDropsEveryFieldOfThatName() {
        var headers: HTTPHeaders = ["A": "1", "B": "2", "a": "3"]
        headers.remove(name: "A")
        #expect(headers.count == 1 && headers.first(name: "b") == "2")
    }

    @Test func tokenListsAreSplitTrimmedAndCaseInsensitive() {
        let headers = HTTPHeaders([("Connection", "keep-alive , Upgrade"), ("Connection", "close")])
        #expect(headers.contains(token: "upgrade", inHeader: "connection"))
        #expect(headers.contains(token: "CLOSE", inHeader: "Connection"))
        #expect(!headers.contains(token: "Upgr", inHeader: "Connection"))
    }

    @Test func equalityComparesNamesWithoutCaseAndKeepsOrder() {
        #expect(HTTPHeaders([("Host", "a"), ("X", "1")]) == HTTPHeaders([("host", "a"), ("x", "1")]))
        #expect(HTTPHeaders([("Host", "a"), ("X", "1")]) != HTTPHeaders([("X", "1"), ("Host", "a")]))
        #expect(HTTPHeaders([("X", "A")]) != HTTPHeaders([("X", "a")]))
        #expect(HTTPHeaders([("Host", "a")]).hashValue == HTTPHeaders([("HOST", "a")]).hashValue)
    }
}
