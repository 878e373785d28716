import Hummingbird

extension Parameters {
    /// A path parameter with its percent-escapes decoded, as httpbin reads `/basic-auth/:user/:passwd`
    /// (so a client can put non-ASCII credentials in the path).
    func requireDecoded(_ name: String) throws -> String {
        let raw = try require(name)
        return raw.removingPercentEncoding ?? raw
    }
}
