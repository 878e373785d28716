import ArgumentParser
import Courier
import Foundation

/// How requests reach the server: proxies (the environment's by default, as curl), a Unix domain socket, and
/// addresses given for host names (`--resolve`).
struct NetworkOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Send requests through this proxy: http://[user:password@]host[:port] (absolute form for http://, CONNECT for https://) or socks5://host[:port]; default port 1080. An empty value turns off the environment's proxies. Default: http_proxy, https_proxy, all_proxy (as curl reads them).",
        valueName: "url"
    ))
    var proxy: String?

    @Option(help: ArgumentHelp(
        "Hosts reached without the proxy, comma-separated: names (and the hosts below them), IP addresses, CIDR ranges, host:port, or * for all. Default: no_proxy.",
        valueName: "list"
    ))
    var noproxy: String?

    @Option(name: .customLong("connect-timeout"), parsing: .unconditional, help: ArgumentHelp("Seconds allowed for making a connection: TCP, a proxy's tunnel, TLS (curl's --connect-timeout; 0.001 to a year). Default: --timeout.", valueName: "seconds"))
    var connectTimeoutGiven: OptionNumber?

    @Option(help: ArgumentHelp("Connect to this Unix domain socket instead of the URL's host (http:// URLs only); no proxy applies.", valueName: "path"))
    var unixSocket: String?

    @Option(name: .customLong("resolve"), help: ArgumentHelp(
        "Connect to ADDR for HOST (curl's --resolve; repeatable): Host and TLS keep HOST (its certificate is checked). HOST as the URL writes it (or lowercase). The engine maps names, not ports: PORT is checked, and the entry applies to HOST on any port.",
        valueName: "host:port:addr"
    ))
    var resolve: [String] = []

    @Option(name: .customLong("connect-to"), help: ArgumentHelp(
        "Connect to HOST2 on PORT2 for HOST1 on PORT1 (curl's --connect-to; repeatable): Host and TLS keep HOST1:PORT1 (its certificate is checked). HOST1 must be given; an empty PORT1 matches every port, an empty HOST2 keeps HOST1, an empty PORT2 keeps the URL's port. HOST2 is resolved through --resolve when listed there; the engine maps host names on every port, so HOST1 goes to HOST2 whatever its port.",
        valueName: "host1:port1:host2:port2"
    ))
    var connectTo: [String] = []

    /// `--resolve`'s entries as host → address.
    /// - Throws: ``CLIFailure`` (usage) naming an entry that is not HOST:PORT:ADDR.
    func resolvedHosts() throws(CLIFailure) -> [String: String] {
        var hosts: [String: String] = [:]
        for entry in resolve {
            let parts = entry.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, !parts[0].isEmpty, let port = Int(parts[1]), (1...65_535).contains(port) else {
                throw CLIFailure.usage("--resolve \(entry): expected HOST:PORT:ADDR, e.g. example.com:443:127.0.0.1")
            }
            var address = Substring(parts[2])
            if address.hasPrefix("["), address.hasSuffix("]") { address = address.dropFirst().dropLast() }
            guard !address.isEmpty, !address.contains(where: \.isWhitespace) else {
                throw CLIFailure.usage("--resolve \(entry): no address after HOST:PORT:")
            }
            // The engine compares the URL's host as written: the entry's own spelling, and lowercase (as URLs are
            // usually written).
            hosts[String(parts[0])] = String(address)
            hosts[parts[0].lowercased()] = String(address)
        }
        for entry in connectTo {
            let connection = try Self.connection(entry)
            guard let to = connection.to else { continue }
            let from = connection.from
            let target = hosts[to] ?? hosts[to.lowercased()] ?? to
            hosts[from] = target
            hosts[from.lowercased()] = target
        }
        return hosts
    }

    /// `--connect-to`'s ports: (HOST1, PORT1 or every port) → PORT2, for the entries that give PORT2 (the host as
    /// written and lowercase, as ``resolvedHosts()``). A later entry for the same HOST1:PORT1 wins.
    /// - Throws: ``CLIFailure`` (usage) naming a malformed entry.
    func connectionPorts() throws(CLIFailure) -> [TransportSettings.Endpoint: Int] {
        var ports: [TransportSettings.Endpoint: Int] = [:]
        for entry in connectTo {
            let connection = try Self.connection(entry)
            guard let toPort = connection.toPort else { continue }
            for host in Set([connection.from, connection.from.lowercased()]) {
                ports[TransportSettings.Endpoint(host: host, port: connection.fromPort)] = toPort
            }
        }
        return ports
    }

    /// One `--connect-to HOST1:PORT1:HOST2:PORT2` entry; IPv6 addresses in brackets.
    struct Connection: Equatable {
        /// HOST1.
        let from: String
        /// PORT1, `nil` (empty) for every port.
        let fromPort: Int?
        /// HOST2, `nil` (empty) for HOST1 itself.
        let to: String?
        /// PORT2, `nil` (empty) for the URL's port.
        let toPort: Int?
    }

    /// `--connect-to HOST1:PORT1:HOST2:PORT2` as its four fields, empty ones `nil`.
    /// - Throws: ``CLIFailure`` (usage) for another form, an empty HOST1, or a port outside 1–65535.
    static func connection(_ entry: String) throws(CLIFailure) -> Connection {
        var fields: [String] = []
        var rest = Substring(entry)
        // Four fields split at colons, a [bracketed] IPv6 address taken whole.
        while fields.count < 4 {
            if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
                fields.append(String(rest[rest.index(after: rest.startIndex)..<close]))
                rest = rest[rest.index(after: close)...]
                if rest.hasPrefix(":") { rest = rest.dropFirst() } else if !rest.isEmpty || fields.count < 4 { break }
                continue
            }
            if fields.count == 3 {
                fields.append(String(rest))
                rest = ""
                break
            }
            guard let colon = rest.firstIndex(of: ":") else { break }
            fields.append(String(rest[..<colon]))
            rest = rest[rest.index(after: colon)...]
        }
        let port = { (text: String) -> Bool in text.isEmpty || Int(text).map { (1...65_535).contains($0) } == true }
        guard fields.count == 4, rest.isEmpty, port(fields[1]), port(fields[3]), !fields.contains(where: { $0.contains(where: \.isWhitespace) }) else {
            throw CLIFailure.usage("--connect-to \(entry): expected HOST1:PORT1:HOST2:PORT2, e.g. example.com:443:backend.internal:")
        }
        guard !fields[0].isEmpty else {
            throw CLIFailure.usage("--connect-to \(entry): give HOST1 (the engine maps a named host, not every host)")
        }
        return Connection(
            from: fields[0], fromPort: Int(fields[1]), to: fields[2].isEmpty ? nil : fields[2], toPort: Int(fields[3])
        )
    }

    /// `--connect-timeout` in seconds, bounded by ``NumericOption/connectTimeout``; `nil` when not given.
    var connectTimeout: TimeInterval? {
        get throws(CLIFailure) { try connectTimeoutGiven.map(NumericOption.connectTimeout.seconds) }
    }

    /// The proxy settings these options and the environment describe.
    /// - Throws: ``CLIFailure`` (usage) naming the option or variable that cannot be used.
    func proxyConfiguration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ProxyConfiguration? {
        do throws(ProxyConfigurationError) {
            var configuration: ProxyConfiguration
            if let proxy {
                guard !proxy.isEmpty else { return nil }
                let server = try ProxyServer(url: proxy)
                // The option replaces the environment's proxies, so only its no_proxy is read (a proxy variable the
                // option overrides may hold anything).
                var environmentBypass = ProxyBypass()
                if noproxy == nil, let list = environment["no_proxy"] ?? environment["NO_PROXY"] {
                    environmentBypass = try ProxyBypass(parsing: list)
                }
                configuration = .all(server, bypass: environmentBypass)
            } else {
                configuration = try ProxyConfiguration.fromEnvironment(environment)
            }
            if let noproxy {
                configuration.bypass = try ProxyBypass(parsing: noproxy)
            }
            return configuration.isEmpty ? nil : configuration
        } catch {
            throw CLIFailure.usage("proxy: \(error.description)")
        }
    }

    /// Sets the proxy, the socket, `--resolve`, `--connect-to` and `--connect-timeout` on `configuration`.
    /// - Throws: ``CLIFailure`` (usage).
    func apply(to configuration: inout EngineTransport.Configuration) throws {
        if let connectTimeout = try connectTimeout { configuration.connectTimeout = connectTimeout }
        configuration.settings.resolvedHosts = try resolvedHosts()
        configuration.settings.connectionPorts = try connectionPorts()
        configuration.proxy = try proxyConfiguration()
        if let unixSocket {
            guard !unixSocket.isEmpty else { throw CLIFailure.usage("--unix-socket needs a path") }
            configuration.unixSocketPath = unixSocket
        }
    }
}
