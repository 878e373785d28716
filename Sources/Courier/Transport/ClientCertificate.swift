import Foundation
import NIOSSL
import X509

/// A client certificate chain and its private key, presented to servers that ask for one (mutual TLS).
///
/// Loaded once from PEM files and handed to every TLS connection of an ``EngineTransport``
/// (``EngineTransport/Configuration/clientCertificate``). Not an AFNetworking feature.
///
/// ```swift
/// var configuration = EngineTransport.Configuration()
/// configuration.clientCertificate = try ClientCertificate(
///     certificateChainPEMFile: "/etc/courier/client.pem", privateKeyPEMFile: "/etc/courier/client-key.pem")
/// ```
public struct ClientCertificate: Sendable {
    /// The certificates sent to the server, leaf first.
    public let certificateChain: [NIOSSLCertificate]
    /// The private key of the leaf.
    public let privateKey: NIOSSLPrivateKey

    /// Loads a client identity from PEM files.
    /// - Parameters:
    ///   - certificateChainPEMFile: path of a PEM file with the client certificate first, then any intermediates.
    ///   - privateKeyPEMFile: path of a PEM file with the unencrypted private key of the first certificate (PKCS#8,
    ///     PKCS#1 RSA or SEC 1 EC); it may be the same file as the chain.
    /// - Throws: ``ClientCertificateError`` when a file is unreadable, holds no certificate or no usable key, or when
    ///   the key does not belong to the first certificate.
    public init(certificateChainPEMFile: String, privateKeyPEMFile: String) throws(ClientCertificateError) {
        let chainBytes = try Self.read(certificateChainPEMFile)
        let keyBytes = try Self.read(privateKeyPEMFile)
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(chainBytes)
        } catch {
            throw .noCertificate(path: certificateChainPEMFile, underlying: "\(error)")
        }
        guard let leaf = chain.first else {
            throw .noCertificate(path: certificateChainPEMFile, underlying: "no CERTIFICATE block")
        }
        do {
            privateKey = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem)
        } catch {
            throw .invalidPrivateKey(path: privateKeyPEMFile, underlying: "\(error)")
        }
        guard Self.key(keyBytes, mayBelongTo: leaf) else {
            throw .keyDoesNotMatchCertificate(certificatePath: certificateChainPEMFile, keyPath: privateKeyPEMFile)
        }
        certificateChain = chain
    }

    private static func read(_ path: String) throws(ClientCertificateError) -> [UInt8] {
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .unreadable(path: path, underlying: error.localizedDescription)
        }
    }

    /// False only when both the key and the certificate parse with swift-certificates and their public keys differ
    /// (a key type swift-certificates does not know is left to the TLS handshake).
    private static func key(_ pemKey: [UInt8], mayBelongTo leaf: NIOSSLCertificate) -> Bool {
        guard let text = String(bytes: pemKey, encoding: .utf8),
              let key = try? Certificate.PrivateKey(pemEncoded: text),
              let der = try? leaf.toDERBytes(),
              let certificate = try? Certificate(derEncoded: der)
        else { return true }
        return key.publicKey == certificate.publicKey
    }
}
