import Testing
@testable import WebSocket

@Suite("HTTP request parser")
struct HTTPRequestParserTests {
    private func parse(_ text: String, limits: HTTPParserLimits = .init()) throws(HTTPParseError) -> HTTPRequest? {
        var parser = HTTPRequestParser(limits: limits)
        parser.append(Array(text.utf8))
        return try parser.nextRequest()
    }

    @Test func parsesRequestLineHeadersAndQuery() throws {
        let request = try #require(try parse("GET /v1/messages?afterSeq=4&name=a%20b HTTP/1.1\r\nHost: x\r\nX-Trace:  abc \r\n\r\n"))
        #expect(request.method == .get)
        #expect(request.path == "/v1/messages")
        #expect(request.queryValue("afterSeq") == "4")
        #expect(request.queryValue("name") == "a b")
        #expect(request.headers.first(name: "host") == "x")
        #expect(request.headers.first(name: "X-TRACE") == "abc")
        #expect(request.body.isEmpty)
    }

    @Test func waitsForTheWholeHeaderSectionFedByteByByte() throws {
        var parser = HTTPRequestParser()
        let bytes = Array("POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello".utf8)
        for byte in bytes.dropLast() {
            parser.append([byte])
            #expect(try parser.nextRequest() == nil)
        }
        parser.append([bytes.last!])
        let request = try #require(try parser.nextRequest())
        #expect(request.body == Array("hello".utf8))
    }

    @Test func returnsPipelinedRequestsInOrder() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("GET /1 HTTP/1.1\r\n\r\nPOST /2 HTTP/1.1\r\nContent-Length: 2\r\n\r\nokGET /3 HTTP/1.1\r\n\r\n".utf8))
        #expect(try parser.nextRequest()?.path == "/1")
        #expect(try parser.nextRequest()?.body == Array("ok".utf8))
        #expect(try parser.nextRequest()?.path == "/3")
        #expect(try parser.nextRequest() == nil)
    }

    @Test func keepsBytesAfterTheRequestForAnUpgrade() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("GET /ws HTTP/1.1\r\nUpgrade: websocket\r\n\r\n".utf8) + [0x81, 0x80])
        _ = try #require(try parser.nextRequest())
        #expect(parser.takeBufferedBytes() == [0x81, 0x80])
    }

    @Test func decodesAChunkedBody() throws {
        let request = try #require(try parse("POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\n"))
        #expect(String(decoding: request.body, as: UTF8.self) == "hello world")
    }

    @Test func keepAliveFollowsVersionAndConnectionHeader() throws {
        #expect(try parse("GET / HTTP/1.1\r\n\r\n")?.keepAlive == true)
        #expect(try parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n")?.keepAlive == false)
        #expect(try parse("GET / HTTP/1.0\r\n\r\n")?.keepAlive == false)
        #expect(try parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")?.keepAlive == true)
    }

    @Test func refusesAnOversizedHeaderSectionWith431() {
        let limits = HTTPParserLimits(maxHeaderBytes: 64)
        #expect(throws: HTTPParseError.headersTooLarge(limit: 64)) {
            try parse("GET / HTTP/1.1\r\nX-Long: \(String(repeating: "a", count: 100))", limits: limits)
        }
        #expect(HTTPParseError.headersTooLarge(limit: 64).status.code == 431)
    }

    @Test func refusesTooManyHeaderFieldsWith431() {
        let limits = HTTPParserLimits(maxHeaderCount: 2)
        #expect(throws: HTTPParseError.headersTooLarge(limit: limits.maxHeaderBytes)) {
            try parse("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits)
        }
    }

    @Test func refusesAnOversizedBodyBeforeReadingIt() {
        let limits = HTTPParserLimits(maxBodyBytes: 10)
        #expect(throws: HTTPParseError.bodyTooLarge(limit: 10)) {
            try parse("POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", limits: limits)
        }
        #expect(HTTPParseError.bodyTooLarge(limit: 10).status.code == 413)
    }

    @Test func refusesAnOversizedChunkedBody() {
        let limits = HTTPParserLimits(maxBodyBytes: 4)
        #expect(throws: HTTPParseError.bodyTooLarge(limit: 4)) {
            try parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", limits: limits)
        }
    }

    @Test(arguments: [
        "GET\r\n\r\n",
        "GET /  HTTP/1.1\r\n\r\n",
        "GET nopath HTTP/1.1\r\n\r\n",
        "G(T / HTTP/1.1\r\n\r\n",
        "GET / HTTX/1.1\r\n\r\n",
    ])
    func refusesMalformedRequestLinesWith400(text: String) {
        #expect(throws: HTTPParseError.malformedRequestLine) { try parse(text) }
    }

    @Test(arguments: [
        "GET / HTTP/1.1\r\nNo colon here\r\n\r\n",
        "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
        "GET / HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n",
        "GET / HTTP/1.1\r\n: empty\r\n\r\n",
    ])
    func refusesMalformedHeaderLinesWith400(text: String) {
        #expect(throws: HTTPParseError.malformedHeader) { try parse(text) }
    }

    @Test func refusesConflictingContentLengths() {
        #expect(throws: HTTPParseError.invalidContentLength) {
            try parse("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab")
        }
        #expect(throws: HTTPParseError.invalidContentLength) {
            try parse("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n")
        }
        #expect(throws: HTTPParseError.invalidContentLength) {
            try parse("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n")
        }
    }

    @Test func refusesUnknownTransferCodingsWith501() {
        #expect(throws: HTTPParseError.unsupportedTransferEncoding("gzip, chunked")) {
            try parse("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n")
        }
        #expect(HTTPParseError.unsupportedTransferEncoding("gzip").status.code == 501)
    }

    @Test func refusesOtherHTTPVersionsWith505() {
        #expect(throws: HTTPParseError.unsupportedVersion("HTTP/2.0")) { try parse("GET / HTTP/2.0\r\n\r\n") }
    }

    @Test func keepsFailingAfterAnError() {
        var parser = HTTPRequestParser()
        parser.append(Array("BAD\r\n\r\nGET / HTTP/1.1\r\n\r\n".utf8))
        #expect(throws: HTTPParseError.malformedRequestLine) { try parser.nextRequest() }
        #expect(throws: HTTPParseError.malformedRequestLine) { try parser.nextRequest() }
    }

    @Test func serializedRequestParsesBackToTheSameRequest() throws {
        let original = HTTPRequest(method: .post, target: "/x?y=1", headers: ["Host": "h", "A": "1"], body: Array("{}".utf8))
        var parser = HTTPRequestParser()
        parser.append(original.serialized())
        let parsed = try #require(try parser.nextRequest())
        #expect(parsed.method == original.method)
        #expect(parsed.target == original.target)
        #expect(parsed.headers.first(name: "A") == "1")
        #expect(parsed.headers.first(name: "Content-Length") == "2")
        #expect(parsed.body == original.body)
    }
}
