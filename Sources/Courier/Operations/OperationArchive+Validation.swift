import Foundation

extension OperationArchive {
    /// The most bytes an archive may count, 2⁶²: more than any file system holds, and far enough below `Int64.max`
    /// that adding a body's length to it cannot overflow.
    static let largestByteCount: Int64 = 1 << 62

    /// This archive as an operation restores it, or why it cannot be restored. An archive is a file a user may be
    /// handed, so nothing in it is taken on trust: the format version, the status code, every byte count and the
    /// output path are checked. An operation archived while executing or paused comes back ready, as
    /// ``URLConnectionOperation/makeArchive()`` writes it. (Header fields, the method and the URL are checked when the
    /// request is sent, as every request's are.)
    /// - Throws: ``OperationArchiveError``.
    func validated() throws(OperationArchiveError) -> OperationArchive {
        guard version == 1 else { throw .unsupportedVersion(version) }
        if let status = response?.statusCode, !(100...999).contains(status) {
            throw .invalid(field: "response.statusCode", reason: "\(status) is not a three-digit HTTP status code")
        }
        try Self.check(totalBytesRead, field: "totalBytesRead")
        if let resumption {
            try Self.check(resumption.offset, field: "resumption.offset")
            if let complete = resumption.completeLength {
                try Self.check(complete, field: "resumption.completeLength")
                guard complete >= resumption.offset else {
                    throw .invalid(
                        field: "resumption.completeLength",
                        reason: "\(complete) bytes is less than the \(resumption.offset) already received"
                    )
                }
            }
        }
        if let path = outputFilePath, !path.hasPrefix("/") || path.utf8.contains(0) {
            throw .invalid(field: "outputFilePath", reason: "\(path.debugDescription) is not an absolute file path")
        }
        var restored = self
        if state == .executing || state == .paused { restored.state = .ready }
        return restored
    }

    private static func check(_ count: Int64, field: String) throws(OperationArchiveError) {
        guard (0...largestByteCount).contains(count) else {
            throw .invalid(field: field, reason: "\(count) is not a byte count from 0 to 2^62")
        }
    }
}

/// Why an ``OperationArchive`` cannot be restored.
public enum OperationArchiveError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The archive's format is not one this Courier reads (it reads version 1): written by a newer Courier, or not by
    /// Courier at all.
    case unsupportedVersion(Int)
    /// A field holds a value no operation could have archived: a status code that is not three digits, a negative
    /// or impossibly large byte count, a resumption longer than its representation, an output path that is not
    /// absolute.
    case invalid(field: String, reason: String)

    /// A human-readable explanation naming the field.
    public var description: String {
        switch self {
        case .unsupportedVersion(let version):
            "the operation archive has format version \(version); this Courier reads version 1"
        case .invalid(let field, let reason):
            "the operation archive's \(field) is invalid: \(reason)"
        }
    }
}
