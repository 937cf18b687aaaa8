import Testing
@testable import WebSocket

@Suite("HTTP response parser")
struct HTTPResponseParserTests {
    @Test func parsesAContentLengthResponse() throws {
        var parser = HTTPResponseParser()
        parser.append(Array("HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\nnope".utf8))
        let response = try #require(try parser.nextResponse())
        #expect(response.status.code == 404)
        #expect(response.status.reasonPhrase == "Not Found")
        #expect(response.body == Array("nope".utf8))
    }

    @Test func switchingProtocolsEndsAtTheHeadersAndKeepsFrames() throws {
        var parser = HTTPResponseParser()
        parser.append(Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n".utf8) + [0x81, 0x01, 0x41])
        let response = try #require(try parser.nextResponse())
        #expect(response.status == .switchingProtocols)
        #expect(parser.takeBufferedBytes() == [0x81, 0x01, 0x41])
    }

    @Test func decodesAChunkedResponse() throws {
        var parser = HTTPResponseParser()
        parser.append(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n".utf8))
        #expect(try parser.nextResponse()?.body == Array("abc".utf8))
    }

    @Test func readsABodyUntilTheConnectionCloses() throws {
        var parser = HTTPResponseParser()
        parser.append(Array("HTTP/1.0 200 OK\r\n\r\npartial".utf8))
        #expect(try parser.nextResponse() == nil)
        parser.append(Array(" body".utf8))
        #expect(try parser.endOfInput()?.body == Array("partial body".utf8))
    }

    @Test func aResponseToHeadHasNoBody() throws {
        var parser = HTTPResponseParser()
        parser.append(Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n".utf8))
        #expect(try parser.nextResponse(to: .head)?.body == [])
    }

    @Test func reportsATruncatedResponse() throws {
        var parser = HTTPResponseParser()
        parser.append(Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc".utf8))
        #expect(try parser.nextResponse() == nil)
        #expect(throws: HTTPParseError.truncatedMessage) { try parser.endOfInput() }
    }

    @Test func refusesAMalformedStatusLine() throws {
        var parser = HTTPResponseParser()
        parser.append(Array("HTTP/1.1 2x0 OK\r\n\r\n".utf8))
        #expect(throws: HTTPParseError.malformedStatusLine) { try parser.nextResponse() }
    }

    @Test func serializedResponseCarriesContentLength() throws {
        let response = HTTPResponse(status: .created, text: "made")
        var parser = HTTPResponseParser()
        parser.append(response.serialized())
        let parsed = try #require(try parser.nextResponse())
        #expect(parsed.status == .created)
        #expect(parsed.headers.first(name: "Content-Length") == "4")
        #expect(parsed.body == Array("made".utf8))
    }
}
