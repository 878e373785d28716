import Foundation

extension OperationArchive {
    /// The most bytes an archive may count, 2⁶²: more than any file system holds, and far enough below `Int64.max`
    /// that adding a body's length to it cannot overflow.
    static let largestByteCount: Int64 = 1 << 62

    /// This archive as an operation restores it, or why it cannot be restored. An archive is a file a user may be
    /// handed, so nothing in it is taken on trust: the format version, the status code, every byte count and the
    /// output path are checked, and the request by ``Request/validated()``. An operation archived while executing or
    /// paused comes back ready, as ``URLConnectionOperation/makeArchive()`` writes it.
    /// - Throws: ``OperationArchiveError``.
    func validated() throws(OperationArchiveError) -> OperationArchive {
        guard version == 1 else { throw .unsupportedVersion(version) }
        _ = try request.validated()
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

extension OperationArchive.Request {
    /// This request, or why no transport would send it: the rules every stored request is read back with (an
    /// operation's archive, a durable queue's job). A URL, when present, must be one Courier sends (`http`, `https`
    /// or `http+unix`, with a host); the method an HTTP token; the header fields what
    /// ``RequestHeaderError`` allows; the timeout a finite number of seconds, 0 or more. (An archive without a URL
    /// stays restorable: it fails as an unsupported URL when started.)
    /// - Throws: ``OperationArchiveError/invalid(field:reason:)`` naming the field.
    public func validated() throws(OperationArchiveError) -> Self {
        if let url {
            do {
                _ = try RequestURLCheck.check(url)
            } catch {
                throw .invalid(field: "request.url", reason: error.description)
            }
        }
        if let method, !RequestURLCheck.isToken(method) {
            throw .invalid(field: "request.method", reason: "\(method.debugDescription) is not an HTTP method token")
        }
        do {
            try RequestHeaderCheck.check(headers.map { (name: $0.key, value: $0.value) })
        } catch {
            throw .invalid(field: "request.headers", reason: error.description)
        }
        guard timeoutInterval.isFinite, timeoutInterval >= 0 else {
            throw .invalid(field: "request.timeoutInterval", reason: "\(timeoutInterval) is not a number of seconds from 0 up")
        }
        return self
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
