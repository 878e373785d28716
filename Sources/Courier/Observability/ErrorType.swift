import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The low-cardinality name of a failure that logs, spans (`error.type`) and metrics label it with: the `URLError`
/// code's name (`timedOut`, `cancelled`…), `cancelled` for a `CancellationError`, else the error's type name.
enum ErrorType {
    static func name(of error: any Error) -> String {
        if error is CancellationError { return "cancelled" }
        guard let urlError = error as? URLError else { return String(describing: type(of: error)) }
        return codeNames[urlError.code.rawValue] ?? "URLError(\(urlError.code.rawValue))"
    }

    /// Foundation gives `URLError.Code` no names on Linux; these are the codes Courier produces.
    private static let codeNames: [Int: String] = [
        URLError.Code.unknown.rawValue: "unknown",
        URLError.Code.cancelled.rawValue: "cancelled",
        URLError.Code.badURL.rawValue: "badURL",
        URLError.Code.timedOut.rawValue: "timedOut",
        URLError.Code.unsupportedURL.rawValue: "unsupportedURL",
        URLError.Code.cannotFindHost.rawValue: "cannotFindHost",
        URLError.Code.cannotConnectToHost.rawValue: "cannotConnectToHost",
        URLError.Code.networkConnectionLost.rawValue: "networkConnectionLost",
        URLError.Code.dnsLookupFailed.rawValue: "dnsLookupFailed",
        URLError.Code.httpTooManyRedirects.rawValue: "httpTooManyRedirects",
        URLError.Code.resourceUnavailable.rawValue: "resourceUnavailable",
        URLError.Code.notConnectedToInternet.rawValue: "notConnectedToInternet",
        URLError.Code.redirectToNonExistentLocation.rawValue: "redirectToNonExistentLocation",
        URLError.Code.badServerResponse.rawValue: "badServerResponse",
        URLError.Code.userCancelledAuthentication.rawValue: "userCancelledAuthentication",
        URLError.Code.userAuthenticationRequired.rawValue: "userAuthenticationRequired",
        URLError.Code.zeroByteResource.rawValue: "zeroByteResource",
        URLError.Code.cannotDecodeRawData.rawValue: "cannotDecodeRawData",
        URLError.Code.cannotDecodeContentData.rawValue: "cannotDecodeContentData",
        URLError.Code.cannotParseResponse.rawValue: "cannotParseResponse",
        URLError.Code.fileDoesNotExist.rawValue: "fileDoesNotExist",
        URLError.Code.noPermissionsToReadFile.rawValue: "noPermissionsToReadFile",
        URLError.Code.dataLengthExceedsMaximum.rawValue: "dataLengthExceedsMaximum",
        URLError.Code.secureConnectionFailed.rawValue: "secureConnectionFailed",
        URLError.Code.serverCertificateHasBadDate.rawValue: "serverCertificateHasBadDate",
        URLError.Code.serverCertificateUntrusted.rawValue: "serverCertificateUntrusted",
        URLError.Code.serverCertificateHasUnknownRoot.rawValue: "serverCertificateHasUnknownRoot",
        URLError.Code.serverCertificateNotYetValid.rawValue: "serverCertificateNotYetValid",
        URLError.Code.clientCertificateRejected.rawValue: "clientCertificateRejected",
        URLError.Code.clientCertificateRequired.rawValue: "clientCertificateRequired",
        URLError.Code.cannotLoadFromNetwork.rawValue: "cannotLoadFromNetwork",
        URLError.Code.cannotCreateFile.rawValue: "cannotCreateFile",
        URLError.Code.cannotOpenFile.rawValue: "cannotOpenFile",
        URLError.Code.cannotCloseFile.rawValue: "cannotCloseFile",
        URLError.Code.cannotWriteToFile.rawValue: "cannotWriteToFile",
        URLError.Code.cannotRemoveFile.rawValue: "cannotRemoveFile",
        URLError.Code.cannotMoveFile.rawValue: "cannotMoveFile",
        URLError.Code.downloadDecodingFailedMidStream.rawValue: "downloadDecodingFailedMidStream",
        URLError.Code.downloadDecodingFailedToComplete.rawValue: "downloadDecodingFailedToComplete",
        URLError.Code.requestBodyStreamExhausted.rawValue: "requestBodyStreamExhausted",
    ]
}
