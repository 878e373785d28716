import Foundation

/// The resource every generated case serves: `length` bytes that depend on the case and on their position (a
/// SplitMix64 stream), so that bytes taken from another offset, another case or another length never compare equal
/// to the right ones. It is the generator's record of what a correct server sends.
struct FaultResource: Sendable, Equatable {
    let seed: UInt64
    let length: Int

    /// The whole representation.
    var bytes: Data {
        var generator = SplitMix64(seed: seed)
        var data = Data(capacity: length + 8)
        while data.count < length {
            withUnsafeBytes(of: generator.next().littleEndian) { data.append(contentsOf: $0) }
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
