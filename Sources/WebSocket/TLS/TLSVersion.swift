import COpenSSL

/// A TLS protocol version this module can negotiate; older versions are never offered.
public enum TLSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// TLS 1.2 (RFC 5246), still common on servers.
    case tls12
    /// TLS 1.3 (RFC 8446), preferred whenever both sides support it.
    case tls13

    public var description: String {
        switch self {
        case .tls12: "TLSv1.2"
        case .tls13: "TLSv1.3"
        }
    }

    var openSSLValue: Int32 {
        switch self {
        case .tls12: TLS1_2_VERSION
        case .tls13: TLS1_3_VERSION
        }
    }

    init?(openSSLValue: Int32) {
        switch openSSLValue {
        case TLS1_2_VERSION: self = .tls12
        case TLS1_3_VERSION: self = .tls13
        default: return nil
        }
    }
}
