/// The incremental HTTP/1.x engine behind `HTTPRequestParser` and `HTTPResponseParser`: it buffers bytes,
/// finds the header section, then frames the body by Content-Length, chunked coding or end of input.
struct HTTPMessageParser: Sendable {
    enum StartLine: Sendable {
        case request(method: HTTPMethod, target: String, version: HTTPVersion)
        case response(version: HTTPVersion, status: HTTPStatus)
    }

    struct Head: Sendable {
        var startLine: StartLine
        var headers: HTTPHeaders
    }

    enum Kind: Sendable {
        case request
        case response
    }

    private enum Framing: Sendable {
        case none
        case length(Int)
        case chunked(ChunkState)
        case untilClose
    }

    private enum ChunkState: Sendable {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailers
    }

    let kind: Kind
    /// The limits of the message being parsed; a client may change the body's between responses.
    var limits: HTTPParserLimits
    private var buffer: [UInt8] = []
    private var start = 0
    private var scanFrom = 0
    private var head: Head?
    private var framing: Framing = .none
    private var body: [UInt8] = []
    private var trailerBytes = 0
    private var failure: HTTPParseError?

    init(kind: Kind, limits: HTTPParserLimits) {
        self.kind = kind
        self.limits = limits
    }

    /// Bytes received and not yet part of a returned message.
    var bufferedBytes: ArraySlice<UInt8> { buffer[start...] }

    /// Whether a message has begun (its header section or body is partly received).
    var isInsideMessage: Bool { head != nil || buffer[start...].contains { $0 != 0x0D && $0 != 0x0A } }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && (start == buffer.count || start >= 4096) {
            buffer.removeFirst(start)
            scanFrom -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Removes and returns every buffered byte not part of a returned message (e.g. WebSocket frames after a 101).
    mutating func takeBufferedBytes() -> [UInt8] {
        let rest = Array(buffer[start...])
        buffer = []
        start = 0
        scanFrom = 0
        return rest
    }

    /// The next complete message, nil if more bytes are needed. `bodyless` marks responses without a body
    /// (e.g. to HEAD). After an error, every call throws it again.
    mutating func next(bodyless: Bool = false) throws(HTTPParseError) -> (Head, [UInt8])? {
        if let failure { throw failure }
        do throws(HTTPParseError) {
            return try parseNext(bodyless: bodyless)
        } catch {
            failure = error
            throw error
        }
    }

    /// The message ending at end of input (a response body delimited by the connection close), nil when nothing
    /// was pending; throws `truncatedMessage` for a message cut short.
    mutating func finish() throws(HTTPParseError) -> (Head, [UInt8])? {
        if let failure { throw failure }
        if let head, case .untilClose = framing {
            let message = (head, Array(buffer[start...]))
            self.head = nil
            start = buffer.count
            return message
        }
        guard !isInsideMessage else {
            failure = .truncatedMessage
            throw .truncatedMessage
        }
        return nil
    }

    private mutating func parseNext(bodyless: Bool) throws(HTTPParseError) -> (Head, [UInt8])? {
        if head == nil {
            guard try parseHead(bodyless: bodyless) else { return nil }
        }
        guard let head, let body = try parseBody() else { return nil }
        self.head = nil
        self.body = []
        return (head, body)
    }

    /// Finds and parses the header section; false if it is not complete yet.
    private mutating func parseHead(bodyless: Bool) throws(HTTPParseError) -> Bool {
        // RFC 9112 §2.2: a server should ignore empty lines received before a request line.
        if kind == .request {
            while start < buffer.count && (buffer[start] == 0x0D || buffer[start] == 0x0A) { start += 1 }
        }
        guard let end = findHeaderEnd() else {
            if buffer.count - start > limits.maxHeaderBytes { throw .headersTooLarge(limit: limits.maxHeaderBytes) }
            return false
        }
        if end + 4 - start > limits.maxHeaderBytes { throw .headersTooLarge(limit: limits.maxHeaderBytes) }
        let parsed = try buffer.withUnsafeBufferPointer { all throws(HTTPParseError) -> Head in
            try Self.parseHeaderSection(UnsafeBufferPointer(rebasing: all[start..<end]), kind: kind, limits: limits)
        }
        start = end + 4
        scanFrom = start
        framing = try Self.framing(of: parsed, bodyless: bodyless, limits: limits)
        head = parsed
        return true
    }

    private mutating func findHeaderEnd() -> Int? {
        var index = max(start, scanFrom)
        let count = buffer.count
        while index + 3 < count {
            if buffer[index + 3] != 0x0A {
                index += buffer[index + 3] == 0x0D ? 1 : 4
                continue
            }
            if buffer[index] == 0x0D && buffer[index + 1] == 0x0A && buffer[index + 2] == 0x0D {
                return index
            }
            index += 1
        }
        scanFrom = max(start, count - 3)
        return nil
    }

    private mutating func parseBody() throws(HTTPParseError) -> [UInt8]? {
        switch framing {
        case .none:
            return []
        case .length(let length):
            guard buffer.count - start >= length else { return nil }
            let body = Array(buffer[start..<start + length])
            start += length
            return body
        case .untilClose:
            if buffer.count - start > limits.maxBodyBytes { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
            return nil
        case .chunked(let state):
            return try parseChunks(state)
        }
    }

    private mutating func parseChunks(_ initial: ChunkState) throws(HTTPParseError) -> [UInt8]? {
        var state = initial
        defer { if case .chunked = framing { framing = .chunked(state) } }
        while true {
            switch state {
            case .size:
                guard let lineEnd = findLineEnd() else {
                    if buffer.count - start > 1024 { throw .malformedChunkedBody }
                    return nil
                }
                let size = try parseChunkSize(buffer[start..<lineEnd])
                start = lineEnd + 2
                if size == 0 {
                    state = .trailers
                } else {
                    guard body.count + size <= limits.maxBodyBytes else { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
                    state = .data(remaining: size)
                }
            case .data(let remaining):
                let available = min(remaining, buffer.count - start)
                body.append(contentsOf: buffer[start..<start + available])
                start += available
                if available < remaining {
                    state = .data(remaining: remaining - available)
                    return nil
                }
                state = .dataEnd
            case .dataEnd:
                guard buffer.count - start >= 2 else { return nil }
                guard buffer[start] == 0x0D && buffer[start + 1] == 0x0A else { throw .malformedChunkedBody }
                start += 2
                state = .size
            case .trailers:
                guard let lineEnd = findLineEnd() else {
                    if buffer.count - start > limits.maxHeaderBytes { throw .headersTooLarge(limit: limits.maxHeaderBytes) }
                    return nil
                }
                let isLast = lineEnd == start
                trailerBytes += lineEnd + 2 - start
                start = lineEnd + 2
                if trailerBytes > limits.maxHeaderBytes { throw .headersTooLarge(limit: limits.maxHeaderBytes) }
                if isLast {
                    trailerBytes = 0
                    state = .size
                    framing = .none
                    return body
                }
            }
        }
    }

    private func findLineEnd() -> Int? {
        var index = start
        while index + 1 < buffer.count {
            if buffer[index] == 0x0D && buffer[index + 1] == 0x0A { return index }
            index += 1
        }
        return nil
    }

    private func parseChunkSize(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        var size = 0
        var digits = 0
        for byte in line {
            if byte == UInt8(ascii: ";") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { break }
            guard let value = Self.hexValue(byte) else { throw .malformedChunkedBody }
            digits += 1
            guard digits <= 15 else { throw .malformedChunkedBody }
            size = size << 4 | value
        }
        guard digits > 0 else { throw .malformedChunkedBody }
        return size
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    // MARK: Header section

    private static func parseHeaderSection(
        _ bytes: UnsafeBufferPointer<UInt8>, kind: Kind, limits: HTTPParserLimits
    ) throws(HTTPParseError) -> Head {
        var lines: [UnsafeBufferPointer<UInt8>] = []
        var lineStart = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A {
                lines.append(UnsafeBufferPointer(rebasing: bytes[lineStart..<index]))
                index += 2
                lineStart = index
            } else {
                index += 1
            }
        }
        lines.append(UnsafeBufferPointer(rebasing: bytes[lineStart..<bytes.count]))
        guard lines.count - 1 <= limits.maxHeaderCount else { throw .headersTooLarge(limit: limits.maxHeaderBytes) }

        let startLine: StartLine
        switch kind {
        case .request: startLine = try parseRequestLine(lines[0])
        case .response: startLine = try parseStatusLine(lines[0])
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            let field = try parseField(line)
            headers.add(name: field.name, value: field.value)
        }
        return Head(startLine: startLine, headers: headers)
    }

    private static func parseRequestLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> StartLine {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte),
              !parts[1].isEmpty, parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { throw .malformedRequestLine }
        let version = try parseVersion(parts[2], malformed: .malformedRequestLine)
        let target = String(decoding: parts[1], as: UTF8.self)
        guard target.hasPrefix("/") || target == "*" || target.contains("://") else { throw .malformedRequestLine }
        return .request(method: HTTPMethod(rawValue: String(decoding: parts[0], as: UTF8.self)), target: target, version: version)
    }

    private static func parseStatusLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> StartLine {
        let parts = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[1].count == 3, parts[1].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { throw .malformedStatusLine }
        let version = try parseVersion(parts[0], malformed: .malformedStatusLine)
        let code = parts[1].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard code >= 100 else { throw .malformedStatusLine }
        let reason = parts.count == 3 ? String(decoding: parts[2], as: UTF8.self) : ""
        return .response(version: version, status: HTTPStatus(code: code, reasonPhrase: reason))
    }

    private static func parseVersion(_ text: Slice<UnsafeBufferPointer<UInt8>>, malformed: HTTPParseError) throws(HTTPParseError) -> HTTPVersion {
        let bytes = Array(text)
        guard bytes.count == 8, bytes.starts(with: Array("HTTP/".utf8)), bytes[6] == UInt8(ascii: "."),
              let major = digit(bytes[5]), let minor = digit(bytes[7])
        else { throw malformed }
        guard major == 1 && minor <= 1 else { throw .unsupportedVersion(String(decoding: bytes, as: UTF8.self)) }
        return HTTPVersion(major: major, minor: minor)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= 0x30 && byte <= 0x39 ? Int(byte - 0x30) : nil
    }

    private static func parseField(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> (name: String, value: String) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { throw .malformedHeader }
        let name = line[..<colon]
        guard name.allSatisfy(isTokenByte) else { throw .malformedHeader }
        var valueStart = colon + 1
        var valueEnd = line.count
        while valueStart < valueEnd && (line[valueStart] == 0x20 || line[valueStart] == 0x09) { valueStart += 1 }
        while valueEnd > valueStart && (line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09) { valueEnd -= 1 }
        let value = line[valueStart..<valueEnd]
        guard !value.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else { throw .malformedHeader }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    /// RFC 9110 `tchar`: the bytes allowed in methods and field names.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    // MARK: Framing

    private static func framing(of head: Head, bodyless: Bool, limits: HTTPParserLimits) throws(HTTPParseError) -> Framing {
        if case .response(_, let status) = head.startLine, bodyless || status.forbidsBody { return .none }
        let lengths = head.headers["Content-Length"]
        let codings = head.headers["Transfer-Encoding"]
        if !codings.isEmpty {
            guard lengths.isEmpty else { throw .invalidContentLength }
            let items = codings.flatMap { $0.split(separator: ",") }.map { $0.trimmingOWS() }
            guard items.count == 1, HTTPHeaders.sameName(items[0], "chunked") else {
                throw .unsupportedTransferEncoding(codings.joined(separator: ", "))
            }
            return .chunked(.size)
        }
        if !lengths.isEmpty {
            let items = lengths.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
                .map { $0.trimmingOWS() }
            guard let first = items.first, items.allSatisfy({ $0 == first }),
                  !first.isEmpty, first.utf8.count <= 18, first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let length = Int(first)
            else { throw .invalidContentLength }
            guard length <= limits.maxBodyBytes else { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
            return length == 0 ? .none : .length(length)
        }
        if case .response = head.startLine { return .untilClose }
        return .none
    }
}
