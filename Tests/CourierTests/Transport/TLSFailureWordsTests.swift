@testable import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A TLS failure is said in words: BoringSSL's error numbers, its "OPENSSL_internal" and the path of the file it was
/// built from stay in the underlying error, out of the message a user reads.
@Suite("Transport: TLS failures in words")
struct TLSFailureWordsTests {
    static func boringSSL(_ reason: String) -> String {
        "sslError([Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:\(reason) at /build/checkouts/swift-nio-ssl/Sources/CNIOBoringSSL/ssl/handshake.cc:320])"
    }

    @Test func reasonsAreWords() {
        #expect(TransportError.tlsReason(in: Self.boringSSL("WRONG_VERSION_NUMBER")) == "wrong version number")
        #expect(TransportError.tlsReason(in: Self.boringSSL("SSLV3_ALERT_HANDSHAKE_FAILURE")) == "the server's alert: handshake failure")
        #expect(TransportError.tlsReason(in: "something else") == "the TLS library gave no reason")
    }

    @Test(arguments: [
        ("CERTIFICATE_VERIFY_FAILED", URLError.Code.serverCertificateUntrusted, "its chain does not lead to a certificate authority this client trusts"),
        ("TLSV1_ALERT_CERTIFICATE_REQUIRED", .clientCertificateRequired, "The server requires a client certificate."),
        ("TLSV1_ALERT_UNKNOWN_CA", .clientCertificateRejected, "The server refused the client certificate (the server's alert: unknown ca)."),
        ("WRONG_VERSION_NUMBER", .secureConnectionFailed, "The TLS handshake failed (wrong version number)."),
    ])
    func failuresAreSaidWithoutTheLibrarysInternals(reason: String, code: URLError.Code, words: String) {
        let (classified, message) = TransportError.classifyTLSFailure(Self.boringSSL(reason))
        #expect(classified == code)
        #expect(message.contains(words), "\(message)")
        for detail in ["OPENSSL_internal", "CNIOBoringSSL", "handshake.cc", "sslError", "268435581", reason] {
            #expect(!message.contains(detail), "\(detail) in \(message)")
        }
    }
}
