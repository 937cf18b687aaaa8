extension Message.Kind {
    /// The kind of a media message carrying an upload of `contentType`, as the contract ties them: image/* is a
    /// `photo`, audio/* a `voice` note, video/* a `video`, application/pdf a `document`. Nil for any other type
    /// (the service refuses to store it). Parameters (`; charset=…`) and case do not matter.
    ///
    /// ```swift
    /// Message.Kind(mediaContentType: "image/png")  // .photo
    /// ```
    public init?(mediaContentType contentType: String) {
        let essence = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let type = essence.lowercased().filter { !$0.isWhitespace }
        let parts = type.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty else { return nil }
        switch parts[0] {
        case "image": self = .photo
        case "audio": self = .voice
        case "video": self = .video
        case "application" where parts[1] == "pdf": self = .document
        default: return nil
        }
    }
}
