import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one-line message for an error that ended a download: a full disk said as such (with where the downloaded bytes
/// were kept, when the library kept them), a ``CLIFailure``'s own message, a `URLError`'s description, else the error
/// as it prints.
enum TransferFailureMessage {
    /// The message for `error`.
    static func describe(_ error: any Error) -> String {
        if let failure = error as? CLIFailure { return failure.message }
        if isDiskFull(error) {
            let kept = (error as? URLError)?.userInfo["CourierDownloadedFileURL"] as? URL
            return "no space left on device" + (kept.map { "; the downloaded bytes were kept at \($0.path)" } ?? "")
        }
        return (error as? URLError)?.localizedDescription ?? "\(error)"
    }

    /// Whether `error`, or an error it wraps (`NSUnderlyingErrorKey`, up to 8 deep), is ENOSPC or
    /// `CocoaError.fileWriteOutOfSpace`.
    static func isDiskFull(_ error: any Error) -> Bool {
        var current: NSError? = error as NSError
        for _ in 0..<8 {
            guard let error = current else { return false }
            if error.domain == NSPOSIXErrorDomain && error.code == Int(ENOSPC) { return true }
            if error.domain == NSCocoaErrorDomain && error.code == CocoaError.fileWriteOutOfSpace.rawValue { return true }
            current = error.userInfo[NSUnderlyingErrorKey] as? NSError
        }
        return false
    }
}
