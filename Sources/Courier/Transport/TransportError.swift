import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Maps SwiftNIO and AsyncHTTPClient failures to the `URLError` a URLSession user expects,
/// with the failing URL and the engine's own error attached.
enum TransportError {
    /// The `URLError` for `error`, which happened while talking to `url`.
    static func urlError(for error: any Error, url: URL) -> URLError {
        if var urlError = error as? URLError {
            if urlError.failingURL == nil {
                urlError = URLError(urlError.code, userInfo: userInfo(url: url, underlying: urlError, message: urlError.localizedDescription))
            }
            return urlError
        }
        let (code, message) = classify(error)
        return URLError(code, userInfo: userInfo(url: url, underlying: error, message: message))
    }

    private static func userInfo(url: URL, underlying: any Error, message: String) -> [String: Any] {
        [
            NSURLErrorFailingURLErrorKey: url,
            NSUnderlyingErrorKey: underlying,
            NSLocalizedDescriptionKey: "\(message) (\(url.absoluteString))",
        ]
    }

    /// The URLError code and a one-line message for an engine error.
    static func classify(_ error: any Error) -> (URLError.Code, String) {
        if error is CancellationError { return (.cancelled, "The request was cancelled.") }
        if let error = error as? ServerTrustError { return (.serverCertificateUntrusted, error.description + ".") }
        if let error = error as? ProxyError { return (error.urlError.code, error.description) }
        if let error = error as? InvalidResponseStatus { return (.badServerResponse, error.description) }
        if let error = error as? StaleConnectionError { return (.networkConnectionLost, error.description) }
        if let error = error as? HTTPClientError { return classify(error) }
        if let error = error as? NIOConnectionError { return classify(error) }
        if let error = error as? IOError { return classify(errno: error.errnoCode, error) }
        if let error = error as? ChannelError { return classify(error) }
        if let error = error as? NIOSSLError { return classify(error) }
        if let error = error as? BoringSSLError { return classifyTLSFailure("\(error)") }
        if let error = error as? HTTPParserError {
            if case .invalidEOFState = error {
                return (.networkConnectionLost, "The server closed the connection before the response was complete.")
            }
            return (.badServerResponse, "The server's response could not be parsed: \(error).")
        }
        if let error = error as? SocketAddressError {
            return (.cannotFindHost, "The host name could not be resolved: \(error).")
        }
        if let error = error as? NIOSSLExtraError {
            return (.secureConnectionFailed, "TLS failed: \(error).")
        }
        return (.unknown, "The request failed: \(error).")
    }

    private static func classify(_ error: HTTPClientError) -> (URLError.Code, String) {
        switch error {
        case .cancelled, .requestStreamCancelled:
            return (.cancelled, "The request was cancelled.")
        case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .tlsHandshakeTimeout,
             .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            return (.timedOut, "The request timed out.")
        case .remoteConnectionClosed, .uncleanShutdown:
            return (.networkConnectionLost, "The network connection was lost.")
        case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath:
            return (.badURL, "The URL is not valid.")
        case .bodyLengthMismatch:
            return (.networkConnectionLost, "The body length did not match its Content-Length.")
        case .traceRequestWithBody:
            return (.badURL, "The request is not valid: \(error).")
        case .proxyAuthenticationRequired:
            return (.userAuthenticationRequired, "The proxy requires authentication.")
        case .alreadyShutdown:
            return (.cancelled, "The transport has been shut down.")
        default:
            return (.unknown, "The request failed: \(error).")
        }
    }

    private static func classify(_ error: NIOConnectionError) -> (URLError.Code, String) {
        if let failure = error.connectionErrors.first {
            return classify(failure.error)
        }
        if error.dnsAError != nil || error.dnsAAAAError != nil {
            return (.cannotFindHost, "The host \(error.host) could not be found.")
        }
        return (.cannotConnectToHost, "Could not connect to \(error.host):\(error.port).")
    }

    private static func classify(errno code: Int32, _ error: IOError) -> (URLError.Code, String) {
        switch code {
        case ECONNREFUSED:
            return (.cannotConnectToHost, "The server refused the connection.")
        case ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL:
            return (.cannotConnectToHost, "The host is unreachable.")
        case ETIMEDOUT:
            return (.timedOut, "The connection timed out.")
        case ECONNRESET, EPIPE, ECONNABORTED:
            return (.networkConnectionLost, "The network connection was lost.")
        default:
            return (.cannotConnectToHost, "The connection failed: \(error).")
        }
    }

    private static func classify(_ error: ChannelError) -> (URLError.Code, String) {
        switch error {
        case .connectTimeout:
            return (.timedOut, "The connection timed out.")
        case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed:
            return (.networkConnectionLost, "The network connection was lost.")
        default:
            return (.networkConnectionLost, "The connection failed: \(error).")
        }
    }

    /// A TLS failure from its BoringSSL text: the server's certificate failed verification, the server asked for a
    /// client certificate or refused ours (its alerts about certificates concern the client's), or anything else. Said
    /// in words: BoringSSL's text (error numbers, "OPENSSL_internal", the path of the source file it was built from)
    /// stays in the `URLError`'s underlying error.
    static func classifyTLSFailure(_ text: String) -> (URLError.Code, String) {
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") {
            // BoringSSL does not say which check failed (the verify result is not in its error queue).
            return (.serverCertificateUntrusted, "The server's certificate is not trusted: its chain does not lead to a "
                + "certificate authority this client trusts (an unknown or self-signed issuer, or a missing intermediate "
                + "certificate), or a certificate in it has expired or is not valid yet.")
        }
        let reason = tlsReason(in: text)
        if text.contains("ALERT_CERTIFICATE_REQUIRED") {
            return (.clientCertificateRequired, "The server requires a client certificate.")
        }
        if text.contains("ALERT_UNKNOWN_CA") || text.contains("ALERT_BAD_CERTIFICATE")
            || text.contains("ALERT_CERTIFICATE_") || text.contains("ALERT_UNSUPPORTED_CERTIFICATE") {
            return (.clientCertificateRejected, "The server refused the client certificate (\(reason)).")
        }
        return (.secureConnectionFailed, "The TLS handshake failed (\(reason)).")
    }

    /// BoringSSL's reason in words: `…:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER at …` → "wrong version
    /// number"; "the TLS library gave no reason" when the text has none.
    static func tlsReason(in text: String) -> String {
        guard let marker = text.range(of: "OPENSSL_internal:") else { return "the TLS library gave no reason" }
        let token = text[marker.upperBound...].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
        guard !token.isEmpty else { return "the TLS library gave no reason" }
        let words = token.lowercased().split(separator: "_").joined(separator: " ")
        return words.hasPrefix("sslv3 alert ") || words.hasPrefix("tlsv1 alert ") ? "the server's alert: " + words.split(separator: " ").dropFirst(2).joined(separator: " ") : words
    }

    private static func classify(_ error: NIOSSLError) -> (URLError.Code, String) {
        switch error {
        case .handshakeFailed(let sslError):
            return classifyTLSFailure("\(sslError)")
        case .uncleanShutdown:
            return (.networkConnectionLost, "The TLS connection was closed uncleanly.")
        default:
            return (.secureConnectionFailed, "TLS failed: \(error).")
        }
    }
}
