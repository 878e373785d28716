import AsyncHTTPClient
import NIOCore

extension EngineTransport {
    /// Creates a transport that sends every request through `client`, an `HTTPClient` your application owns (a server
    /// application usually has one), sharing its connection pool and event loops. ``shutdown()`` leaves `client`
    /// running: shutting it down stays yours.
    ///
    /// Courier's stages follow redirects and decode content, so `client` must do neither: make it with
    /// ``sharedClientConfiguration`` (or set `redirectConfiguration` to `.disallow` and `decompression` to
    /// `.disabled`). AsyncHTTPClient does not let Courier read a client's configuration to check this.
    ///
    /// What a client Courier does not make cannot do, a request that needs it fails with ``SharedClientError`` before
    /// anything is sent: a security policy other than the default for its host (the client's own TLS configuration
    /// decides trust, and no server-trust challenge is asked), a proxy, a Unix domain socket, a client certificate.
    /// Connection metrics (``ExchangeMetrics/Transaction/connection``) are not recorded for its connections.
    ///
    /// - Parameters:
    ///   - client: The client to send through.
    ///   - configuration: The rest of the transport's settings (timeouts, body limits, HTTP version checks). Default
    ///     `.init()`.
    public convenience init(sharing client: HTTPClient, configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, clients: EngineClientPool(configuration: configuration, sharing: client))
    }

    /// The client configuration a shared client needs: no redirects followed, nothing decompressed; everything else
    /// as AsyncHTTPClient's defaults. Change what you need on it (timeouts, pool sizes, TLS) before making the client.
    public static var sharedClientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        return configuration
    }
}
