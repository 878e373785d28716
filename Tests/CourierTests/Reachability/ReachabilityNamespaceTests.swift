#if os(Linux)
@testable import Courier
import Foundation
import Synchronization
import Testing

/// Reachability against real kernel events, in network namespaces the tests create (root and
/// iproute2 needed). Only addresses inside those namespaces are used, and no packet is sent:
/// the manager only asks the kernel for routes.
@Suite("Reachability in network namespaces", .serialized, .enabled(if: NetworkNamespaceFixture.isSupported, "needs root"))
struct ReachabilityNamespaceTests {
    @Test func linkDownIsNoticedWithinOneSecond() async throws {
        try await NetworkNamespaceFixture.with { ns in
            try ns.addVethPair("vA", "vB", address: "10.213.1.1/24")
            let manager = NetworkReachabilityManager("10.213.1.2", in: ns)
            manager.startMonitoring()
            #expect(await manager.waitForStatus(.reachableViaWiFi) != nil)

            // Carrier loss: the peer goes down, vA stays administratively up but stops running.
            let clock = ContinuousClock()
            let before = clock.now
            try ns.inside("link", "set", "vB", "down")
            let afterCommand = clock.now
            let latency = try #require(await manager.waitForStatus(.notReachable, timeout: .seconds(1)))
            print("reachability: carrier loss → .notReachable in \(latency) after `ip` returned, \(afterCommand - before + latency) including the command")
            #expect(latency < .seconds(1))

            try ns.inside("link", "set", "vB", "up")
            #expect(await manager.waitForStatus(.reachableViaWiFi, timeout: .seconds(1)) != nil)

            // Administrative down of the interface itself (the kernel also removes its routes).
            let adminDown = clock.now
            try ns.inside("link", "set", "vA", "down")
            let adminLatency = try #require(await manager.waitForStatus(.notReachable, timeout: .seconds(1)))
            print("reachability: admin down → .notReachable in \(adminLatency) after `ip` returned, \(clock.now - adminDown) including the command")
            manager.stopMonitoring()
        }
    }

    @Test func linkUpWithAddressAndRouteBecomesReachable() async throws {
        try await NetworkNamespaceFixture.with { ns in
            try ns.inside("link", "add", "vA", "type", "veth", "peer", "name", "vB")
            let manager = NetworkReachabilityManager("10.213.50.7", in: ns)
            manager.startMonitoring()
            #expect(await manager.waitForStatus(.notReachable) != nil)

            try ns.inside("link", "set", "vA", "up")
            try ns.inside("link", "set", "vB", "up")
            try ns.inside("addr", "add", "10.213.2.1/24", "dev", "vA")
            #expect(await throughout(.milliseconds(300)) { manager.networkReachabilityStatus == .notReachable }, "no route to 10.213.50.0/24 yet")

            try ns.inside("route", "add", "10.213.50.0/24", "via", "10.213.2.2", "dev", "vA")
            #expect(await manager.waitForStatus(.reachableViaWiFi, timeout: .seconds(1)) != nil)
            #expect(manager.isReachable)
            #expect(manager.isReachableViaWiFi)
            #expect(!manager.isReachableViaWWAN)
        }
    }

    @Test func removedRouteOnlyAffectsTheAddressesItServed() async throws {
        try await NetworkNamespaceFixture.with { ns in
            try ns.addVethPair("vA", "vB", address: "10.213.3.1/24")
            try ns.inside("route", "add", "10.213.60.0/24", "via", "10.213.3.2", "dev", "vA")
            let routed = NetworkReachabilityManager("10.213.60.9", in: ns)
            let onLink = NetworkReachabilityManager("10.213.3.9", in: ns)
            routed.startMonitoring()
            onLink.startMonitoring()
            #expect(await routed.waitForStatus(.reachableViaWiFi) != nil)
            #expect(await onLink.waitForStatus(.reachableViaWiFi) != nil)

            try ns.inside("route", "del", "10.213.60.0/24")
            #expect(await routed.waitForStatus(.notReachable, timeout: .seconds(1)) != nil)
            #expect(await throughout(.milliseconds(200)) { onLink.networkReachabilityStatus == .reachableViaWiFi })
        }
    }

    @Test func defaultRouteMakesTheGeneralNetworkReachable() async throws {
        try await NetworkNamespaceFixture.with { ns in
            try ns.addVethPair("vA", "vB", address: "10.213.4.1/24")
            let manager = NetworkReachabilityManager(target: .anyNetwork, namespacePath: ns.path)
            manager.startMonitoring()
            #expect(await manager.waitForStatus(.notReachable) != nil)
            try ns.inside("route", "add", "default", "via", "10.213.4.2", "dev", "vA")
            #expect(await manager.waitForStatus(.reachableViaWiFi, timeout: .seconds(1)) != nil)
        }
    }

    @Test func cellularInterfaceReportsWWAN() async throws {
        try await NetworkNamespaceFixture.with { ns in
            try ns.addVethPair("wwan0", "peer0", address: "10.213.5.1/24")
            let manager = NetworkReachabilityManager("10.213.5.2", in: ns)
            manager.startMonitoring()
            #expect(await manager.waitForStatus(.reachableViaWWAN) != nil)
            #expect(manager.isReachableViaWWAN)
            #expect(manager.localizedNetworkReachabilityStatusString == "Reachable via WWAN")
        }
    }

    @Test func domainFollowsTheAddressesItResolvesTo() async throws {
        try await NetworkNamespaceFixture.with { ns in
            try ns.addVethPair("vA", "vB", address: "10.213.6.1/24")
            try ns.inside("route", "add", "10.213.70.0/24", "via", "10.213.6.2", "dev", "vA")
            let resolver = ReachabilityHostResolver { host in host == "api.courier.test" ? [ReachabilityAddress("10.213.70.5")].compactMap { $0 } : [] }
            let manager = NetworkReachabilityManager("api.courier.test", in: ns, resolver: resolver)
            let unknownName = NetworkReachabilityManager("nothing.courier.test", in: ns, resolver: resolver)
            manager.startMonitoring()
            unknownName.startMonitoring()
            #expect(await manager.waitForStatus(.reachableViaWiFi) != nil)
            #expect(await unknownName.waitForStatus(.notReachable) != nil)
            try ns.inside("route", "del", "10.213.70.0/24")
            #expect(await manager.waitForStatus(.notReachable, timeout: .seconds(1)) != nil)
        }
    }

    /// "localhost" through the real `getaddrinfo` (answered from /etc/hosts), in a namespace
    /// whose loopback starts down.
    @Test func domainThroughTheSystemResolver() async throws {
        try await NetworkNamespaceFixture.with { ns in
            let manager = NetworkReachabilityManager("localhost", in: ns)
            manager.startMonitoring()
            #expect(await manager.waitForStatus(.notReachable) != nil)
            try ns.inside("link", "set", "lo", "up")
            #expect(await manager.waitForStatus(.reachableViaWiFi, timeout: .seconds(1)) != nil)
        }
    }

    @Test func startStopStartIsIdempotentAndResumes() async throws {
        try await NetworkNamespaceFixture.with { ns in
            try ns.addVethPair("vA", "vB", address: "10.213.7.1/24")
            let manager = NetworkReachabilityManager("10.213.7.2", in: ns)
            let netlinkBefore = ReachabilityDescriptors.netlinkSocketCount()
            manager.startMonitoring()
            manager.startMonitoring()
            #expect(await manager.waitForStatus(.reachableViaWiFi) != nil)

            let clock = ContinuousClock()
            let stopStarted = clock.now
            manager.stopMonitoring()
            #expect(clock.now - stopStarted < .milliseconds(500), "closing must wake the reader at once")
            manager.stopMonitoring()

            try ns.inside("link", "set", "vB", "down")
            #expect(await throughout(.milliseconds(300)) { manager.networkReachabilityStatus == .reachableViaWiFi }, "no updates while stopped")

            manager.startMonitoring()
            #expect(await manager.waitForStatus(.notReachable, timeout: .seconds(1)) != nil)
            #expect(ReachabilityDescriptors.netlinkSocketCount() == netlinkBefore + 2, "two sockets while monitoring, however often started")
            manager.stopMonitoring()
            #expect(ReachabilityDescriptors.netlinkSocketCount() == netlinkBefore)
        }
    }

    @Test func changeBlockAndNotificationArriveOnTheMainQueue() async throws {
        try await NetworkNamespaceFixture.with { ns in
            try ns.addVethPair("vA", "vB", address: "10.213.8.1/24")
            let manager = NetworkReachabilityManager("10.213.8.2", in: ns)
            let seen = Mutex<[NetworkReachabilityStatus]>([])
            let offMainQueue = Mutex(0)
            let mainQueueKey = DispatchSpecificKey<Bool>()
            DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
            let notified = Mutex<[NetworkReachabilityStatus]>([])
            manager.setReachabilityStatusChangeBlock { status in
                if DispatchQueue.getSpecific(key: mainQueueKey) != true { offMainQueue.withLock { $0 += 1 } }
                seen.withLock { $0.append(status) }
            }
            let observer = NotificationCenter.default.addObserver(forName: .courierReachabilityDidChange, object: manager, queue: nil) { note in
                if let status = note.userInfo?[NetworkReachabilityManager.statusUserInfoKey] as? NetworkReachabilityStatus {
                    notified.withLock { $0.append(status) }
                }
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            manager.startMonitoring()
            try ns.inside("link", "set", "vB", "down")
            _ = await eventually(timeout: .seconds(3)) { notified.withLock { $0.last } == .notReachable }
            #expect(seen.withLock { $0 }.last == .notReachable)
            #expect(notified.withLock { $0 }.last == .notReachable)
            #expect(seen.withLock { $0 }.first != .unknown)
            #expect(offMainQueue.withLock { $0 } == 0)
        }
    }

    @Test func hundredManagersLeakNoDescriptors() async throws {
        try await NetworkNamespaceFixture.with { ns in
            try ns.addVethPair("vA", "vB", address: "10.213.9.1/24")
            let before = ReachabilityDescriptors.all().count
            let netlinkBefore = ReachabilityDescriptors.netlinkSocketCount()
            for round in 0..<100 {
                let manager = NetworkReachabilityManager("10.213.9.\(round % 200 + 2)", in: ns)
                manager.startMonitoring()
                if round.isMultiple(of: 10) {
                    #expect(await manager.waitForStatus(.reachableViaWiFi) != nil)
                }
                // Released here: deinit stops the reader and closes both sockets.
            }
            // A manager released on its own reader thread (while it reports) closes its sockets
            // as that thread ends, a moment later; give that a second at most.
            _ = await eventually(timeout: .seconds(1)) { ReachabilityDescriptors.netlinkSocketCount() == netlinkBefore }
            let after = ReachabilityDescriptors.all().count
            #expect(ReachabilityDescriptors.netlinkSocketCount() == netlinkBefore)
            // Each leaking manager would leave three descriptors (two sockets and its end of the
            // stop pair); the margin only absorbs other suites running in parallel.
            #expect(after - before < 20, "descriptors before \(before), after \(after)")
        }
    }

    /// The last reference dropped inside the monitor's own report: `stop` then runs on the reader
    /// thread, must not wait for itself, and the reader still closes its sockets.
    @Test func monitorReleasedFromItsOwnReportNeitherDeadlocksNorLeaks() async throws {
        try await NetworkNamespaceFixture.with { ns in
            try ns.addVethPair("vA", "vB", address: "10.213.10.1/24")
            let netlinkBefore = ReachabilityDescriptors.netlinkSocketCount()
            let holder = Mutex<NetlinkReachabilityMonitor?>(
                NetlinkReachabilityMonitor(target: .address(try #require(ReachabilityAddress("10.213.10.2"))), resolver: .system, namespacePath: ns.path))
            let reports = Atomic<Int>(0)
            // Started under the lock so the test never holds a reference of its own; the report
            // (on the reader thread) waits for the lock, then drops the only reference.
            holder.withLock { monitor in
                monitor?.start { _ in
                    reports.add(1, ordering: .relaxed)
                    _ = holder.withLock { held in defer { held = nil }; return held }
                }
            }
            _ = await eventually(timeout: .seconds(2)) {
                ReachabilityDescriptors.netlinkSocketCount() == netlinkBefore && reports.load(ordering: .relaxed) > 0
            }
            #expect(reports.load(ordering: .relaxed) >= 1)
            #expect(holder.withLock { $0 } == nil)
            #expect(ReachabilityDescriptors.netlinkSocketCount() == netlinkBefore)
        }
    }

    @Test func ipv6TargetFollowsItsLink() async throws {
        try await NetworkNamespaceFixture.with { ns in
            try ns.inside("link", "add", "vA", "type", "veth", "peer", "name", "vB")
            try ns.inside("addr", "add", "fd00:213::1/64", "dev", "vA", "nodad")
            try ns.inside("link", "set", "vA", "up")
            try ns.inside("link", "set", "vB", "up")
            let manager = NetworkReachabilityManager("fd00:213::2", in: ns)
            manager.startMonitoring()
            #expect(await manager.waitForStatus(.reachableViaWiFi) != nil)
            try ns.inside("link", "set", "vB", "down")
            #expect(await manager.waitForStatus(.notReachable, timeout: .seconds(1)) != nil)
        }
    }
}

/// The shared manager in the process's own namespace: it only asks this machine's kernel for the
/// route to a documentation address (nothing is sent) and must come to some answer.
@Suite("Shared reachability manager")
struct SharedReachabilityManagerTests {
    @Test func sharedManagerProducesAStatus() async {
        let manager = NetworkReachabilityManager.shared
        manager.startMonitoring()
        defer { manager.stopMonitoring() }
        #expect(await eventually(timeout: .seconds(3)) { manager.networkReachabilityStatus != .unknown })
    }
}
#endif
