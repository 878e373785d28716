import Foundation

extension SecurityPolicy {
    /// File extensions ``certificates(inDirectory:)`` loads.
    static let certificateFileExtensions: Set<String> = ["cer", "crt", "pem"]

    /// The DER bytes of every certificate in the `.cer` files among `bundle`'s top-level resources (AFNetworking's
    /// `certificatesInBundle:`), read from the resource directory each time (a bundle's own resource lookup caches
    /// its first listing, so files added later would not be seen).
    ///
    /// Each file may hold a DER certificate or PEM text with one or more `CERTIFICATE` blocks.
    /// Files that are unreadable or hold no certificate are skipped: use ``certificates(inDirectory:)`` to be told.
    public static func certificates(in bundle: Bundle) -> Set<Data> {
        guard let directory = bundle.resourceURL,
              let entries = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        else { return [] }
        let files = entries.filter { $0.pathExtension.lowercased() == "cer" }
        return Set(files.flatMap { (try? certificates(contentsOf: $0)) ?? [] })
    }

    /// The DER bytes of every certificate in the `.cer`, `.crt` and `.pem` files directly inside `directory`
    /// (not recursive).
    /// - Throws: ``CertificateLoadingError/unreadable(url:underlying:)`` when the directory or a file cannot be read,
    ///   ``CertificateLoadingError/notACertificate(url:)`` when a matching file holds no certificate.
    public static func certificates(inDirectory directory: URL) throws(CertificateLoadingError) -> Set<Data> {
        let entries: [URL]
        do {
            entries = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        } catch {
            throw .unreadable(url: directory, underlying: error.localizedDescription)
        }
        var result = Set<Data>()
        for file in entries where certificateFileExtensions.contains(file.pathExtension.lowercased()) {
            result.formUnion(try certificates(contentsOf: file))
        }
        return result
    }

    /// The DER bytes of the certificates in one file: a DER certificate, or every `CERTIFICATE` block of a PEM file
    /// (a CA bundle such as the CLI's `--cacert` holds several).
    /// - Throws: ``CertificateLoadingError/unreadable(url:underlying:)`` when the file cannot be read,
    ///   ``CertificateLoadingError/notACertificate(url:)`` when it holds no certificate.
    public static func certificates(contentsOf file: URL) throws(CertificateLoadingError) -> [Data] {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: file)
        } catch {
            throw .unreadable(url: file, underlying: error.localizedDescription)
        }
        let derCertificates = CertificateDecoding.certificates(fromDERorPEM: bytes).compactMap {
            try? CertificateDecoding.derBytes(of: $0)
        }
        guard !derCertificates.isEmpty else { throw .notACertificate(url: file) }
        return derCertificates
    }

    /// The DER SubjectPublicKeyInfo of the public keys in one file, for ``pinnedPublicKeys``: a DER
    /// SubjectPublicKeyInfo, or every `PUBLIC KEY` block of a PEM file (as `openssl x509 -pubkey -noout` writes it).
    /// - Throws: ``CertificateLoadingError/unreadable(url:underlying:)`` when the file cannot be read,
    ///   ``CertificateLoadingError/notAPublicKey(url:)`` when it holds no public key.
    public static func publicKeys(contentsOf file: URL) throws(CertificateLoadingError) -> [Data] {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: file)
        } catch {
            throw .unreadable(url: file, underlying: error.localizedDescription)
        }
        let keys = CertificateDecoding.publicKeys(fromDERorPEM: bytes).compactMap {
            try? CertificateDecoding.subjectPublicKeyInfo(of: $0)
        }
        guard !keys.isEmpty else { throw .notAPublicKey(url: file) }
        return keys
    }
}
