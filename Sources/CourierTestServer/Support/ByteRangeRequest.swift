import Foundation

/// A `Range: bytes=...` request header (RFC 9110 §14.1), single range only.
enum ByteRangeRequest: Equatable {
    /// `bytes=first-last` or `bytes=first-` (`last` nil).
    case from(first: Int, last: Int?)
    /// `bytes=-length`: the final `length` bytes.
    case suffix(length: Int)

    /// Parses the header; `nil` when it is absent, malformed, not in bytes, or has several ranges
    /// (all of which a server may ignore and answer with the full representation).
    init?(header: String?) {
        guard let header else { return nil }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let firstText = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let lastText = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if firstText.isEmpty {
            guard let length = Self.number(lastText) else { return nil }
            self = .suffix(length: length)
        } else {
            guard let first = Self.number(firstText) else { return nil }
            if lastText.isEmpty {
                self = .from(first: first, last: nil)
            } else {
                guard let last = Self.number(lastText), last >= first else { return nil }
                self = .from(first: first, last: last)
            }
        }
    }

    /// The byte positions selected in a representation of `length` bytes, or `nil` when unsatisfiable.
    func resolve(length: Int) -> ClosedRange<Int>? {
        switch self {
        case .from(let first, let last):
            guard first < length else { return nil }
            return first...min(last ?? (length - 1), length - 1)
        case .suffix(let suffix):
            guard suffix > 0, length > 0 else { return nil }
            return max(0, length - suffix)...(length - 1)
        }
    }

    private static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) else { return nil }
        return Int(text)
    }
}
