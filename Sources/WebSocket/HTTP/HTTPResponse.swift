/// An HTTP/1.1 response: what a responder returns and what the WebSocket client reads back from its upgrade.
public struct HTTPResponse: Sendable, Hashable {
    public var status: HTTPStatus
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: HTTPStatus = .ok, version: HTTPVersion = .http1_1, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// A response with a UTF-8 text body and `Content-Type: text/plain; charset=utf-8`.
    public init(status: HTTPStatus = .ok, text: String) {
        self.init(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// The response as HTTP/1.1 bytes; adds `Content-Length` unless the status forbids a body or one was set.
    public func serialized() -> [UInt8] {
        var text = "\(version) \(status.code) \(status.reasonPhrase)\r\n"
        for field in headers { text += "\(field.name): \(field.value)\r\n" }
        if !status.forbidsBody && !headers.contains(name: "Content-Length") && !headers.contains(name: "Transfer-Encoding") {
            text += "Content-Length: \(body.count)\r\n"
        }
        text += "\r\n"
        var bytes = Array(text.utf8)
        if !status.forbidsBody { bytes += body }
        return bytes
    }
}
