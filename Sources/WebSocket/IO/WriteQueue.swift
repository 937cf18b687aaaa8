/// Bytes accepted for a socket but not yet written, in order; small writes are coalesced so that a burst of
/// tiny frames costs one iovec entry of a `sendmsg`, not one each.
struct WriteQueue {
    private var chunks: [[UInt8]] = []
    private var head = 0
    /// Bytes of `chunks[head]` already written.
    private var offset = 0
    /// Bytes waiting to be written.
    private(set) var count = 0

    /// Chunks below this size absorb following writes instead of queueing another chunk.
    private static let coalesceLimit = 64 * 1024

    var isEmpty: Bool { count == 0 }

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        count += bytes.count
        if chunks.count > head, chunks[chunks.count - 1].count + bytes.count <= Self.coalesceLimit {
            chunks[chunks.count - 1].append(contentsOf: bytes)
        } else {
            chunks.append(bytes)
        }
    }

    /// Appends what `other` still holds, after this queue's bytes.
    mutating func append(_ other: WriteQueue) {
        guard other.count > 0 else { return }
        for index in other.head..<other.chunks.count {
            let chunk = other.chunks[index]
            append(index == other.head && other.offset > 0 ? Array(chunk[other.offset...]) : chunk)
        }
    }

    /// Calls `body` with up to `maxChunks` pending byte ranges, oldest first; `body` returns how many bytes it wrote.
    mutating func write(maxChunks: Int = 64, _ body: ([UnsafeRawBufferPointer]) -> Int) -> Int {
        guard count > 0 else { return 0 }
        let end = min(chunks.count, head + maxChunks)
        var buffers: [UnsafeRawBufferPointer] = []
        buffers.reserveCapacity(end - head)
        // The pointers stay valid while `body` runs: the chunks are not mutated until it returns.
        func collect(_ index: Int) -> Int {
            if index == end { return body(buffers) }
            return chunks[index].withUnsafeBytes { raw in
                buffers.append(index == head ? UnsafeRawBufferPointer(rebasing: raw[offset...]) : raw)
                return collect(index + 1)
            }
        }
        let written = collect(head)
        if written > 0 { consume(written) }
        return written
    }

    private mutating func consume(_ written: Int) {
        var remaining = written
        count -= written
        while remaining > 0 {
            let available = chunks[head].count - offset
            if remaining >= available {
                remaining -= available
                chunks[head] = []
                head += 1
                offset = 0
            } else {
                offset += remaining
                remaining = 0
            }
        }
        if head == chunks.count {
            chunks.removeAll(keepingCapacity: chunks.count <= 16)
            head = 0
        } else if head > 32 && head * 2 > chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
    }
}
