/// The keys of the frame envelope `{ id, type, data, replyTo }`.
enum FrameCodingKeys: String, CodingKey {
    case id, type, data, replyTo
}

/// The shared coders of the wire format. The models do not depend on coder settings; these only
/// avoid creating a coder per frame.
enum WireCoding {
    static let decoder = JSONDecoder()
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()
}

/// A frame the server sends: the envelope and its event. Decoding reads `type` first, then decodes
/// `data` directly as that event's type, in one pass.
public struct ServerFrame: Hashable, Sendable, Codable {
    /// Set on server frames only if the server wants a reply (the protocol does not use it today).
    public var id: String?
    /// The `id` of the client frame this frame answers.
    public var replyTo: String?
    /// The frame's `type` and `data`, typed.
    public var event: ServerEvent

    /// A frame as the server sends it (the sandbox and test peers build these).
    public init(_ event: ServerEvent, replyTo: String? = nil, id: String? = nil) {
        self.event = event
        self.replyTo = replyTo
        self.id = id
    }

    /// Decodes one WebSocket text frame. Throws `FrameDecodingError`, never traps.
    ///
    /// `message.new` and `message.ack`, the frames a busy bot receives most, are read straight from the bytes
    /// when they are plainly written; everything else takes the `Codable` path, with the same result.
    public init(jsonData: Data) throws(FrameDecodingError) {
        if let frame = jsonData.withUnsafeBytes({ HotFrameDecoder.serverFrame($0.bindMemory(to: UInt8.self)) }) {
            self = frame
            return
        }
        self = try Self.decodedWithCodable(jsonData)
    }

    /// Decodes `data` with `Codable` alone (what ``init(jsonData:)`` falls back to).
    static func decodedWithCodable(_ data: Data) throws(FrameDecodingError) -> ServerFrame {
        try decodeFrame(ServerFrame.self, from: data)
    }

    /// The frame as JSON, ready for a WebSocket text frame (`id` and `replyTo` omitted when nil).
    public func jsonData() throws -> Data { try WireCoding.encoder.encode(self) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FrameCodingKeys.self)
        // The envelope's `replyTo` first, so that a reply whose `type` or `data` is broken still names its request.
        let readableReplyTo = try? container.decodeIfPresent(String.self, forKey: .replyTo)
        let type = try decodeType(container, replyTo: readableReplyTo)
        do {
            id = try container.decodeIfPresent(String.self, forKey: .id)
            replyTo = try container.decodeIfPresent(String.self, forKey: .replyTo)
            event = try ServerEvent(type: type, container: container)
        } catch let error as DecodingError {
            throw FrameDecodingError(frameType: type, replyTo: readableReplyTo, error)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FrameCodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(event.type, forKey: .type)
        try event.encodeData(into: &container)
        try container.encodeIfPresent(replyTo, forKey: .replyTo)
    }
}

/// A frame the client sends: the envelope and its request. `id` is echoed in the reply's `replyTo`.
public struct ClientFrame: Hashable, Sendable, Codable {
    /// Set on frames that expect a reply; the reply's `replyTo` carries it back.
    public var id: String?
    /// The frame's `type` and `data`, typed.
    public var request: ClientRequest

    /// A frame as the client sends it; give an `id` when a reply is expected.
    public init(_ request: ClientRequest, id: String? = nil) {
        self.request = request
        self.id = id
    }

    /// Decodes one WebSocket text frame. Throws `FrameDecodingError`, never traps.
    ///
    /// `message.send`, `receipt.read` and `receipt.delivered`, the frames a server receives most from busy bots, are
    /// read straight from the bytes when they are plainly written; everything else takes the `Codable` path, with
    /// the same result.
    public init(jsonData: Data) throws(FrameDecodingError) {
        if let frame = jsonData.withUnsafeBytes({ HotFrameDecoder.clientFrame($0.bindMemory(to: UInt8.self)) }) {
            self = frame
            return
        }
        self = try Self.decodedWithCodable(jsonData)
    }

    /// Decodes `data` with `Codable` alone (what ``init(jsonData:)`` falls back to).
    static func decodedWithCodable(_ data: Data) throws(FrameDecodingError) -> ClientFrame {
        try decodeFrame(ClientFrame.self, from: data)
    }

    /// The frame as JSON, ready for a WebSocket text frame (`id` omitted when nil).
    public func jsonData() throws -> Data { try WireCoding.encoder.encode(self) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FrameCodingKeys.self)
        let type = try decodeType(container)
        do {
            id = try container.decodeIfPresent(String.self, forKey: .id)
            request = try ClientRequest(type: type, container: container)
        } catch let error as DecodingError {
            throw FrameDecodingError(frameType: type, error)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FrameCodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(request.type, forKey: .type)
        try request.encodeData(into: &container)
    }
}

private func decodeType(_ container: KeyedDecodingContainer<FrameCodingKeys>, replyTo: String? = nil) throws -> String {
    do {
        return try container.decode(String.self, forKey: .type)
    } catch let error as DecodingError {
        throw FrameDecodingError(frameType: nil, replyTo: replyTo, error)
    }
}

private func decodeFrame<Frame: Decodable>(_ type: Frame.Type, from data: Data) throws(FrameDecodingError) -> Frame {
    do {
        return try WireCoding.decoder.decode(Frame.self, from: data)
    } catch let error as FrameDecodingError {
        throw error
    } catch let error as DecodingError {
        throw FrameDecodingError(frameType: nil, error)
    } catch {
        throw FrameDecodingError(frameType: nil, field: "", reason: .invalidValue, detail: String(describing: error))
    }
}
