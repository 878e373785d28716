import Courier
import CourierTestServer
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The proxies of `scripts/proxy-test-servers` (tinyproxy and pproxy), described by the variables it exports.
enum ProxyServers {
    static var variables: [String: String] { ExternalServers.proxies.variables }

    /// Starts the proxies, nginx and httpbin if needed; whether all run.
    static func areRunning() async -> Bool {
        guard await ExternalServers.proxies.isRunning(), await NginxInterop.isRunning(), await HTTPBinServer.isRunning() else { return false }
        return variables["COURIER_TINYPROXY_AUTH_URL"] != nil && variables["COURIER_PPROXY_URL"] != nil
    }

    static func server(_ variable: String) throws -> ProxyServer {
        try ProxyServer(url: try #require(variables[variable]))
    }

    /// The open tinyproxy (no credentials needed).
    static func tinyproxy() throws -> ProxyServer { try server("COURIER_TINYPROXY_URL") }

    /// The tinyproxy that requires Basic credentials, with them when `credentials`.
    static func authenticatingTinyproxy(credentials: ProxyServer.Credentials?) throws -> ProxyServer {
        var server = try server("COURIER_TINYPROXY_AUTH_URL")
        server.credentials = credentials
        return server
    }

    static let goodCredentials = ProxyServer.Credentials(user: "courier", password: "proxy-secret")

    /// pproxy, SOCKS5.
    static func pproxy() throws -> ProxyServer { try server("COURIER_PPROXY_URL") }

    /// The lines of a proxy's log (`COURIER_TINYPROXY_LOG` and the like) that contain `text`, once there are at least
    /// `count` (waited for up to 5 s).
    static func log(_ variable: String, containing text: String, count: Int = 1) async throws -> [String] {
        let path = try #require(variables[variable])
        @Sendable func lines() -> [String] {
            let log = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            return log.split(separator: "\n").map(String.init).filter { $0.contains(text) }
        }
        _ = await eventually(timeout: .seconds(5)) { lines().count >= count }
        return lines()
    }

    /// The httpbin URL for `path` with a probe in its query.
    static func httpbinURL(_ path: String, probe: String) throws -> URL {
        let base: URL = try #require(HTTPBinServer.base)
        return try #require(URL(string: "\(path)?probe=\(probe)", relativeTo: base)?.absoluteURL)
    }

    /// An ephemeral session through `proxy`, trusting nginx's root (with `policy` instead when given).
    static func session(_ proxy: ProxyConfiguration, policy: SecurityPolicy? = nil) throws -> URLSessionManager {
        var configuration = SessionConfiguration.ephemeral
        configuration.securityPolicy = try policy ?? NginxInterop.policy()
        configuration.proxy = proxy
        configuration.urlCache = nil
        let manager = URLSessionManager(configuration: configuration)
        manager.completionQueue = SessionFixtures.completionQueue
        return manager
    }
}

/// Requests through tinyproxy (HTTP proxy: absolute form and CONNECT, Basic proxy credentials) and pproxy (SOCKS5),
/// to httpbin (plain HTTP) and nginx (HTTPS, HTTP/2). Each test finds its request in the proxy's own log, and the
/// bypass tests find it missing there and present at the origin.
@Suite("Proxies: tinyproxy and pproxy", .enabled(ExternalServers.proxies.skipMessage) { await ProxyServers.areRunning() })
struct ProxyInteropTests {
    @Test func plainHTTPGoesThroughTinyproxyInAbsoluteForm() async throws {
        let probe = NginxInterop.probe()
        let session = try ProxyServers.session(.all(try ProxyServers.tinyproxy()))
        defer { session.invalidateSessionCancelingTasks(true) }
        let url = try ProxyServers.httpbinURL("get", probe: probe)
        let (data, response) = try await session.data(for: URLRequest(url: url))
        #expect(response.statusCode == 200)

        // The proxy fetches the URL's origin, not whatever a caller's Host names.
        let misleading = NginxInterop.probe()
        var named = URLRequest(url: try ProxyServers.httpbinURL("get", probe: misleading))
        named.setValue("elsewhere.invalid", forHTTPHeaderField: "Host")
        _ = try await session.data(for: named)
        let fetched = try await ProxyServers.log("COURIER_TINYPROXY_LOG", containing: misleading)
        #expect(fetched.first?.contains("GET http://127.0.0.1:\(try #require(url.port))/get?probe=\(misleading)") == true, "\(fetched)")
        let echoed = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let headers = try #require(echoed["headers"] as? [String: String])
        #expect(headers["Host"] == "\(try #require(url.host)):\(try #require(url.port))", "the origin is named in Host: \(headers)")
        let lines = try await ProxyServers.log("COURIER_TINYPROXY_LOG", containing: probe)
        #expect(lines.count == 1, "tinyproxy logged: \(lines)")
        #expect(lines.first?.contains("GET http://127.0.0.1:\(try #require(url.port))/get?probe=\(probe) HTTP/1.1") == true, "\(lines)")
    }

    @Test func httpsGoesThroughATunnelAndThePolicyAppliesToTheOrigin() async throws {
        let probe = NginxInterop.probe()
        let nginxPort = try #require(NginxServer.url?.port)
        let connectsBefore = try await ProxyServers.log("COURIER_TINYPROXY_LOG", containing: "CONNECT 127.0.0.1:\(nginxPort) ", count: 0).count
        // Pinned on nginx's root: the handshake in the tunnel is with nginx, not with the proxy.
        let root = try Data(contentsOf: URL(fileURLWithPath: try #require(NginxServer.certificateAuthorityPath)))
        let pinned = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [root])
        pinned.trustedRootCertificates = [root]
        let session = try ProxyServers.session(.all(try ProxyServers.tinyproxy()), policy: pinned)
        defer { session.invalidateSessionCancelingTasks(true) }
        let (data, response) = try await session.data(for: try NginxInterop.request("hello.txt", probe: probe))
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "Hello from nginx\n")
        _ = try await NginxInterop.accessLog(probe: probe, count: 1)
        let connects = try await ProxyServers.log("COURIER_TINYPROXY_LOG", containing: "CONNECT 127.0.0.1:\(nginxPort) ", count: connectsBefore + 1)
        #expect(connects.count > connectsBefore, "no CONNECT to nginx in tinyproxy's log")

        // An unrelated pin through the same proxy still fails closed, before any request reaches nginx.
        let strangerLeaf = try CertificateFactory.makeLeaf(commonName: "stranger", dnsNames: ["127.0.0.1"], issuer: nil)
        let stranger = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [strangerLeaf.derBytes])
        stranger.trustedRootCertificates = [root]
        let refusing = try ProxyServers.session(.all(try ProxyServers.tinyproxy()), policy: stranger)
        defer { refusing.invalidateSessionCancelingTasks(true) }
        let refusedProbe = NginxInterop.probe()
        await #expect {
            _ = try await refusing.data(for: try NginxInterop.request("hello.txt", probe: refusedProbe))
        } throws: { error in
            (error as? URLError)?.code == .serverCertificateUntrusted
        }
        let later = NginxInterop.probe()
        _ = try await session.data(for: try NginxInterop.request("hello.txt", probe: later))
        _ = try await NginxInterop.accessLog(probe: later, count: 1)
        let log = try String(contentsOfFile: try #require(NginxInterop.accessLogPath), encoding: .utf8)
        #expect(!log.contains(refusedProbe))
    }

    @Test func basicProxyCredentialsForBothSchemes() async throws {
        let proxy = try ProxyServers.authenticatingTinyproxy(credentials: ProxyServers.goodCredentials)
        let session = try ProxyServers.session(.all(proxy))
        defer { session.invalidateSessionCancelingTasks(true) }
        let plainProbe = NginxInterop.probe()
        let (_, plain) = try await session.data(for: URLRequest(url: try ProxyServers.httpbinURL("headers", probe: plainProbe)))
        #expect(plain.statusCode == 200)
        #expect(try await ProxyServers.log("COURIER_TINYPROXY_AUTH_LOG", containing: plainProbe).count == 1)
        let secureProbe = NginxInterop.probe()
        let (_, secure) = try await session.data(for: try NginxInterop.request("hello.txt", probe: secureProbe))
        #expect(secure.statusCode == 200)
        _ = try await NginxInterop.accessLog(probe: secureProbe, count: 1)
    }

    @Test func proxyAuthenticationRequiredIsAClearError() async throws {
        let session = try ProxyServers.session(.all(try ProxyServers.authenticatingTinyproxy(credentials: nil)))
        defer { session.invalidateSessionCancelingTasks(true) }
        for request in [
            URLRequest(url: try ProxyServers.httpbinURL("get", probe: NginxInterop.probe())),
            try NginxInterop.request("hello.txt", probe: NginxInterop.probe()),
        ] {
            await #expect {
                _ = try await session.data(for: request)
            } throws: { error in
                guard let error = error as? URLError else { return false }
                return error.code == .userAuthenticationRequired && error.localizedDescription.contains("requires authentication")
            }
        }
    }

    /// tinyproxy answers wrong credentials with 401 instead of 407: for a tunnel that is a refused tunnel; a forwarded
    /// request's 401 cannot be told from the origin's, so it is delivered as the response.
    @Test func wrongProxyCredentialsAreRefused() async throws {
        let wrong = ProxyServer.Credentials(user: "courier", password: "wrong")
        let session = try ProxyServers.session(.all(try ProxyServers.authenticatingTinyproxy(credentials: wrong)))
        defer { session.invalidateSessionCancelingTasks(true) }
        await #expect {
            _ = try await session.data(for: try NginxInterop.request("hello.txt", probe: NginxInterop.probe()))
        } throws: { error in
            guard let error = error as? URLError else { return false }
            return error.code == .cannotConnectToHost && error.localizedDescription.contains("refused to open a tunnel")
        }
        let (_, forwarded) = try await session.data(for: URLRequest(url: try ProxyServers.httpbinURL("get", probe: NginxInterop.probe())))
        #expect(forwarded.statusCode == 401)
        #expect(forwarded.value(forHTTPHeaderField: "Server")?.hasPrefix("tinyproxy") == true)
    }

    @Test func socks5CarriesBothSchemes() async throws {
        let session = try ProxyServers.session(.all(try ProxyServers.pproxy()))
        defer { session.invalidateSessionCancelingTasks(true) }
        let plainURL = try ProxyServers.httpbinURL("get", probe: NginxInterop.probe())
        var plainRequest = URLRequest(url: plainURL)
        // Proxy credentials are for a forwarding proxy: through a tunnel they must not reach the origin.
        plainRequest.setValue("Basic c2VjcmV0", forHTTPHeaderField: "Proxy-Authorization")
        let (echo, plain) = try await session.data(for: plainRequest)
        #expect(plain.statusCode == 200)
        let headers = try #require((try JSONSerialization.jsonObject(with: echo) as? [String: Any])?["headers"] as? [String: String])
        #expect(headers["Proxy-Authorization"] == nil, "\(headers)")
        #expect(try await ProxyServers.log("COURIER_PPROXY_LOG", containing: "-> 127.0.0.1:\(try #require(plainURL.port))").count >= 1)
        let (data, secure) = try await session.data(for: try NginxInterop.request("hello.txt"))
        #expect(secure.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "Hello from nginx\n")
        #expect(try await ProxyServers.log("COURIER_PPROXY_LOG", containing: "-> 127.0.0.1:\(try #require(NginxServer.url?.port))").count >= 1)
    }

    @Test(arguments: ["127.0.0.1", "127.0.0.0/8", "*"])
    func noProxyBypassesTheProxy(_ list: String) async throws {
        let probe = NginxInterop.probe()
        let session = try ProxyServers.session(.all(try ProxyServers.tinyproxy(), bypass: try ProxyBypass(parsing: list)))
        defer { session.invalidateSessionCancelingTasks(true) }
        let (_, response) = try await session.data(for: URLRequest(url: try ProxyServers.httpbinURL("get", probe: probe)))
        #expect(response.statusCode == 200)
        #expect(try await HTTPBinServer.accessLog(probe: probe, count: 1).count == 1, "the request reached httpbin")
        #expect(try await ProxyServers.log("COURIER_TINYPROXY_LOG", containing: probe, count: 0).isEmpty, "and not through tinyproxy")
    }

    @Test func operationManagerSendsThroughItsProxy() async throws {
        let probe = NginxInterop.probe()
        let manager = HTTPRequestOperationManager()
        manager.proxy = .all(try ProxyServers.tinyproxy())
        manager.responseSerializer = HTTPResponseSerializer()
        let operation = manager.httpRequestOperation(
            with: URLRequest(url: try ProxyServers.httpbinURL("get", probe: probe)), success: nil, failure: nil
        )
        await OperationFixtures.run([operation])
        #expect(operation.response?.statusCode == 200, "\(String(describing: operation.error))")
        #expect(try await ProxyServers.log("COURIER_TINYPROXY_LOG", containing: probe).count == 1)
    }

    @Test func cliUsesTheEnvironmentsProxyAndItsOptions() async throws {
        let tinyproxy = try #require(ProxyServers.variables["COURIER_TINYPROXY_URL"])
        let viaEnvironment = NginxInterop.probe()
        let fromEnvironment = try await ChildProcess.run(
            "courier", ["get", try ProxyServers.httpbinURL("get", probe: viaEnvironment).absoluteString],
            environment: ["http_proxy": tinyproxy]
        )
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.standardError)")
        #expect(try await ProxyServers.log("COURIER_TINYPROXY_LOG", containing: viaEnvironment).count == 1)

        let bypassed = NginxInterop.probe()
        let noProxy = try await ChildProcess.run(
            "courier", ["get", "--noproxy", "127.0.0.1", try ProxyServers.httpbinURL("get", probe: bypassed).absoluteString],
            environment: ["http_proxy": tinyproxy]
        )
        #expect(noProxy.status == 0, "\(noProxy.standardError)")
        #expect(try await HTTPBinServer.accessLog(probe: bypassed, count: 1).count == 1)
        #expect(try await ProxyServers.log("COURIER_TINYPROXY_LOG", containing: bypassed, count: 0).isEmpty)

        let viaOption = NginxInterop.probe()
        let option = try await ChildProcess.run(
            "courier", ["get", "--proxy", try #require(ProxyServers.variables["COURIER_PPROXY_URL"]), "--cacert",
                        try #require(NginxServer.certificateAuthorityPath), try NginxInterop.url("hello.txt", probe: viaOption).absoluteString]
        )
        #expect(option.status == 0, "\(option.standardError)")
        #expect(option.standardOutput.contains("Hello from nginx"))
        _ = try await NginxInterop.accessLog(probe: viaOption, count: 1)

        // --proxy replaces the environment's proxies, so one the engine cannot use there does not matter.
        let overridden = NginxInterop.probe()
        let overriding = try await ChildProcess.run(
            "courier", ["get", "--proxy", tinyproxy, try ProxyServers.httpbinURL("get", probe: overridden).absoluteString],
            environment: ["https_proxy": "https://unusable.example:443", "http_proxy": "ftp://nonsense"]
        )
        #expect(overriding.status == 0, "\(overriding.standardError)")
        #expect(try await ProxyServers.log("COURIER_TINYPROXY_LOG", containing: overridden).count == 1)

        let bad = try await ChildProcess.run("courier", ["get", "--proxy", "https://proxy:443", "http://127.0.0.1:1/"])
        #expect(bad.status == 2)
        #expect(bad.standardError.contains("HTTPS proxy"), "\(bad.standardError)")
    }
}
