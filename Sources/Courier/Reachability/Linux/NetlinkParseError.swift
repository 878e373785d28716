#if os(Linux) && Reachability  // the Reachability trait (a default one; see Package.swift)
/// Why a netlink buffer could not be decoded. The monitor ignores such buffers.
enum NetlinkParseError: Error, Equatable, Sendable {
    /// Fewer bytes than a header or fixed-size body needs.
    case truncated
    /// A length field smaller than its own header or larger than the remaining bytes.
    case badLength
    /// A message of another type than the decoder handles.
    case unexpectedType(UInt16)
}
#endif
