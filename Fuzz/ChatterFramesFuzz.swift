// libFuzzer target: the ChatterBots realtime frame decoders fed arbitrary bytes.
//
// The input is one WebSocket text frame's payload. It checks, for any input:
// - `ServerFrame` and `ClientFrame` decoding never traps; a decoded frame re-encodes, and the re-encoded JSON
//   decodes to the same frame (the wire model loses nothing it accepted);
// - the realtime connection's zero-copy decoding path accepts exactly what decoding a copy accepts, with the same
//   frame;
// - a close code and reason read from the input map to a close reason that keeps the code.

import Foundation
@testable import ChatterBots

@_cdecl("LLVMFuzzerTestOneInput")
public func chatterFramesFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let json = Data(bytes)

    if let frame = try? ServerFrame(jsonData: json) {
        let encoded: Data
        do {
            encoded = try frame.jsonData()
        } catch {
            fatalError("a decoded server frame does not encode: \(error) for \(frame)")
        }
        do {
            let again = try ServerFrame(jsonData: encoded)
            require(again == frame, "server frame changed in a round trip: \(frame) became \(again)")
        } catch {
            fatalError("a re-encoded server frame does not decode: \(error) for \(String(decoding: encoded, as: UTF8.self))")
        }
    }

    if let frame = try? ClientFrame(jsonData: json) {
        let encoded: Data
        do {
            encoded = try frame.jsonData()
        } catch {
            fatalError("a decoded client frame does not encode: \(error) for \(frame)")
        }
        do {
            let again = try ClientFrame(jsonData: encoded)
            require(again == frame, "client frame changed in a round trip: \(frame) became \(again)")
        } catch {
            fatalError("a re-encoded client frame does not decode: \(error) for \(String(decoding: encoded, as: UTF8.self))")
        }
    }

    // A text frame is valid UTF-8 by the time the connection sees it.
    let text = String(decoding: bytes, as: UTF8.self)
    let borrowed = RealtimeSession.decode(text)
    let copied = Result { () throws(FrameDecodingError) in try ServerFrame(jsonData: Data(text.utf8)) }
    switch (borrowed, copied) {
    case (.success(let a), .success(let b)): require(a == b, "zero-copy decoding differs: \(a) vs \(b)")
    case (.failure, .failure):
        // Both reject the frame. The reasons may differ: for an invalid number inside a JSON object that decodes
        // as a dictionary (e.g. the `data` of an unknown type), Foundation's decoder reports whichever member it
        // meets first, and the member order of its dictionaries varies between runs.
        break
    default: fatalError("zero-copy decoding disagrees with decoding a copy: \(borrowed) vs \(copied)")
    }
    if case .success(let frame) = borrowed, let replyTo = frame.replyTo, let id = RequestID.parse(replyTo) {
        require(RequestID.text(id) == replyTo, "request id \(replyTo) parsed as \(id)")
    }

    if size >= 2 {
        let code = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        let reason = RealtimeCloseReason(code: code, reason: String(decoding: bytes.dropFirst(2), as: UTF8.self))
        require(reason.code == code, "close code \(code) became \(reason)")
    }
    return 0
}

/// Stops the run with `message` when `condition` is false. Unlike `precondition`, the message is printed in
/// optimized builds, so a crash report says which property broke.
private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
