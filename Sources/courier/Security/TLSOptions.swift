import ArgumentParser
import Courier
import Foundation

/// The TLS options of the request commands, turned into Courier's ``SecurityPolicy`` and ``ClientCertificate``.
///
/// The mapping follows the library: `--pin-cert` is `.certificate` pinning and `--pin-key` `.publicKey` pinning with
/// the file's certificates or, for a key file, ``SecurityPolicy/pinnedPublicKeys`` (both modes still require a chain
/// the system or `--cacert` trusts, unless `--insecure`); `--cacert` adds trusted
/// roots; `--insecure` allows invalid certificates and, without a pin, also stops checking the host name (a policy
/// that allows invalid certificates and checks the name without a pin refuses every server).
struct TLSOptions: ParsableArguments {
    @Flag(name: [.customShort("k"), .long], help: "Accept any server certificate (invalid, expired, self-signed, other host).")
    var insecure = false

    @Option(help: ArgumentHelp("Also trust the certificate authorities in this PEM or DER file.", valueName: "file"))
    var cacert: String?

    @Option(help: ArgumentHelp("Pin this certificate (PEM or DER): the server's chain must contain it.", valueName: "file"))
    var pinCert: String?

    @Option(help: ArgumentHelp("Pin this public key (PEM 'PUBLIC KEY' or DER), or the key of this certificate: a certificate of the server's chain must carry it.", valueName: "file"))
    var pinKey: String?

    @Option(help: ArgumentHelp("Present this client certificate chain (PEM) to servers that ask for one.", valueName: "file"))
    var cert: String?

    @Option(help: ArgumentHelp("The private key (PEM) of --cert; default: the --cert file itself.", valueName: "file"))
    var key: String?

    /// Checks the combinations of options.
    /// - Throws: ``CLIFailure`` (usage).
    func check() throws {
        if pinCert != nil, pinKey != nil {
            throw CLIFailure.usage("--pin-cert and --pin-key are two pinning modes; give one of them")
        }
        if key != nil, cert == nil {
            throw CLIFailure.usage("--key needs --cert")
        }
    }

    /// The transport settings: the security policy and the client certificate.
    /// - Throws: ``CLIFailure`` (usage) naming the file that cannot be used.
    func transportConfiguration() throws -> EngineTransport.Configuration {
        var configuration = EngineTransport.Configuration()
        configuration.securityPolicy = try securityPolicy()
        if let cert {
            do throws(ClientCertificateError) {
                configuration.clientCertificate = try ClientCertificate(certificateChainPEMFile: cert, privateKeyPEMFile: key ?? cert)
            } catch {
                throw CLIFailure.usage("bad client certificate: \(error.description)")
            }
        }
        return configuration
    }

    /// The policy these options describe.
    func securityPolicy() throws -> SecurityPolicy {
        let policy: SecurityPolicy
        if let pinCert {
            policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: Set(try certificates(in: pinCert, option: "--pin-cert")))
        } else if let pinKey {
            let pins = try publicKeyPins(in: pinKey)
            policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: Set(pins.certificates))
            policy.pinnedPublicKeys = Set(pins.keys)
        } else {
            policy = .default
        }
        if let cacert {
            policy.trustedRootCertificates = Set(try certificates(in: cacert, option: "--cacert"))
        }
        if insecure {
            policy.allowInvalidCertificates = true
            policy.validatesDomainName = policy.pinningMode != .none
        }
        return policy
    }

    /// The curl options with the same meaning.
    func apply(to options: inout CURLCommandOptions) throws {
        options.allowsInvalidCertificates = insecure
        options.certificateAuthorityFile = cacert
        if let pinCert {
            options.pinnedPublicKeyCertificates = try certificates(in: pinCert, option: "--pin-cert")
        } else if let pinKey {
            let pins = try publicKeyPins(in: pinKey)
            options.pinnedPublicKeyCertificates = pins.certificates
            options.pinnedPublicKeys = pins.keys
        }
        options.clientCertificateFile = cert
        options.clientKeyFile = key
    }

    private func certificates(in path: String, option: String) throws -> [Data] {
        do throws(CertificateLoadingError) {
            return try SecurityPolicy.certificates(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIFailure.usage("bad \(option) file: \(error.description)")
        }
    }

    /// The `--pin-key` file: certificates whose keys are pinned, or else bare public keys.
    private func publicKeyPins(in path: String) throws -> (certificates: [Data], keys: [Data]) {
        let url = URL(fileURLWithPath: path)
        do throws(CertificateLoadingError) {
            return (try SecurityPolicy.certificates(contentsOf: url), [])
        } catch {
            guard case .notACertificate = error else { throw CLIFailure.usage("bad --pin-key file: \(error.description)") }
        }
        do throws(CertificateLoadingError) {
            return ([], try SecurityPolicy.publicKeys(contentsOf: url))
        } catch {
            throw CLIFailure.usage("bad --pin-key file: \(path) holds no certificate or public key (DER or PEM)")
        }
    }
}
