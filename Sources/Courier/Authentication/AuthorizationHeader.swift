import Crypto
import Foundation

/// Builds `Authorization` header values for the schemes Courier answers.
enum AuthorizationHeader {
    /// `Basic base64(user:password)`, UTF-8 encoded (RFC 7617).
    static func basic(user: String, password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// A Digest response (RFC 7616) for `scheme`'s parameters, or `nil` when the challenge uses an
    /// algorithm or quality of protection Courier does not support (MD5 and SHA-256, with or
    /// without `-sess`; `qop=auth` or none).
    /// - Parameters:
    ///   - nonceCount: The `nc` value: 1 for the first request with this nonce.
    ///   - clientNonce: The `cnonce` value; random by default.
    static func digest(
        scheme: AuthenticationScheme,
        user: String,
        password: String,
        method: String,
        uri: String,
        nonceCount: Int = 1,
        clientNonce: String = DigestHash.randomNonce()
    ) -> String? {
        let parameters = scheme.parameters
        guard let nonce = parameters["nonce"] else { return nil }
        let realm = parameters["realm"] ?? ""
        let algorithmName = parameters["algorithm"] ?? "MD5"
        guard let algorithm = DigestHash(name: algorithmName) else { return nil }

        let offered = (parameters["qop"] ?? "")
            .split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let usesQop = offered.contains("auth")
        guard usesQop || parameters["qop"] == nil else { return nil }

        let nc = String(format: "%08x", nonceCount)
        var ha1 = algorithm.hash("\(user):\(realm):\(password)")
        if algorithm.isSession {
            ha1 = algorithm.hash("\(ha1):\(nonce):\(clientNonce)")
        }
        let ha2 = algorithm.hash("\(method):\(uri)")
        let response = usesQop
            ? algorithm.hash("\(ha1):\(nonce):\(nc):\(clientNonce):auth:\(ha2)")
            : algorithm.hash("\(ha1):\(nonce):\(ha2)")

        var fields = [
            "username=\(quoted(user))",
            "realm=\(quoted(realm))",
            "nonce=\(quoted(nonce))",
            "uri=\(quoted(uri))",
            "algorithm=\(algorithmName)",
            "response=\(quoted(response))",
        ]
        if usesQop {
            fields += ["qop=auth", "nc=\(nc)", "cnonce=\(quoted(clientNonce))"]
        }
        if let opaque = parameters["opaque"] {
            fields.append("opaque=\(quoted(opaque))")
        }
        return "Digest " + fields.joined(separator: ", ")
    }

    private static func quoted(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// The hash functions of HTTP Digest authentication.
struct DigestHash {
    private enum Function { case md5, sha256 }
    private let function: Function
    /// `true` for the `-sess` variants.
    let isSession: Bool

    /// `MD5`, `MD5-sess`, `SHA-256` or `SHA-256-sess` (case-insensitive); `nil` otherwise.
    init?(name: String) {
        var base = name.uppercased()
        isSession = base.hasSuffix("-SESS")
        if isSession { base.removeLast(5) }
        switch base {
        case "MD5": function = .md5
        case "SHA-256": function = .sha256
        default: return nil
        }
    }

    /// The lower-case hex digest of `text` in UTF-8.
    func hash(_ text: String) -> String {
        let bytes = Data(text.utf8)
        switch function {
        case .md5: return Insecure.MD5.hash(data: bytes).hexString
        case .sha256: return SHA256.hash(data: bytes).hexString
        }
    }

    /// 16 random bytes as hex.
    static func randomNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }.hexString
    }
}

extension Sequence<UInt8> {
    /// The bytes as lower-case hexadecimal (a table lookup per nibble: `String(format:)` costs microseconds a byte
    /// on Linux, and the cache names a file this way per request).
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
