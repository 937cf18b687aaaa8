import Synchronization

/// How a client verifies TLS servers: which CAs it trusts, the lowest TLS version it accepts and the ALPN
/// protocols it offers.
///
/// Creating a configuration builds its OpenSSL context (reading and parsing the system CA bundle and any
/// extra CA certificates, which blocks for tens of milliseconds), so create it once, off the cooperative
/// pool, and reuse it for every connection; copies share the context.
public struct TLSConfiguration: Sendable {
    /// Whether the system CA store (`/etc/ssl/certs` on Debian) is trusted.
    public let trustsSystemRoots: Bool
    /// CA certificates trusted in addition to (or, without system roots, instead of) the system store.
    public let trustedCertificates: [TLSPEMSource]
    /// Protocols offered with ALPN, most preferred first (e.g. `["http/1.1"]`); empty offers none.
    public let alpnProtocols: [String]
    /// The lowest TLS version accepted; never below TLS 1.2.
    public let minimumVersion: TLSVersion

    let context: TLSContext

    /// Builds a client configuration; certificate-chain and hostname verification are always on.
    ///
    /// - Parameters:
    ///   - trustedCertificates: extra CA certificates (PEM; a source may hold several), e.g. a private CA.
    ///   - trustSystemRoots: `false` trusts only `trustedCertificates` (tests, pinned private deployments).
    /// - Throws: `.invalidPEM` / `.unreadableFile` for a bad CA source, `.invalidConfiguration` when
    ///   nothing would be trusted or an ALPN name is not 1...255 bytes.
    public init(
        trustedCertificates: [TLSPEMSource] = [],
        trustSystemRoots: Bool = true,
        alpnProtocols: [String] = [],
        minimumVersion: TLSVersion = .tls12
    ) throws(TLSError) {
        context = try TLSContext(
            clientTrustingSystemRoots: trustSystemRoots,
            trustedCertificates: trustedCertificates,
            alpnProtocols: alpnProtocols,
            minimumVersion: minimumVersion)
        self.trustsSystemRoots = trustSystemRoots
        self.trustedCertificates = trustedCertificates
        self.alpnProtocols = alpnProtocols
        self.minimumVersion = minimumVersion
    }

    /// The process-wide configuration that trusts the system CA store only, built on first use.
    ///
    /// The first use parses the system CA bundle (tens of milliseconds of file reading and parsing): touch it
    /// at startup or from a thread that may block, not from the cooperative pool.
    public static var systemDefault: TLSConfiguration {
        get throws(TLSError) {
            try sharedSystemDefault.withLock { (cached: inout TLSConfiguration?) throws(TLSError) -> TLSConfiguration in
                if let cached { return cached }
                let configuration = try TLSConfiguration()
                cached = configuration
                return configuration
            }
        }
    }

    private static let sharedSystemDefault = Mutex<TLSConfiguration?>(nil)
}
