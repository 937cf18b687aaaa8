import WebSocket

/// A client and a server session wired back to back in memory: what one drains, the other is fed.
final class InMemoryTLSLink {
    let client: TLSSession
    let server: TLSSession

    init(client: TLSSession, server: TLSSession) {
        self.client = client
        self.server = server
    }

    convenience init(
        client configuration: TLSConfiguration, serverName: String, server serverConfiguration: TLSServerConfiguration
    ) throws {
        try self.init(
            client: TLSSession(client: configuration, serverName: serverName),
            server: TLSSession(server: serverConfiguration))
    }

    /// Moves pending ciphertext in both directions; returns whether anything moved.
    @discardableResult
    func transfer() -> Bool {
        let toServer = client.drainCiphertext()
        let toClient = server.drainCiphertext()
        server.feed(ciphertext: toServer)
        client.feed(ciphertext: toClient)
        return !toServer.isEmpty || !toClient.isEmpty
    }

    /// Runs both handshakes to completion. A failure on either side is thrown after the alert it produced
    /// was delivered to the other side.
    func handshake() throws(TLSError) {
        for _ in 0..<20 {
            let clientStatus: TLSSession.HandshakeStatus
            do throws(TLSError) {
                clientStatus = try client.handshake()
            } catch {
                transfer()
                throw error
            }
            transfer()
            let serverStatus: TLSSession.HandshakeStatus
            do throws(TLSError) {
                serverStatus = try server.handshake()
            } catch {
                transfer()
                throw error
            }
            transfer()
            if clientStatus == .complete, serverStatus == .complete { return }
        }
        throw .handshakeFailed(reason: "the in-memory handshake did not finish in 20 round trips")
    }

    /// Delivers everything `sender` wrote and reads it on `receiver` until no more plaintext comes.
    func deliver(from sender: TLSSession, to receiver: TLSSession) throws(TLSError) -> (bytes: [UInt8], closed: Bool) {
        receiver.feed(ciphertext: sender.drainCiphertext())
        var bytes: [UInt8] = []
        while true {
            switch try receiver.readPlaintext(into: &bytes) {
            case .bytes: continue
            case .wantMore: return (bytes, false)
            case .closed: return (bytes, true)
            }
        }
    }
}
