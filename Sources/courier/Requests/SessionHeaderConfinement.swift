import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps the header fields a `--session` lent a request at the session's origin: a redirect to another origin
/// (scheme, host or port) goes without them, as the session's credential does. An API key kept in a session as
/// `X-Api-Key` is a credential like `Authorization`.
///
/// Fields given on the command line (`-H`, `Name:value` items) follow curl's rule instead: only `Authorization` and
/// `Cookie` stay behind on another host (the library's redirect rule), other fields go on. The one hook serves the
/// three ways `courier` sends requests: an exchange's redirect handler, a session's redirection block, an operation's
/// redirect block.
struct SessionHeaderConfinement: Sendable {
    /// The lent fields' names, lower-cased.
    let names: Set<String>
    /// The origin the fields were lent for (`scheme://host:port`).
    let origin: String?

    /// The fields of `lent` (the session's fields for a request to `url`) that the command line did not give itself
    /// (`given`).
    init(lent: [String: String], to url: URL?, except given: [HeaderOption]) {
        let overridden = Set(given.map { $0.name.lowercased() })
        names = Set(lent.keys.map { $0.lowercased() }).subtracting(overridden)
        origin = SessionFile.origin(of: url)
    }

    /// Whether there is anything to keep back.
    var isEmpty: Bool { names.isEmpty }

    /// `proposed` (a redirect's next request) without the lent fields when it leaves their origin.
    func confined(_ proposed: URLRequest) -> URLRequest {
        guard !names.isEmpty, SessionFile.origin(of: proposed.url) != origin else { return proposed }
        var request = proposed
        for name in request.allHTTPHeaderFields?.keys.filter({ names.contains($0.lowercased()) }) ?? [] {
            request.setValue(nil, forHTTPHeaderField: name)
        }
        return request
    }
}
