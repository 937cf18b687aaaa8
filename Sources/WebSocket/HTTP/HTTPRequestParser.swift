/// Parses HTTP/1.1 requests from a byte stream, one at a time (keep-alive), with limits that map to 400/413/431.
///
/// Pure and incremental: append bytes as they arrive, then take complete requests. Bytes after a request
/// (the next pipelined request, or WebSocket frames after an upgrade) stay buffered.
public struct HTTPRequestParser: Sendable {
    private var engine: HTTPMessageParser

    public init(limits: HTTPParserLimits = .init()) {
        engine = HTTPMessageParser(kind: .request, limits: limits)
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        array.withUnsafeBytes { engine.append($0) }
    }

    /// Adds received bytes without an intermediate copy.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        engine.append(bytes)
    }

    /// The next complete request, or nil until more bytes arrive. After an error the stream is unusable: answer
    /// `error.status` and close the connection.
    public mutating func nextRequest() throws(HTTPParseError) -> HTTPRequest? {
        guard let (head, body) = try engine.next() else { return nil }
        guard case .request(let method, let target, let version) = head.startLine else { return nil }
        return HTTPRequest(method: method, target: target, version: version, headers: head.headers, body: body)
    }

    /// Whether a request has started arriving but is not complete.
    public var isInsideRequest: Bool { engine.isInsideMessage }

    /// How many received bytes are buffered and not part of a returned request.
    var bufferedByteCount: Int { engine.bufferedBytes.count }

    /// Removes and returns the bytes buffered after the last returned request.
    public mutating func takeBufferedBytes() -> [UInt8] { engine.takeBufferedBytes() }
}
