import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The soak's requests: small GETs over TLS with HTTP/2 and HTTP/1.1 (nginx) and over plain HTTP/1.1 (the in-process
/// server), uploads (httpbin), 1 MiB downloads to files (nginx), downloads cancelled at a random point and requests
/// that time out (the in-process server's throttled and delayed answers, which nginx and httpbin cannot give), each
/// checked for the outcome it must have.
struct SoakWorkload: Sendable {
    enum Kind: String, CaseIterable, Sendable {
        case getHTTP2TLS = "GET h2 TLS"
        case getHTTP1TLS = "GET h1 TLS"
        case getPlain = "GET h1 plain"
        case upload = "upload 64 KiB"
        case download = "download 1 MiB"
        case cancel = "cancel"
        case timeout = "timeout"

        /// How often the kind comes, out of 100.
        var weight: Int {
            switch self {
            case .getHTTP2TLS: 30
            case .getHTTP1TLS: 20
            case .getPlain: 25
            case .upload: 8
            case .download: 7
            case .cancel: 5
            case .timeout: 5
            }
        }

        static func pick(using random: inout some RandomNumberGenerator) -> Kind {
            var roll = Int.random(in: 0..<100, using: &random)
            for kind in allCases {
                if roll < kind.weight { return kind }
                roll -= kind.weight
            }
            return .getPlain
        }
    }

    static let smallSize = 2048
    static let largeSize = 1 << 20
    static let uploadSize = 64 << 10
    /// The timeout of `.timeout` requests, against an answer that comes after 1 s.
    static let timeout: TimeInterval = 0.2

    let http2: URLSessionManager
    let http1: URLSessionManager
    let plain: URLSessionManager
    let small: URL
    let large: URL
    let plainSmall: URL
    let upload: URL
    let throttled: URL
    let delayed: URL
    let folder: URL

    /// Runs one request of `kind`; `nil` when it ended as it must, otherwise what went wrong.
    func run(_ kind: Kind, random: inout some RandomNumberGenerator) async -> String? {
        do {
            switch kind {
            case .getHTTP2TLS:
                return try await expectBody(http2, small, size: Self.smallSize)
            case .getHTTP1TLS:
                return try await expectBody(http1, small, size: Self.smallSize)
            case .getPlain:
                return try await expectBody(plain, plainSmall, size: 512)
            case .upload:
                var request = URLRequest(url: upload, timeoutInterval: 30)
                request.httpMethod = "POST"
                request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
                let (data, response) = try await plain.upload(for: request, from: Data(repeating: UInt8(ascii: "u"), count: Self.uploadSize))
                return response.statusCode == 200 && data.count > Self.uploadSize ? nil : "upload: \(response.statusCode), \(data.count) bytes back"
            case .download:
                let file = folder.appendingPathComponent(UUID().uuidString)
                defer { try? FileManager.default.removeItem(at: file) }
                let saved = try await http2.download(URLRequest(url: large, timeoutInterval: 30), to: file)
                let size = (try FileManager.default.attributesOfItem(atPath: saved.path)[.size] as? NSNumber)?.intValue
                return size == Self.largeSize ? nil : "download: \(size ?? -1) bytes saved"
            case .cancel:
                let after = Duration.milliseconds(Int.random(in: 1...150, using: &random))
                let transfer = Task { [plain, throttled] in try await plain.data(for: URLRequest(url: throttled, timeoutInterval: 30)) }
                try await Task.sleep(for: after)
                transfer.cancel()
                do {
                    _ = try await transfer.value
                    return "cancel after \(after): the throttled download finished"
                } catch let error as URLError where error.code == .cancelled {
                    return nil
                } catch is CancellationError {
                    return nil
                }
            case .timeout:
                let started = ContinuousClock.now
                do {
                    let (_, response) = try await plain.data(for: URLRequest(url: delayed, timeoutInterval: Self.timeout))
                    return "timeout: answered \(response.statusCode) instead"
                } catch let error as URLError where error.code == .timedOut {
                    let elapsed = Self.seconds(ContinuousClock.now - started)
                    // Late by more than a second under load is a timeout that did not fire.
                    return elapsed < Self.timeout + 1 ? nil : "timeout: fired after \(elapsed) s"
                }
            }
        } catch {
            return "\(kind.rawValue): \(error)"
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func expectBody(_ manager: URLSessionManager, _ url: URL, size: Int) async throws -> String? {
        let (data, response) = try await manager.data(for: URLRequest(url: url, timeoutInterval: 30))
        return response.statusCode == 200 && data.count == size ? nil : "GET \(url.path): \(response.statusCode), \(data.count) bytes"
    }
}
