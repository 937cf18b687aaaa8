/// Parses HTTP/1.1 responses from a byte stream: status line, headers, and a body framed by Content-Length,
/// chunked coding, or the end of the connection.
public struct HTTPResponseParser: Sendable {
    private var engine: HTTPMessageParser

    public init(limits: HTTPParserLimits = .init()) {
        engine = HTTPMessageParser(kind: .response, limits: limits)
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

    /// The next complete response to a request made with `method` (a response to HEAD has no body), or nil
    /// until more bytes arrive. A 101 response ends at its header section; the bytes after it stay buffered.
    public mutating func nextResponse(to method: HTTPMethod = .get) throws(HTTPParseError) -> HTTPResponse? {
        guard let (head, body) = try engine.next(bodyless: method == .head) else { return nil }
        return Self.response(head, body)
    }

    /// Call when the connection has closed: returns a response whose body ran until the close, nil if no
    /// response was pending, or throws `truncatedMessage` when one was cut short.
    public mutating func endOfInput() throws(HTTPParseError) -> HTTPResponse? {
        guard let (head, body) = try engine.finish() else { return nil }
        return Self.response(head, body)
    }

    /// The largest body of the responses parsed from now on (the next request's own limit), in bytes.
    var maxBodyBytes: Int {
        get { engine.limits.maxBodyBytes }
        set { engine.limits.maxBodyBytes = newValue }
    }

    /// Removes and returns the bytes buffered after the last returned response (e.g. frames following a 101).
    public mutating func takeBufferedBytes() -> [UInt8] { engine.takeBufferedBytes() }

    private static func response(_ head: HTTPMessageParser.Head, _ body: [UInt8]) -> HTTPResponse? {
        guard case .response(let version, let status) = head.startLine else { return nil }
        return HTTPResponse(status: status, version: version, headers: head.headers, body: body)
    }
}
