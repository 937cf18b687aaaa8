/// A TLS failure: what went wrong, with OpenSSL's own reason, and (in `description`) what to do about it.
///
/// Certificate verification failures carry the X.509 verify code (`X509_V_ERR_*`) and OpenSSL's text for it,
/// so a log line says exactly why a server was refused.
public enum TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer's certificate does not chain to a trusted CA: unknown or self-signed CA, or an incomplete chain.
    case certificateNotTrusted(verifyCode: Int, reason: String)
    /// The peer's certificate is valid but issued for another name or IP address than `serverName`.
    case hostnameMismatch(serverName: String, reason: String)
    /// The peer's certificate (or one in its chain) has expired.
    case certificateExpired(reason: String)
    /// The peer's certificate (or one in its chain) is not valid yet.
    case certificateNotYetValid(reason: String)
    /// The peer's certificate was refused for another X.509 reason (revoked, bad signature, wrong purpose, ...).
    case certificateRejected(verifyCode: Int, reason: String)
    /// The handshake failed for a reason other than certificate verification (no shared protocol version
    /// or cipher, an alert from the peer, bytes that are not TLS).
    case handshakeFailed(reason: String)
    /// An established session failed (a corrupt or forged record, an alert from the peer).
    case sessionFailed(reason: String)
    /// The transport ended without a TLS close_notify: the peer went away, or someone truncated the stream.
    case unexpectedEOF(duringHandshake: Bool)
    /// Plaintext was written after `shutdown()`: the session no longer accepts data.
    case writeAfterShutdown
    /// A PEM document (certificate or private key) could not be decoded.
    case invalidPEM(source: String, reason: String)
    /// A certificate or key file could not be read.
    case unreadableFile(path: String, reason: String)
    /// The private key does not belong to the certificate it is configured with.
    case privateKeyMismatch(reason: String)
    /// The server name to connect to cannot be used for SNI or verification.
    case invalidServerName(String, reason: String)
    /// The configuration cannot work as given (for example, it trusts no certificate at all).
    case invalidConfiguration(reason: String)
    /// OpenSSL could not allocate a context, session or buffer.
    case resourceExhausted(reason: String)

    public var description: String {
        switch self {
        case let .certificateNotTrusted(code, reason):
            return "TLS: the server certificate is not trusted (\(reason), X509 verify code \(code)); "
                + "add its CA to TLSConfiguration.trustedCertificates or have the server send its full chain"
        case let .hostnameMismatch(serverName, reason):
            return "TLS: the server certificate is not valid for \(serverName) (\(reason)); "
                + "connect with a name the certificate lists in subjectAltName"
        case let .certificateExpired(reason):
            return "TLS: the peer certificate has expired (\(reason)); the peer must renew it, or check this machine's clock"
        case let .certificateNotYetValid(reason):
            return "TLS: the peer certificate is not valid yet (\(reason)); check this machine's clock"
        case let .certificateRejected(code, reason):
            return "TLS: the peer certificate was rejected (\(reason), X509 verify code \(code))"
        case let .handshakeFailed(reason):
            return "TLS: the handshake failed (\(reason)); check that both sides share a TLS version (1.2+) and that the peer speaks TLS"
        case let .sessionFailed(reason):
            return "TLS: the session failed (\(reason)); close the connection and reconnect"
        case let .unexpectedEOF(duringHandshake):
            return duringHandshake
                ? "TLS: the peer closed the connection during the handshake; it may not speak TLS or may have refused us"
                : "TLS: the peer closed the connection without close_notify; data may have been truncated"
        case .writeAfterShutdown:
            return "TLS: cannot write after shutdown(); open a new connection"
        case let .invalidPEM(source, reason):
            return "TLS: \(source) is not valid PEM (\(reason)); expected -----BEGIN ...----- blocks"
        case let .unreadableFile(path, reason):
            return "TLS: cannot read \(path) (\(reason)); check the path and its permissions"
        case let .privateKeyMismatch(reason):
            return "TLS: the private key does not match the certificate (\(reason)); configure the key the certificate was issued for"
        case let .invalidServerName(name, reason):
            return "TLS: invalid server name '\(name)' (\(reason)); use a DNS name or an IP address"
        case let .invalidConfiguration(reason):
            return "TLS: invalid configuration (\(reason))"
        case let .resourceExhausted(reason):
            return "TLS: OpenSSL could not allocate (\(reason))"
        }
    }
}
