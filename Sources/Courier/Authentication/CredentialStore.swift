import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Credentials kept per protection space, consulted when a server challenges a request that
/// carries no credential of its own (AFNetworking's `shouldUseCredentialStorage`).
///
/// In memory and thread-safe. `URLCredential`s with `.none` persistence are never stored;
/// `.forSession`, `.permanent` and `.synchronizable` are kept for the store's lifetime (Courier
/// does not write credentials to disk).
public final class CredentialStore: Sendable {
    private let credentials = Mutex<[Key: URLCredential]>([:])

    private struct Key: Hashable {
        let host: String
        let port: Int
        let realm: String?
    }

    /// The store shared by every session that does not bring its own.
    public static let shared = CredentialStore()

    /// Creates an empty store.
    public init() {}

    /// The credential for a host, port and realm (`nil` realm: any realm on that host and port).
    public func credential(host: String, port: Int, realm: String?) -> URLCredential? {
        credentials.withLock { stored in
            stored[Key(host: host.lowercased(), port: port, realm: realm)]
                ?? stored[Key(host: host.lowercased(), port: port, realm: nil)]
        }
    }

    /// Stores `credential` for a host, port and realm (`nil`: every realm of that host and port).
    /// Credentials with `.none` persistence are ignored.
    public func set(_ credential: URLCredential, host: String, port: Int, realm: String? = nil) {
        guard credential.persistence != .none else { return }
        credentials.withLock { $0[Key(host: host.lowercased(), port: port, realm: realm)] = credential }
    }

    /// Removes the credential for a host, port and realm.
    public func remove(host: String, port: Int, realm: String? = nil) {
        credentials.withLock { _ = $0.removeValue(forKey: Key(host: host.lowercased(), port: port, realm: realm)) }
    }

    /// Removes every credential.
    public func removeAll() {
        credentials.withLock { $0.removeAll() }
    }
}
