import Courier
import Foundation
import Testing

/// Proxy URLs, `no_proxy` lists and the environment, read as curl reads them.
@Suite("Proxy configuration")
struct ProxyConfigurationTests {
    @Test func proxyURLs() throws {
        let plain = try ProxyServer(url: "proxy.example:3128")
        #expect(plain == ProxyServer(kind: .http, host: "proxy.example", port: 3128))
        #expect(try ProxyServer(url: "http://proxy.example").port == 1080, "curl's default proxy port")
        let credentialed = try ProxyServer(url: "http://al%40ice:p%3Ass@10.0.0.1:8080/")
        #expect(credentialed.credentials == ProxyServer.Credentials(user: "al@ice", password: "p:ss"))
        #expect(credentialed.description == "http://al@ice@10.0.0.1:8080", "the password is never shown")
        #expect(try ProxyServer(url: "socks5h://[::1]:1080") == ProxyServer(kind: .socks5, host: "::1", port: 1080))
        #expect(try ProxyServer(url: "SOCKS5://127.0.0.1").kind == .socks5)
    }

    @Test(arguments: [
        ("https://proxy:443", "HTTPS proxy"), ("socks4://proxy", "socks4"), ("http://", "no host"),
        ("http://proxy:99999", "port"), ("http://proxy:0", "port"), ("http://proxy/path", "path"),
        ("socks5://user:pw@proxy", "SOCKS5 proxy credentials"), ("http://pro%0Axy", "characters"),
    ])
    func badProxyURLsAreRefused(_ text: String, _ reason: String) {
        #expect {
            try ProxyServer(url: text)
        } throws: { error in
            (error as? ProxyConfigurationError)?.description.contains(reason) == true
        }
    }

    @Test func proxyPasswordsStayOutOfMessages() {
        for text in ["https://alice:s3cret@proxy:8443", "socks5://alice:s3cret@proxy", "http://alice:s3cret@proxy/path"] {
            #expect {
                try ProxyServer(url: text)
            } throws: { error in
                let message = (error as? ProxyConfigurationError)?.description ?? ""
                return !message.isEmpty && !message.contains("s3cret") && (text.hasPrefix("socks5") || message.contains("alice@proxy"))
            }
        }
        #expect {
            try ProxyConfiguration.fromEnvironment(["https_proxy": "https://alice:s3cret@proxy:8443"])
        } throws: { error in
            !"\(error)".contains("s3cret")
        }
    }

    @Test func bypassRules() throws {
        let bypass = try ProxyBypass(parsing: "localhost, .internal.example,corp.example:8443 10.0.0.0/8,192.168.1.7,[::1],fd00::/8")
        #expect(bypass.bypassesProxy(host: "localhost", port: 80))
        #expect(bypass.bypassesProxy(host: "LOCALHOST.", port: 80))
        #expect(bypass.bypassesProxy(host: "internal.example", port: 80))
        #expect(bypass.bypassesProxy(host: "api.internal.example", port: 443))
        #expect(!bypass.bypassesProxy(host: "notinternal.example", port: 80), "a suffix match is on label boundaries")
        #expect(bypass.bypassesProxy(host: "corp.example", port: 8443))
        #expect(!bypass.bypassesProxy(host: "corp.example", port: 443), "a port rule matches that port only")
        #expect(bypass.bypassesProxy(host: "10.200.3.4", port: 80))
        #expect(!bypass.bypassesProxy(host: "11.0.0.1", port: 80))
        #expect(bypass.bypassesProxy(host: "192.168.1.7", port: 80))
        #expect(!bypass.bypassesProxy(host: "192.168.1.8", port: 80))
        #expect(bypass.bypassesProxy(host: "::1", port: 80))
        #expect(bypass.bypassesProxy(host: "[::1]", port: 80))
        #expect(bypass.bypassesProxy(host: "fd12:3456::1", port: 80))
        #expect(!bypass.bypassesProxy(host: "fe80::1", port: 80))
        #expect(!bypass.bypassesProxy(host: "example.com", port: 80))
        #expect(try ProxyBypass(parsing: "*").bypassesProxy(host: "anything.example", port: 1))
        // A name rule is for names: "0.1" is no address, and must not match 10.0.0.1 by its last labels.
        #expect(!(try ProxyBypass(parsing: "0.1").bypassesProxy(host: "10.0.0.1", port: 80)))
        #expect(try ProxyBypass(parsing: "").isEmpty)
    }

    @Test(arguments: ["10.0.0.0/33", "::/129", "host:0", "exa mple/8", "[::1", "a:b:c/x"])
    func badBypassEntriesAreRefused(_ list: String) {
        #expect(throws: ProxyConfigurationError.self) { try ProxyBypass(parsing: list) }
    }

    @Test func environmentFollowsCurlsPrecedence() throws {
        let proxies = try ProxyConfiguration.fromEnvironment([
            "http_proxy": "http://lower:1", "HTTP_PROXY": "http://upper-ignored:2",
            "HTTPS_PROXY": "http://secure:3", "ALL_PROXY": "socks5://all:4",
            "NO_PROXY": "internal.example",
        ])
        #expect(proxies.httpProxy?.host == "lower", "HTTP_PROXY (upper case) is ignored, as curl does")
        #expect(proxies.httpsProxy?.host == "secure")
        #expect(proxies.proxy(forScheme: "https", host: "api.internal.example", port: 443) == nil)
        #expect(proxies.proxy(forScheme: "http", host: "example.com", port: 80)?.host == "lower")

        let fallback = try ProxyConfiguration.fromEnvironment(["HTTP_PROXY": "http://ignored:2", "all_proxy": "socks5://all:4", "https_proxy": ""])
        #expect(fallback.httpProxy == ProxyServer(kind: .socks5, host: "all", port: 4))
        #expect(fallback.httpsProxy == ProxyServer(kind: .socks5, host: "all", port: 4), "an empty value counts as unset")
        #expect(try ProxyConfiguration.fromEnvironment([:]).isEmpty)
        #expect(try ProxyConfiguration.fromEnvironment(["https_proxy": "http://a:1", "HTTPS_PROXY": "http://b:2"]).httpsProxy?.host == "a")
    }

    @Test func badEnvironmentNamesTheVariable() {
        #expect {
            try ProxyConfiguration.fromEnvironment(["https_proxy": "ftp://proxy"])
        } throws: { error in
            (error as? ProxyConfigurationError)?.description.hasPrefix("https_proxy: ") == true
        }
        #expect {
            try ProxyConfiguration.fromEnvironment(["no_proxy": "10.0.0.0/99"])
        } throws: { error in
            (error as? ProxyConfigurationError)?.description.hasPrefix("no_proxy: ") == true
        }
    }

    @Test func onlyHTTPAndHTTPSGoThroughAProxy() throws {
        let proxies = ProxyConfiguration.all(try ProxyServer(url: "http://proxy:3128"))
        #expect(proxies.proxy(forScheme: "http+unix", host: "/run/docker.sock", port: 0) == nil)
    }
}
