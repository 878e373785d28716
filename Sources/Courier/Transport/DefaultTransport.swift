import Foundation
import Logging

/// The default engine, named in this one place: sessions and operations that were given no transport ask here
/// for one, so nothing above ``HTTPTransport`` depends on AsyncHTTPClient.
enum DefaultTransport {
    /// What a session or an operation may say about the transport it gets.
    struct Settings: Sendable {
        var maximumConnectionsPerHost = 8
        var httpVersion: HTTPVersionPolicy = .automatic
        var connectTimeout: TimeInterval = 10
        var connectionWaitTimeout: TimeInterval = 300
        var securityPolicy: SecurityPolicy = .default
        var securityPolicies: [String: SecurityPolicy] = [:]
        var proxy: ProxyConfiguration?
        var unixSocketPath: String?
        var logger: Logger = ExchangeConfiguration.silentLogger
    }

    /// A new transport with its own connection pool; its owner shuts it down.
    static func make(_ settings: Settings) -> any HTTPTransport {
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.maximumConnectionsPerHost = settings.maximumConnectionsPerHost
        configuration.httpVersion = settings.httpVersion
        configuration.connectTimeout = settings.connectTimeout
        configuration.connectionWaitTimeout = settings.connectionWaitTimeout
        configuration.securityPolicy = settings.securityPolicy
        configuration.securityPolicies = settings.securityPolicies
        configuration.proxy = settings.proxy
        configuration.unixSocketPath = settings.unixSocketPath
        configuration.logger = settings.logger
        return AsyncHTTPClientTransport(configuration: configuration)
    }
}
