#if os(Linux)
import Foundation
import Glibc
import Synchronization

/// Carries IP packets between two ``TunDevice``s, each way on its own ``PacketSchedule``: what `tc netem` does in the
/// kernel (delay, jitter, reordering), done in this process because the kernel here has no `sch_netem`. One thread
/// polls both devices and a stop pipe, queues what it reads and writes each packet out when its departure comes.
///
/// The kernel segments before handing packets to a TUN device (it offers no offloads), so the schedules act on
/// wire-sized packets, as netem would.
final class PacketRelay: Sendable {
    /// Packets held for a while, both ways.
    var heldPackets: Int { held.load(ordering: .relaxed) }
    /// Packets carried, both ways.
    var carriedPackets: Int { carried.load(ordering: .relaxed) }

    private let held = Atomic<Int>(0)
    private let carried = Atomic<Int>(0)
    private let stopPipe: (read: Int32, write: Int32)
    private let stopped = DispatchSemaphore(value: 0)

    /// Starts carrying packets from `first` to `second` on `forward` and back on `backward`.
    init(between first: TunDevice, and second: TunDevice, forward: PacketSchedule, backward: PacketSchedule) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw TunDevice.TunFailure(message: "pipe: \(String(cString: strerror(errno)))") }
        // Not to be inherited by the `courier` processes the tests start.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        stopPipe = (ends[0], ends[1])
        let lanes = [Lane(from: first.descriptor, to: second.descriptor, schedule: forward),
                     Lane(from: second.descriptor, to: first.descriptor, schedule: backward)]
        let thread = Thread { [self] in
            run(lanes)
            stopped.signal()
        }
        thread.name = "PacketRelay \(first.name) ⇄ \(second.name)"
        thread.start()
    }

    /// Stops the thread and waits for it; the devices stay open (their owner closes them).
    func stop() {
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
        stopped.wait()
        close(stopPipe.read)
        close(stopPipe.write)
    }

    /// One direction: the packets read and not yet written, in departure order within each rule's promise (a
    /// ``PacketSchedule/Rule/holdBack(percent:milliseconds:)`` packet waits here while later ones pass it).
    private struct Lane {
        let from: Int32
        let to: Int32
        var schedule: PacketSchedule
        var queue: [(departure: UInt64, packet: [UInt8])] = []
        var head = 0

        init(from: Int32, to: Int32, schedule: PacketSchedule) {
            self.from = from
            self.to = to
            self.schedule = schedule
        }

        var nextDeparture: UInt64? { head < queue.count ? queue[head].departure : nil }

        /// Writes out every packet whose departure has come.
        mutating func flush(now: UInt64) {
            while head < queue.count, queue[head].departure <= now {
                queue[head].packet.withUnsafeBytes { _ = write(to, $0.baseAddress, $0.count) }
                queue[head].packet = []
                head += 1
            }
            if head > 4096, head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
        }
    }

    private func run(_ startingLanes: [Lane]) {
        var lanes = startingLanes
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var polled = [pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
            + lanes.map { pollfd(fd: $0.from, events: Int16(POLLIN), revents: 0) }
        while true {
            let now = Self.monotonicNanoseconds()
            for index in lanes.indices { lanes[index].flush(now: now) }
            let next = lanes.compactMap(\.nextDeparture).min()
            // Round up, so that a wake-up never comes before the departure it is for.
            let timeout = next.map { Int32(clamping: ($0 - min($0, now) + 999_999) / 1_000_000) } ?? -1
            for index in polled.indices { polled[index].revents = 0 }
            guard poll(&polled, nfds_t(polled.count), timeout) >= 0 || errno == EINTR else { return }
            if polled[0].revents != 0 { return }
            for index in lanes.indices where polled[index + 1].revents & Int16(POLLIN) != 0 {
                // Take what is there now, a bounded batch, so that the other way and the departures are not starved.
                for _ in 0..<256 {
                    let count = buffer.withUnsafeMutableBytes { read(lanes[index].from, $0.baseAddress, $0.count) }
                    guard count > 0 else { break }
                    let arrival = Self.monotonicNanoseconds()
                    carried.add(1, ordering: .relaxed)
                    if let departure = lanes[index].schedule.departure(arrival: arrival) {
                        held.add(1, ordering: .relaxed)
                        lanes[index].queue.append((departure, Array(buffer[0..<count])))
                    } else {
                        buffer.withUnsafeBytes { _ = write(lanes[index].to, $0.baseAddress, count) }
                    }
                }
            }
        }
    }

    private static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
#endif
