import COpenSSL

/// An OpenSSL `SSL_CTX`: trust store, certificate and key, protocol limits. Built once per configuration and
/// shared by every `TLSSession` made from it.
///
/// `@unchecked Sendable`: the context is fully configured in `init` and never mutated afterwards; OpenSSL
/// documents `SSL_CTX` as safe to share between threads for creating sessions (`SSL_new` only takes a
/// reference, under OpenSSL's internal lock), and its session cache and trust store lookups are internally
/// locked. The ALPN buffer is immutable after `init` and only read by OpenSSL's callback.
final class TLSContext: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The server's ALPN protocols in wire format, in preference order, then a 0; read by `selectALPNProtocol`.
    private let serverALPNList: UnsafeMutableBufferPointer<UInt8>?

    /// A client context: verifies the peer's chain against the system store and/or `trustedCertificates`.
    init(
        clientTrustingSystemRoots trustSystemRoots: Bool,
        trustedCertificates: [TLSPEMSource],
        alpnProtocols: [String],
        minimumVersion: TLSVersion
    ) throws(TLSError) {
        let wireALPN = try Self.wireFormat(alpnProtocols)
        if !trustSystemRoots && trustedCertificates.isEmpty {
            throw .invalidConfiguration(
                reason: "it trusts no certificate: pass trustedCertificates or keep trustSystemRoots")
        }
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw .resourceExhausted(reason: OpenSSLErrorQueue.drainReason(fallback: "SSL_CTX_new failed"))
        }
        pointer = context
        serverALPNList = nil
        try applyCommonSettings(minimumVersion: minimumVersion)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)

        if trustSystemRoots {
            OpenSSLErrorQueue.clear()
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw .invalidConfiguration(
                    reason: "cannot load the system CA store: "
                        + OpenSSLErrorQueue.drainReason(fallback: "SSL_CTX_set_default_verify_paths failed"))
            }
        }
        guard let store = SSL_CTX_get_cert_store(context) else {
            throw .resourceExhausted(reason: "SSL_CTX has no certificate store")
        }
        for source in trustedCertificates {
            for certificate in try PEMDocument(source).certificates() {
                OpenSSLErrorQueue.clear()
                guard X509_STORE_add_cert(store, certificate.pointer) == 1 else {
                    throw .invalidPEM(
                        source: source.description,
                        reason: "cannot add a certificate to the trust store: "
                            + OpenSSLErrorQueue.drainReason(fallback: "X509_STORE_add_cert failed"))
                }
            }
        }
        if !wireALPN.isEmpty {
            let failed = wireALPN.withUnsafeBufferPointer {
                // Unlike most OpenSSL functions, SSL_CTX_set_alpn_protos returns 0 on success.
                SSL_CTX_set_alpn_protos(context, $0.baseAddress, UInt32($0.count)) != 0
            }
            if failed { throw .resourceExhausted(reason: "SSL_CTX_set_alpn_protos failed") }
        }
    }

    /// A server context presenting `certificateChain` (leaf first, then intermediates) with `privateKey`.
    init(
        serverCertificateChain certificateChain: TLSPEMSource,
        privateKey keySource: TLSPEMSource,
        alpnProtocols: [String],
        minimumVersion: TLSVersion
    ) throws(TLSError) {
        let wireALPN = try Self.wireFormat(alpnProtocols)
        let chain = try PEMDocument(certificateChain).certificates()
        let key = try PEMDocument(keySource).privateKey()
        guard let leaf = chain.first else {
            throw .invalidPEM(source: certificateChain.description, reason: "no certificate")
        }
        OpenSSLErrorQueue.clear()
        guard X509_check_private_key(leaf.pointer, key.pointer) == 1 else {
            throw .privateKeyMismatch(
                reason: "\(keySource) does not belong to the first certificate of \(certificateChain): "
                    + OpenSSLErrorQueue.drainReason(fallback: "X509_check_private_key failed"))
        }

        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw .resourceExhausted(reason: OpenSSLErrorQueue.drainReason(fallback: "SSL_CTX_new failed"))
        }
        pointer = context
        if wireALPN.isEmpty {
            serverALPNList = nil
        } else {
            // A trailing 0 ends the list (a zero-length protocol name cannot occur in it).
            let list = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: wireALPN.count + 1)
            _ = list.initialize(from: wireALPN + [0])
            serverALPNList = list
        }
        try applyCommonSettings(minimumVersion: minimumVersion)
        SSL_CTX_set_options(context, copenssl_SSL_OP_CIPHER_SERVER_PREFERENCE())

        OpenSSLErrorQueue.clear()
        guard SSL_CTX_use_certificate(context, leaf.pointer) == 1 else {
            throw .invalidPEM(
                source: certificateChain.description,
                reason: "OpenSSL refused the certificate: "
                    + OpenSSLErrorQueue.drainReason(fallback: "SSL_CTX_use_certificate failed"))
        }
        guard SSL_CTX_use_PrivateKey(context, key.pointer) == 1 else {
            throw .privateKeyMismatch(
                reason: OpenSSLErrorQueue.drainReason(fallback: "SSL_CTX_use_PrivateKey failed"))
        }
        for intermediate in chain.dropFirst() {
            guard copenssl_SSL_CTX_add1_chain_cert(context, intermediate.pointer) == 1 else {
                throw .invalidPEM(
                    source: certificateChain.description,
                    reason: "OpenSSL refused a chain certificate: "
                        + OpenSSLErrorQueue.drainReason(fallback: "SSL_CTX_add1_chain_cert failed"))
            }
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw .privateKeyMismatch(
                reason: OpenSSLErrorQueue.drainReason(fallback: "SSL_CTX_check_private_key failed"))
        }
        if let serverALPNList {
            SSL_CTX_set_alpn_select_cb(context, selectALPNProtocol, UnsafeMutableRawPointer(serverALPNList.baseAddress))
        }
    }

    deinit {
        SSL_CTX_free(pointer)
        serverALPNList?.deallocate()
    }

    /// The server's ALPN list at `address` (the callback's argument), without its terminating 0.
    fileprivate static func alpnList(at address: UnsafeMutableRawPointer) -> UnsafeBufferPointer<UInt8> {
        let bytes = address.assumingMemoryBound(to: UInt8.self)
        var length = 0
        while bytes[length] != 0 { length += 1 + Int(bytes[length]) }
        return UnsafeBufferPointer(start: bytes, count: length)
    }

    private func applyCommonSettings(minimumVersion: TLSVersion) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard copenssl_SSL_CTX_set_min_proto_version(pointer, minimumVersion.openSSLValue) == 1 else {
            throw .invalidConfiguration(
                reason: "cannot require \(minimumVersion): "
                    + OpenSSLErrorQueue.drainReason(fallback: "SSL_CTX_set_min_proto_version failed"))
        }
        // Renegotiation is a TLS 1.2 attack surface that WebSocket never needs.
        SSL_CTX_set_options(pointer, copenssl_SSL_OP_NO_RENEGOTIATION())
        // Idle connections give their record buffers back; writes may be retried from a moved buffer.
        _ = copenssl_SSL_CTX_set_mode(pointer, Int(SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
    }

    /// ALPN's wire format: each protocol name prefixed by its length (1...255 bytes).
    private static func wireFormat(_ protocols: [String]) throws(TLSError) -> [UInt8] {
        var wire: [UInt8] = []
        for name in protocols {
            let bytes = Array(name.utf8)
            guard (1...255).contains(bytes.count) else {
                throw .invalidConfiguration(reason: "ALPN protocol names must be 1 to 255 bytes, got '\(name)'")
            }
            wire.append(UInt8(bytes.count))
            wire.append(contentsOf: bytes)
        }
        return wire
    }
}

/// OpenSSL's ALPN selection callback for servers: picks the first of the server's protocols that the client
/// offers; without a common protocol the handshake continues without ALPN.
private let selectALPNProtocol: @convention(c) (
    OpaquePointer?,
    UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    UnsafeMutablePointer<UInt8>?,
    UnsafePointer<UInt8>?,
    UInt32,
    UnsafeMutableRawPointer?
) -> Int32 = { _, out, outLength, clientList, clientLength, argument in
    guard let out, let outLength, let clientList, let argument else { return SSL_TLSEXT_ERR_NOACK }
    let serverList = TLSContext.alpnList(at: argument)
    var selected: UnsafeMutablePointer<UInt8>?
    var selectedLength: UInt8 = 0
    let result = SSL_select_next_proto(
        &selected, &selectedLength, serverList.baseAddress, UInt32(serverList.count), clientList, clientLength)
    guard result == OPENSSL_NPN_NEGOTIATED, let selected else { return SSL_TLSEXT_ERR_NOACK }
    out.pointee = UnsafePointer(selected)
    outLength.pointee = selectedLength
    return SSL_TLSEXT_ERR_OK
}
