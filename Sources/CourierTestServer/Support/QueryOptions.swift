import Foundation
import Hummingbird

/// Typed access to query parameters, turning malformed values into 400 errors.
struct QueryOptions {
    let pairs: [(name: String, value: String)]

    init(_ request: Request) throws {
        guard let pairs = FormDecoding.query(request.uri.query) else {
            throw Responses.badRequest("invalid percent-encoding in query string")
        }
        self.pairs = pairs
    }

    /// The last value of `name`.
    func string(_ name: String) -> String? {
        FormDecoding.value(name, in: pairs)
    }

    /// `name` as an integer within `bounds`, `fallback` when absent.
    func int(_ name: String, default fallback: Int, in bounds: ClosedRange<Int>) throws -> Int {
        guard let text = string(name) else { return fallback }
        guard let value = Int(text), bounds.contains(value) else {
            throw Responses.badRequest("\(name) must be an integer in \(bounds.lowerBound)...\(bounds.upperBound)")
        }
        return value
    }

    /// `name` as a number of seconds within `bounds`, `fallback` when absent.
    func seconds(_ name: String, default fallback: Double, in bounds: ClosedRange<Double>) throws -> Double {
        guard let text = string(name) else { return fallback }
        guard let value = Double(text), value.isFinite, bounds.contains(value) else {
            throw Responses.badRequest("\(name) must be a number of seconds in \(bounds.lowerBound)...\(bounds.upperBound)")
        }
        return value
    }

    /// `name` as a `UInt64` seed, or `nil` when absent.
    func seed(_ name: String = "seed") throws -> UInt64? {
        guard let text = string(name) else { return nil }
        if let value = UInt64(text) { return value }
        if let value = Int64(text) { return UInt64(bitPattern: value) }
        throw Responses.badRequest("\(name) must be an integer")
    }
}

/// Sleeps for a number of seconds (fractions allowed).
func sleep(seconds: Double) async throws {
    guard seconds > 0 else { return }
    try await Task.sleep(for: .milliseconds(Int((seconds * 1000).rounded())))
}
