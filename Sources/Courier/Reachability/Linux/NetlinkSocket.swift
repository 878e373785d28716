#if os(Linux) && Reachability  // the Reachability trait (a default one; see Package.swift)
import Glibc

/// Failures of the netlink socket layer.
enum NetlinkSocketError: Error, Equatable, Sendable {
    /// A system call failed with this `errno`.
    case system(Int32)
    /// The kernel answered the request with this (positive) `errno`.
    case kernel(Int32)
    /// The kernel's answer could not be decoded.
    case malformed(NetlinkParseError)
}

/// A `NETLINK_ROUTE` socket, as a plain file descriptor. The value is copyable; exactly one
/// owner calls ``close()``.
struct NetlinkSocket: Sendable {
    static let receiveBufferSize = 65_536

    let descriptor: Int32

    /// Opens a socket bound to the multicast `groups` (`0` for a socket used only for requests).
    /// The socket belongs to the network namespace of the calling thread, for ever.
    static func open(groups: UInt32) throws(NetlinkSocketError) -> NetlinkSocket {
        let descriptor = socket(Netlink.addressFamily, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Netlink.protocolRoute)
        guard descriptor >= 0 else { throw .system(errno) }
        let created = NetlinkSocket(descriptor: descriptor)
        var address = Self.socketAddress(groups: groups)
        let bound = address.withUnsafeMutableBytes { raw in
            bind(descriptor, raw.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        guard bound == 0 else {
            let code = errno
            created.close()
            throw .system(code)
        }
        return created
    }

    /// `struct sockaddr_nl` (family, padding, port 0 = let the kernel choose, groups).
    private static func socketAddress(groups: UInt32) -> [UInt8] {
        var writer = NetlinkByteWriter()
        writer.write(UInt16(Netlink.addressFamily))
        writer.write(UInt16(0))
        writer.write(UInt32(0))
        writer.write(groups)
        return writer.bytes
    }

    /// Bounds every blocking receive (so a silent kernel can never hang the reader).
    func setReceiveTimeout(milliseconds: Int) {
        var timeout = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func close() { _ = Glibc.close(descriptor) }

    func send(_ message: NetlinkMessage) throws(NetlinkSocketError) {
        var kernel = Self.socketAddress(groups: 0)
        let bytes = message.encoded
        let sent = bytes.withUnsafeBytes { payload in
            kernel.withUnsafeMutableBytes { address in
                sendto(descriptor, payload.baseAddress, payload.count, 0,
                       address.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
            }
        }
        guard sent == bytes.count else { throw .system(sent < 0 ? errno : EMSGSIZE) }
    }

    /// One datagram, or a system error (`EAGAIN` when non-blocking and empty, `ENOBUFS` after an
    /// overrun of the multicast queue).
    func receive(nonBlocking: Bool = false) throws(NetlinkSocketError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: Self.receiveBufferSize)
        let count = buffer.withUnsafeMutableBytes { raw in
            recv(descriptor, raw.baseAddress, raw.count, nonBlocking ? Int32(MSG_DONTWAIT) : 0)
        }
        guard count >= 0 else { throw .system(errno) }
        return Array(buffer.prefix(count))
    }

    /// Sends a request and collects the answers carrying its sequence number: one message, or a
    /// whole dump up to `NLMSG_DONE`. A kernel error reply throws ``NetlinkSocketError/kernel(_:)``.
    func exchange(_ request: NetlinkMessage) throws(NetlinkSocketError) -> [NetlinkMessage] {
        try send(request)
        var answers: [NetlinkMessage] = []
        while true {
            let datagram = try receive()
            let messages: [NetlinkMessage]
            do { messages = try NetlinkMessage.parseAll(datagram) } catch { throw .malformed(error) }
            for message in messages where message.sequence == request.sequence {
                switch message.type {
                case Netlink.MessageType.error:
                    let code: Int32
                    do { code = try message.errorCode() } catch { throw .malformed(error) }
                    if code != 0 { throw .kernel(-code) }
                    return answers
                case Netlink.MessageType.done:
                    return answers
                case Netlink.MessageType.noop:
                    continue
                default:
                    answers.append(message)
                    if message.flags & Netlink.Flag.multipart == 0 { return answers }
                }
            }
        }
    }
}
#endif
