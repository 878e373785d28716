import Foundation
import Synchronization

/// Decides whether a server's certificate chain is trusted (AFNetworking's `AFSecurityPolicy`).
///
/// The transport asks the policy during the TLS handshake, before any request byte is sent. The evaluation itself
/// (``evaluate(_:forDomain:)``) is a pure function of the chain, the domain and the policy's settings; chain building,
/// signatures, validity dates and host names are checked by swift-certificates.
///
/// Thread-safe: settings may change at any time; an evaluation uses the settings current when it starts.
public final class SecurityPolicy: Sendable {
    /// How the chain is pinned; fixed at creation.
    public let pinningMode: SSLPinningMode

    private let settings: Mutex<TrustEvaluator>
    /// Bumped whenever a setting that changes ``tlsStackRequirements`` is written, so a transport can tell in one
    /// atomic load that the TLS settings it made for this policy are still current.
    private let requirementsRevisionCounter = Atomic<UInt64>(0)

    /// A new policy with no pinning that validates the chain against the system's trust roots and the domain name
    /// (AFNetworking's `defaultPolicy`). Each access returns a new instance, so changing one never affects another.
    public static var `default`: SecurityPolicy {
        SecurityPolicy(pinningMode: .none, pinnedCertificates: [])
    }

    /// A policy with `pinningMode` that pins ``defaultPinnedCertificates`` (AFNetworking's `policyWithPinningMode:`).
    public convenience init(pinningMode: SSLPinningMode) {
        self.init(pinningMode: pinningMode, pinnedCertificates: Self.defaultPinnedCertificates)
    }

    /// The certificates AFNetworking pins by default: those of the `.cer` files among `Bundle.main`'s resources
    /// (see ``certificates(in:)``).
    ///
    /// What `Bundle.main` is depends on the platform. In an app on Apple platforms it is the app bundle, and the
    /// files are its resources (`Contents/Resources` on macOS). For a command-line program — and on Linux always —
    /// it is the directory holding the executable, and its resources are the files beside the executable: put
    /// `server.cer` next to the binary. Read each time it is asked for.
    public static var defaultPinnedCertificates: Set<Data> {
        certificates(in: Bundle.main)
    }

    /// A policy with `pinningMode` and the given pins (DER bytes; PEM text is accepted too).
    ///
    /// Defaults: `allowInvalidCertificates` false, `validatesDomainName` true, no `trustedRootCertificates`, no
    /// `validationDate` (validity is checked at the time of each evaluation).
    public init(pinningMode: SSLPinningMode, pinnedCertificates: Set<Data>) {
        self.pinningMode = pinningMode
        self.settings = Mutex(
            TrustEvaluator(
                pinningMode: pinningMode,
                pinnedCertificates: pinnedCertificates,
                trustedRootCertificates: [],
                allowInvalidCertificates: false,
                validatesDomainName: true
            )
        )
    }

    /// A new policy with the same settings, as AFSecurityPolicy's `copy` (NSCopying): changing one never
    /// changes the other, and the two never share a connection pool.
    public func copy() -> SecurityPolicy {
        SecurityPolicy(pinningMode: pinningMode, evaluator: settings.withLock { $0 })
    }

    private init(pinningMode: SSLPinningMode, evaluator: TrustEvaluator) {
        self.pinningMode = pinningMode
        self.settings = Mutex(evaluator)
    }

    /// The pinned certificates, DER-encoded (PEM text is accepted too). Used only by `.certificate` and `.publicKey`
    /// modes. Default: empty, or the `.cer` files of `Bundle.main` with ``init(pinningMode:)``.
    public var pinnedCertificates: Set<Data> {
        get { settings.withLock { $0.pinnedCertificates } }
        set {
            settings.withLock {
                $0.pinnedCertificates = newValue
                requirementsRevisionCounter.add(1, ordering: .releasing)
            }
        }
    }

    /// Public keys pinned directly: DER SubjectPublicKeyInfo, or PEM `PUBLIC KEY` text (the format of
    /// `openssl x509 -pubkey` and of the CLI's `--pin-key` with a key file). In `.publicKey` mode a chain is accepted
    /// when it carries one of these keys or a key of ``pinnedCertificates``; other modes ignore them. Default: empty.
    /// Not an AFNetworking property.
    public var pinnedPublicKeys: Set<Data> {
        get { settings.withLock { $0.pinnedPublicKeys } }
        set {
            settings.withLock {
                $0.pinnedPublicKeys = newValue
                requirementsRevisionCounter.add(1, ordering: .releasing)
            }
        }
    }

    /// Whether a chain that does not lead to a trusted root, or has expired or not-yet-valid certificates, is
    /// accepted. Default: false. In `.certificate` mode the chain must still validate against the pinned certificates.
    /// Together with ``validatesDomainName`` and no pinning, every evaluation is refused.
    public var allowInvalidCertificates: Bool {
        get { settings.withLock { $0.allowInvalidCertificates } }
        set {
            settings.withLock {
                $0.allowInvalidCertificates = newValue
                requirementsRevisionCounter.add(1, ordering: .releasing)
            }
        }
    }

    /// Whether the leaf certificate must name the domain in a DNS or IP subject alternative name. Default: true.
    public var validatesDomainName: Bool {
        get { settings.withLock { $0.validatesDomainName } }
        set { settings.withLock { $0.validatesDomainName = newValue } }
    }

    /// Additional trust anchors, DER-encoded (PEM text is accepted too), trusted alongside the system's roots:
    /// a private certificate authority, or the CLI's `--cacert`. Default: empty. Not an AFNetworking property.
    public var trustedRootCertificates: Set<Data> {
        get { settings.withLock { $0.trustedRootCertificates } }
        set {
            settings.withLock {
                $0.trustedRootCertificates = newValue
                requirementsRevisionCounter.add(1, ordering: .releasing)
            }
        }
    }

    /// The moment certificate validity dates are checked at (as `SecTrustSetVerifyDate` sets it), or `nil` to check
    /// them at the time of each evaluation. Default: `nil`. Not an AFNetworking property.
    ///
    /// Useful to evaluate fixed chains in tests, and for clients with a clock they trust more than the system's.
    /// During a TLS handshake the TLS stack checks dates against the system clock, so with a validation date the
    /// stack's own chain check is turned off and Courier validates what the server presented against the system's
    /// and the policy's roots at this date. AsyncHTTPClient hands over only the leaf certificate, so in the handshake
    /// a chain with intermediates validates only when the leaf's issuer is itself a trusted root or pinned.
    public var validationDate: Date? {
        get { settings.withLock { $0.validationDate } }
        set {
            settings.withLock {
                $0.validationDate = newValue
                requirementsRevisionCounter.add(1, ordering: .releasing)
            }
        }
    }

    /// Whether `chain` (DER, leaf first) is trusted for a connection to `domain` (AFNetworking's
    /// `evaluateServerTrust:forDomain:`). A nil domain skips the host name check.
    public func evaluateServerTrust(_ chain: [Data], forDomain domain: String?) async -> Bool {
        await evaluate(chain, forDomain: domain).isTrusted
    }

    /// What the TLS stack must verify for this policy's current settings (see ``TLSStackRequirements``).
    public var tlsStackRequirements: TLSStackRequirements {
        settings.withLock { $0 }.tlsStackRequirements
    }

    /// Changes whenever ``tlsStackRequirements`` may have changed (``allowInvalidCertificates``,
    /// ``trustedRootCertificates``, ``validationDate``, ``pinnedCertificates`` or ``pinnedPublicKeys`` written). Read it before ``tlsStackRequirements``: a later change is then seen on
    /// the next read.
    var tlsStackRequirementsRevision: UInt64 {
        requirementsRevisionCounter.load(ordering: .acquiring)
    }

    /// The verdict on `chain` received over a TLS connection configured from `requirements`: when they are still
    /// this policy's requirements and verify the chain, the TLS stack's verification stands for the path check, so
    /// `chain` may be just the leaf. A connection made with other requirements than the current ones is rejected.
    public func evaluate(
        _ chain: [Data],
        forDomain domain: String?,
        verifiedByTLSStackWith requirements: TLSStackRequirements
    ) async -> ServerTrustEvaluation {
        let evaluator = settings.withLock { $0 }
        guard evaluator.tlsStackRequirements == requirements else {
            return .rejected(reason: "the security policy changed after this connection's TLS settings were made")
        }
        return await evaluator.evaluate(chain, forDomain: domain, verifiedBy: requirements)
    }

    /// The verdict on `chain` (DER, leaf first) for a connection to `domain`, with the reason of a rejection.
    /// A nil domain skips the host name check. Malformed certificates are rejected, never trapped on.
    public func evaluate(_ chain: [Data], forDomain domain: String?) async -> ServerTrustEvaluation {
        let evaluator = settings.withLock { $0 }
        return await evaluator.evaluate(chain, forDomain: domain)
    }
}

extension SecurityPolicy: NSCopying {
    /// A new policy with the same settings (see ``copy()``).
    public func copy(with zone: NSZone? = nil) -> Any {
        copy() as SecurityPolicy
    }
}

/// Codable, as AFSecurityPolicy adopts NSSecureCoding: the pinning mode, the pinned certificates and public keys,
/// the trusted roots, ``SecurityPolicy/allowInvalidCertificates``, ``SecurityPolicy/validatesDomainName`` and
/// ``SecurityPolicy/validationDate`` round-trip. Certificates are encoded as `Data` (base64 in JSON), in a stable order.
extension SecurityPolicy: Codable {
    private enum CodingKeys: String, CodingKey {
        case pinningMode, pinnedCertificates, pinnedPublicKeys, trustedRootCertificates
        case allowInvalidCertificates, validatesDomainName, validationDate
    }

    /// Decodes a policy written by ``encode(to:)``; missing optional fields take their defaults.
    public convenience init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var evaluator = TrustEvaluator(
            pinningMode: try container.decode(SSLPinningMode.self, forKey: .pinningMode),
            pinnedCertificates: Set(try container.decodeIfPresent([Data].self, forKey: .pinnedCertificates) ?? []),
            trustedRootCertificates: Set(try container.decodeIfPresent([Data].self, forKey: .trustedRootCertificates) ?? []),
            allowInvalidCertificates: try container.decodeIfPresent(Bool.self, forKey: .allowInvalidCertificates) ?? false,
            validatesDomainName: try container.decodeIfPresent(Bool.self, forKey: .validatesDomainName) ?? true
        )
        evaluator.pinnedPublicKeys = Set(try container.decodeIfPresent([Data].self, forKey: .pinnedPublicKeys) ?? [])
        evaluator.validationDate = try container.decodeIfPresent(Date.self, forKey: .validationDate)
        self.init(pinningMode: evaluator.pinningMode, evaluator: evaluator)
    }

    /// Encodes the policy's settings.
    public func encode(to encoder: any Encoder) throws {
        let evaluator = settings.withLock { $0 }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pinningMode, forKey: .pinningMode)
        try container.encode(Self.stableOrder(evaluator.pinnedCertificates), forKey: .pinnedCertificates)
        try container.encode(Self.stableOrder(evaluator.pinnedPublicKeys), forKey: .pinnedPublicKeys)
        try container.encode(Self.stableOrder(evaluator.trustedRootCertificates), forKey: .trustedRootCertificates)
        try container.encode(evaluator.allowInvalidCertificates, forKey: .allowInvalidCertificates)
        try container.encode(evaluator.validatesDomainName, forKey: .validatesDomainName)
        try container.encodeIfPresent(evaluator.validationDate, forKey: .validationDate)
    }

    private static func stableOrder(_ set: Set<Data>) -> [Data] {
        set.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// Whether the policy asks for nothing a standard TLS stack does not already check (the system's roots, the host
    /// name): no pins, no trust roots of its own, invalid certificates refused, the host name validated, today's date.
    var checksNothingBeyondTheTLSStack: Bool {
        pinningMode == .none && !allowInvalidCertificates && validatesDomainName && trustedRootCertificates.isEmpty
            && validationDate == nil
    }
}
