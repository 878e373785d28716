#if os(Linux)
import Glibc

/// A point-to-point TUN interface owned by this process: the kernel hands it every IP packet routed to it (one
/// `read` a packet), and each packet written to it arrives as if received from the wire. The interface exists as
/// long as ``descriptor`` is open; ``close()`` removes it, wherever it has been moved since.
struct TunDevice: Sendable {
    let name: String
    let descriptor: Int32

    /// `TUNSETIFF`, `_IOW('T', 202, int)`, from `<linux/if_tun.h>`, which Glibc's module does not import.
    private static let setInterface: UInt = 0x4004_54CA
    /// `IFF_TUN` (IP packets, no Ethernet header) and `IFF_NO_PI` (no 4-byte packet-information prefix).
    private static let tunWithoutPacketInformation: Int16 = 0x0001 | 0x1000

    /// Creates the interface `name` (at most 15 bytes) in this process's namespace; non-blocking reads.
    init(name: String) throws {
        guard name.utf8.count < 16 else { throw TunFailure(message: "interface name \(name) is longer than 15 bytes") }
        let descriptor = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw TunFailure(message: "open /dev/net/tun: \(String(cString: strerror(errno)))") }
        // struct ifreq: the name in the first 16 bytes, the flags (a short) at offset 16 of its 40.
        var request = [UInt8](repeating: 0, count: 40)
        request.replaceSubrange(0..<name.utf8.count, with: name.utf8)
        withUnsafeBytes(of: Self.tunWithoutPacketInformation.littleEndian) { request.replaceSubrange(16..<18, with: $0) }
        let status = request.withUnsafeMutableBytes { ioctl(descriptor, Self.setInterface, $0.baseAddress!) }
        guard status == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw TunFailure(message: "TUNSETIFF \(name): \(reason)")
        }
        self.name = name
        self.descriptor = descriptor
    }

    func close() {
        Glibc.close(descriptor)
    }

    struct TunFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
#endif
