import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The message for an error that ended a request, a download or a batch entry: a full disk said as such (with where the
/// downloaded bytes were kept, when the library kept them), a ``CLIFailure``'s own message, a `URLError`'s description
/// (with what to do about a certificate, as a second line), else the error as it prints.
enum TransferFailureMessage {
    /// The message for `error`.
    static func describe(_ error: any Error) -> String {
        if let failure = error as? CLIFailure { return failure.message }
        if isDiskFull(error) {
            let kept = (error as? URLError)?.userInfo["CourierDownloadedFileURL"] as? URL
            return "no space left on device" + (kept.map { "; the downloaded bytes were kept at \($0.path)" } ?? "")
        }
        guard let urlError = error as? URLError else { return "\(error)" }
        return urlError.localizedDescription + (certificateHint(for: urlError).map { "\n  " + $0 } ?? "")
    }

    /// What the user can do about a certificate failure, in the options' terms; `nil` for other failures.
    static func certificateHint(for error: URLError) -> String? {
        switch error.code {
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot,
             .serverCertificateNotYetValid:
            if error.localizedDescription.contains("pinned") {
                return "hint: the server's certificates do not match --pin-cert or --pin-key; check the pinned file, "
                    + "or whether the server's certificate changed"
            }
            if error.localizedDescription.contains(" is not valid for ") {
                return "hint: use the host name the certificate names (-k skips every check, insecure)"
            }
            return "hint: if you trust this server, add its certificate authority with --cacert FILE (PEM), "
                + "pin its certificate with --pin-cert FILE, or skip verification with -k (insecure)"
        case .clientCertificateRequired:
            return "hint: give a client certificate with --cert FILE (and --key FILE when the key is separate)"
        case .clientCertificateRejected:
            return "hint: the server does not accept this --cert; check that its certificate authority is the one the server trusts"
        default:
            return nil
        }
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
