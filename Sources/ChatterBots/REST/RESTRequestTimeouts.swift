/// The longest one REST request may take in all, so that a server trickling its answer cannot hold a caller (the
/// serial message actions, a sign-in, a sync) for longer: `standard` for every endpoint but the media files', which
/// get `media` (300 s by default: a file of up to 10 MiB needs about 35 KB/s to make it).
package struct RESTRequestTimeouts: Sendable, Equatable {
    package var standard: Duration
    package var media: Duration

    /// The production bounds: 60 s, and 300 s for a media file.
    package init(standard: Duration = .seconds(60), media: Duration = .seconds(300)) {
        self.standard = standard
        self.media = media
    }

    /// The bound of a request to `endpoint`.
    package func timeout(of endpoint: ChatterEndpoint) -> Duration {
        switch endpoint {
        case .uploadMedia, .downloadMedia: media
        default: standard
        }
    }
}
