import Foundation
import NIOConcurrencyHelpers

/// The nonces a server has issued for HTTP Digest authentication, with their use counts.
///
/// A nonce is valid for ``lifetime`` after issue; each use must carry a nonce count (`nc`) greater
/// than the previous one (replays are refused); `stale_after` limits the number of uses.
final class DigestNonceStore: Sendable {
    /// How long an issued nonce stays valid.
    static let lifetime: Duration = .seconds(300)
    /// The most nonces remembered at once; the oldest are forgotten first.
    static let capacity = 10_000

    /// The outcome of presenting a nonce.
    enum Verdict: Equatable {
        case valid
        /// Unknown, expired, used too often, or a replayed nonce count.
        case stale
    }

    private struct Record {
        let issued: ContinuousClock.Instant
        var lastCount: UInt64 = 0
        var uses = 0
    }

    private let records = NIOLockedValueBox<[String: Record]>([:])
    /// The `opaque` value this server sends with every challenge.
    let opaque = DigestNonceStore.randomHex(byteCount: 16)

    /// Issues a new nonce.
    func issue() -> String {
        let nonce = Self.randomHex(byteCount: 16)
        let now = ContinuousClock.now
        records.withLockedValue { records in
            if records.count >= Self.capacity {
                records = records.filter { now - $0.value.issued < Self.lifetime }
                if records.count >= Self.capacity, let oldest = records.min(by: { $0.value.issued < $1.value.issued }) {
                    records[oldest.key] = nil
                }
            }
            records[nonce] = Record(issued: now)
        }
        return nonce
    }

    /// Records a use of `nonce` with nonce count `count` (0 when the client sent none).
    func use(_ nonce: String, count: UInt64, staleAfter: Int?) -> Verdict {
        records.withLockedValue { records in
            guard var record = records[nonce], ContinuousClock.now - record.issued < Self.lifetime else {
                records[nonce] = nil
                return .stale
            }
            if let staleAfter, record.uses >= staleAfter { return .stale }
            if count != 0 {
                guard count > record.lastCount else { return .stale }
                record.lastCount = count
            }
            record.uses += 1
            records[nonce] = record
            return .valid
        }
    }

    private static func randomHex(byteCount: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<byteCount).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }
}
