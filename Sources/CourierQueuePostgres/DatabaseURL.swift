import CourierQueue
import Foundation
import NIOSSL
import PostgresNIO

/// A `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…]` URL, checked, and the two configurations
/// postgres-nio takes for it (a client's pool, and one connection's).
struct DatabaseURL {
    let host: String
    let port: Int
    let user: String
    let password: String?
    let database: String
    let sslMode: String
    /// The URL without its password: what errors name.
    let location: String

    static func isDatabaseURL(_ string: String) -> Bool {
        string.hasPrefix("postgres://") || string.hasPrefix("postgresql://")
    }

    init(_ string: String) throws(QueueStoreError) {
        let shown = string.firstIndex(of: "@").map { "postgres://…" + string[$0...] } ?? string
        func refuse(_ reason: String) -> QueueStoreError { .unreadableStore(path: shown, reason: reason) }
        guard Self.isDatabaseURL(string), let components = URLComponents(string: string) else {
            throw refuse("it is not a postgres://USER@HOST/DATABASE URL")
        }
        guard let host = components.host, !host.isEmpty else { throw refuse("it names no host") }
        guard let user = components.user.map({ $0.removingPercentEncoding ?? $0 }), !user.isEmpty else { throw refuse("it names no user") }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw refuse("\(port) is not a port") }
        let path = components.path.removingPercentEncoding ?? components.path
        let database = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard !database.isEmpty, !database.contains("/") else { throw refuse("it names no database (postgres://USER@HOST/DATABASE)") }
        let mode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        guard ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].contains(mode) else {
            throw refuse("sslmode=\(mode) is not one of disable, prefer, require")
        }
        self.host = host
        self.port = port
        self.user = user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database
        self.sslMode = mode
        self.location = "postgres://\(user)@\(host):\(port)/\(database)"
    }

    /// For a pool: TLS as `sslmode` says (`require` and stronger verify the server's certificate against the system's
    /// roots, NIOSSL's default).
    var clientConfiguration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS = switch sslMode {
        case "disable": .disable
        case "allow", "prefer": .prefer(.makeClientConfiguration())
        default: .require(.makeClientConfiguration())
        }
        return PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    /// For one connection, the same.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS = switch sslMode {
        case "disable": .disable
        case "allow", "prefer": .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        default: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        return PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }
}
