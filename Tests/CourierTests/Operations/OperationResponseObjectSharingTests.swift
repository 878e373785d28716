import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Synchronization
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `responseObject` is shared between callers only when the serializer says its objects can be: an `XMLParser`
/// (mutable) is made afresh for each caller, an immutable result is decoded once.
@Suite("Operations: shared and per-caller response objects", .timeLimit(.minutes(1)))
struct OperationResponseObjectSharingTests {
    /// Counts its calls; shares its results or not, as told.
    final class CountingSerializer: URLResponseSerialization {
        let calls = Atomic<Int>(0)
        let returnsShareableObjects: Bool

        init(returnsShareableObjects: Bool) { self.returnsShareableObjects = returnsShareableObjects }

        func responseObject(for response: URLResponse?, data: Data?) throws -> Any? {
            calls.add(1, ordering: .relaxed)
            return data
        }
    }

    @Test(arguments: [true, false])
    func sharedResultsAreDecodedOnce(shareable: Bool) async throws {
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/bytes/64?seed=8")
        let serializer = CountingSerializer(returnsShareableObjects: shareable)
        operation.responseSerializer = serializer
        await OperationFixtures.run([operation])
        for _ in 0..<3 { #expect(operation.responseObject as? Data == TestPayload.bytes(count: 64, seed: 8)) }
        #expect(operation.error == nil)
        #expect(serializer.calls.load(ordering: .relaxed) == (shareable ? 1 : 3))
    }

    @Test func anXMLParserIsNeverShared() async throws {
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/xml")
        operation.responseSerializer = XMLParserResponseSerializer()
        await OperationFixtures.run([operation])
        let first = try #require(operation.responseObject as? XMLParser)
        let second = try #require(operation.responseObject as? XMLParser)
        #expect(first !== second)
        #expect(first.parse() && second.parse())
    }
}
