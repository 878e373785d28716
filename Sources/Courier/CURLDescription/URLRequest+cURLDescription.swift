import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// The equivalent curl command line, as one line a POSIX shell can run (like Alamofire's `cURLDescription`):
    /// the method, every header field, the body and the URL, each argument shell-quoted.
    /// Same as ``cURLDescription(options:)`` with default ``CURLCommandOptions``.
    public var cURLDescription: String {
        cURLDescription(options: CURLCommandOptions())
    }

    /// The equivalent curl command line, as one line a POSIX shell can run, each argument shell-quoted.
    ///
    /// - The method: none for a `GET` (or a `POST` with a body, which curl infers), `--head` for `HEAD`,
    ///   `-X METHOD` otherwise.
    /// - Every header field as `-H 'Name: value'`, sorted by name; `Content-Length` is left to curl.
    /// - The body: `--data-binary @file` for ``CURLCommandOptions/bodyFile``; `httpBody` inline as
    ///   `--data-binary 'text'` (bytes that are not UTF-8 text as a `$'\xHH'` word, which bash and zsh read; a
    ///   body with NUL bytes must be given as a body file); a multipart form from
    ///   ``HTTPRequestSerializer/multipartFormRequest(method:urlString:parameters:constructingBodyWith:)`` as
    ///   `--form-string`/`-F` arguments (curl then writes the `Content-Type` with its own boundary); any other
    ///   body stream as `--data-binary @-`, to be given on standard input.
    /// - Then the options (credential, redirects, output file, TLS) and the URL last.
    ///
    /// The command carries credentials and header values (cookies, tokens) in clear text.
    public func cURLDescription(options: CURLCommandOptions) -> String {
        var words = ["curl"]
        let method = (httpMethod ?? "GET").uppercased()
        let multipart = httpBodyStream as? MultipartBodyStream
        let hasBody = httpBody != nil || httpBodyStream != nil || options.bodyFile != nil
        switch method {
        case "GET" where !hasBody, "POST" where hasBody:
            break
        case "HEAD":
            words.append("--head")
        default:
            words += ["-X", ShellQuoting.quote(method)]
        }

        let headers = (allHTTPHeaderFields ?? [:]).sorted {
            $0.key.lowercased() == $1.key.lowercased() ? $0.key < $1.key : $0.key.lowercased() < $1.key.lowercased()
        }
        for (name, value) in headers {
            let lowercased = name.lowercased()
            if lowercased == "content-length" { continue }
            if lowercased == "content-type", multipart != nil, options.bodyFile == nil { continue }
            // `Name;` is curl's way to send a header with an empty value.
            words += ["-H", ShellQuoting.quote(value.isEmpty ? "\(name);" : "\(name): \(value)")]
        }

        if let file = options.bodyFile {
            words += ["--data-binary", ShellQuoting.quote("@" + file.path)]
        } else if let body = httpBody {
            words += ["--data-binary", ShellQuoting.quote(bytes: body)]
        } else if let multipart {
            words += CURLFormArguments.arguments(for: multipart.parts)
        } else if httpBodyStream != nil {
            words += ["--data-binary", "@-"]
        }

        words += Self.curlOptionWords(options)
        words.append(ShellQuoting.quote(url?.absoluteString ?? ""))
        return words.joined(separator: " ")
    }

    private static func curlOptionWords(_ options: CURLCommandOptions) -> [String] {
        var words: [String] = []
        if let credential = options.credential, let user = credential.user {
            words += ["--anyauth", "-u", ShellQuoting.quote("\(user):\(credential.password ?? "")")]
        }
        if options.followsRedirects {
            words.append("-L")
            if let limit = options.maximumRedirects { words += ["--max-redirs", String(limit)] }
        }
        if let output = options.outputFile {
            words += ["-o", ShellQuoting.quote(output.path)]
        }
        if options.allowsInvalidCertificates {
            words.append("-k")
        }
        if let authorities = options.certificateAuthorityFile {
            words += ["--cacert", ShellQuoting.quote(authorities)]
        }
        let keys = options.pinnedPublicKeyCertificates.flatMap { CertificateDecoding.certificates(fromDERorPEM: $0).map(\.publicKey) }
            + options.pinnedPublicKeys.flatMap { CertificateDecoding.publicKeys(fromDERorPEM: $0) }
        let pins = keys
            .compactMap { try? CertificateDecoding.subjectPublicKeyInfo(of: $0) }
            .map { "sha256//" + Data(SHA256.hash(data: $0)).base64EncodedString() }
        if !pins.isEmpty {
            words += ["--pinnedpubkey", ShellQuoting.quote(pins.joined(separator: ";"))]
        }
        if let certificate = options.clientCertificateFile {
            words += ["--cert", ShellQuoting.quote(certificate)]
        }
        if let key = options.clientKeyFile {
            words += ["--key", ShellQuoting.quote(key)]
        }
        if let proxy = options.proxy {
            words += ["--proxy", ShellQuoting.quote(proxy)]
        }
        if let noProxy = options.noProxy {
            words += ["--noproxy", ShellQuoting.quote(noProxy)]
        }
        if let socket = options.unixSocketPath {
            words += ["--unix-socket", ShellQuoting.quote(socket)]
        }
        return words
    }
}
