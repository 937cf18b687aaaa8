import ChatterBots

/// An uploaded file as the sandbox serves it back.
public struct SandboxMediaFile: Hashable, Sendable {
    public var id: Media.ID
    public var contentType: String
    public var bytes: [UInt8]

    public init(id: Media.ID, contentType: String, bytes: [UInt8]) {
        self.id = id
        self.contentType = contentType
        self.bytes = bytes
    }
}
