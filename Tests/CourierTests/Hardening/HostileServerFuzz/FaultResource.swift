import Foundation
import Synchronization

/// The resource every generated case serves: `length` bytes that depend on the case and on their position (a
/// SplitMix64 stream), so that bytes taken from another offset, another case or another length never compare equal
/// to the right ones. It is the generator's record of what a correct server sends.
///
/// A gzipped resource (``gzipped``) is served as the gzip of those bytes with `Content-Encoding: gzip`, to any request:
/// a client then holds exactly the resource (decoded) or exactly the gzip bytes (kept as sent, for a request that
/// accepted only `identity`), never a mix of the two.
struct FaultResource: Sendable, Equatable {
    let seed: UInt64
    let length: Int
    var gzipped = false

    /// What the server sends: ``bytes``, or their gzip.
    var representation: Data {
        gzipped ? Self.gzip(bytes) : bytes
    }

    /// The gzip of `data`, made once per resource (through the system's `gzip`).
    private static let compressed = Mutex<[Data: Data]>([:])
    private static func gzip(_ data: Data) -> Data {
        if let known = compressed.withLock({ $0[data] }) { return known }
        let made = HostileGzip.compress(data)
        compressed.withLock { $0[data] = made }
        return made
    }

    /// The whole representation.
    var bytes: Data {
        var generator = SplitMix64(seed: seed)
        let words = (length + 7) / 8
        // Written in place: appending eight bytes at a time made this a sixth of the fuzzer's CPU in a debug build.
        var data = Data(count: words * 8)
        data.withUnsafeMutableBytes { buffer in
            for word in 0..<words {
                buffer.storeBytes(of: generator.next().littleEndian, toByteOffset: word * 8, as: UInt64.self)
            }
        }
        return data.prefix(length)
    }

    /// The strong validator of this representation.
    var entityTag: String { "\"r\(String(seed, radix: 16))-\(length)\"" }
}

/// A small, fast, seedable generator (Steele, Lea and Flood's SplitMix64): the same seed gives the same cases on
/// every machine, so a failing case is reproduced from the seed printed with it.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
