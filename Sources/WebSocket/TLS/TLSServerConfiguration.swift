/// What a TLS server presents: its certificate chain and private key, plus the ALPN protocols it accepts.
///
/// Both PEM sources are read and checked against each other when the configuration is created, so a wrong
/// path or a key for another certificate fails at startup rather than at the first connection. Create it
/// once per listener; copies share the OpenSSL context.
public struct TLSServerConfiguration: Sendable {
    /// The certificate chain: the server's certificate first, then any intermediates.
    public let certificateChain: TLSPEMSource
    /// ALPN protocols the server accepts, most preferred first; a client offering none of them gets no ALPN.
    public let alpnProtocols: [String]
    /// The lowest TLS version accepted; never below TLS 1.2.
    public let minimumVersion: TLSVersion

    let context: TLSContext

    /// - Throws: `.unreadableFile` for a missing file, `.invalidPEM` for text that holds no certificate or key
    ///   (or an encrypted key), `.privateKeyMismatch` when the key is not the certificate's.
    public init(
        certificateChain: TLSPEMSource,
        privateKey: TLSPEMSource,
        alpnProtocols: [String] = [],
        minimumVersion: TLSVersion = .tls12
    ) throws(TLSError) {
        context = try TLSContext(
            serverCertificateChain: certificateChain,
            privateKey: privateKey,
            alpnProtocols: alpnProtocols,
            minimumVersion: minimumVersion)
        self.certificateChain = certificateChain
        self.alpnProtocols = alpnProtocols
        self.minimumVersion = minimumVersion
    }
}
