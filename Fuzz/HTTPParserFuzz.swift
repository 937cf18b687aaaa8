// libFuzzer target: the HTTP/1.1 request parser (what the server reads before any upgrade) and the response parser
// (what a client reads during the WebSocket handshake), fed arbitrary bytes.
//
// Input layout: byte 0 chooses the parser (bit 0: request or response) and the read size (bits 1-5: 1...32 bytes,
// or everything at once when 0). Small limits make the 413/431 paths reachable with short inputs.
//
// Besides "no crash, no hang", it checks for any input:
// - the parser keeps reporting its first error;
// - a request it accepts (without Transfer-Encoding) serializes to bytes that parse to a request serializing to
//   the same bytes;
// - upgrade validation and query decoding of an accepted request never trap.

import WebSocket

@_cdecl("LLVMFuzzerTestOneInput")
public func httpParserFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    guard let control = input.first else { return 0 }
    let chunkSize = Int((control >> 1) & 0x1F)
    let bytes = Array(input.dropFirst())
    let limits = HTTPParserLimits(maxHeaderBytes: 2048, maxHeaderCount: 32, maxBodyBytes: 4096)
    if control & 1 == 0 {
        fuzzRequests(bytes, chunkSize: chunkSize, limits: limits)
    } else {
        fuzzResponses(bytes, chunkSize: chunkSize, limits: limits)
    }
    return 0
}

private func chunks(of bytes: [UInt8], size: Int) -> [ArraySlice<UInt8>] {
    guard size > 0 else { return [bytes[...]] }
    return stride(from: 0, to: bytes.count, by: size).map { bytes[$0..<min($0 + size, bytes.count)] }
}

private func fuzzRequests(_ bytes: [UInt8], chunkSize: Int, limits: HTTPParserLimits) {
    var parser = HTTPRequestParser(limits: limits)
    for chunk in chunks(of: bytes, size: chunkSize) {
        parser.append(chunk)
        while true {
            let request: HTTPRequest
            do {
                guard let next = try parser.nextRequest() else { break }
                request = next
            } catch {
                do {
                    _ = try parser.nextRequest()
                    fatalError("the request parser recovered after \(error)")
                } catch let again {
                    require(again == error, "the request parser reported \(error), then \(again)")
                }
                return
            }
            _ = request.isWebSocketUpgrade
            _ = request.path
            _ = request.queryItems
            _ = request.keepAlive
            guard !request.headers.contains(name: "Transfer-Encoding") else { continue }
            // `serialized()` may add a Content-Length, so the serialized bytes (not the request) are the fixed point.
            let bytes = request.serialized()
            var reparser = HTTPRequestParser(limits: HTTPParserLimits(maxHeaderBytes: 1 << 20, maxBodyBytes: 1 << 20))
            reparser.append(bytes)
            do {
                let again = try reparser.nextRequest()
                require(
                    again?.serialized() == bytes,
                    "a parsed request did not survive serialization: \(request) became \(String(describing: again))")
            } catch {
                fatalError("a parsed request serializes to bytes the parser rejects: \(error) for \(request)")
            }
        }
    }
}

private func fuzzResponses(_ bytes: [UInt8], chunkSize: Int, limits: HTTPParserLimits) {
    var parser = HTTPResponseParser(limits: limits)
    for chunk in chunks(of: bytes, size: chunkSize) {
        parser.append(chunk)
        while true {
            do {
                guard let response = try parser.nextResponse() else { break }
                _ = response.status.code
            } catch {
                do {
                    _ = try parser.nextResponse()
                    fatalError("the response parser recovered after \(error)")
                } catch let again {
                    require(again == error, "the response parser reported \(error), then \(again)")
                }
                return
            }
        }
    }
    _ = try? parser.endOfInput()
}

/// Stops the run with `message` when `condition` is false. Unlike `precondition`, the message is printed in
/// optimized builds, so a crash report says which property broke.
private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
