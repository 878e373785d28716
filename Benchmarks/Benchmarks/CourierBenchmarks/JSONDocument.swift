import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A JSON document of about 10 MB: an array of records, made once.
enum JSONDocument {
    struct Record: Codable {
        var id: Int
        var name: String
        var email: String
        var active: Bool
        var score: Double
        var tags: [String]
    }

    static let data: Data = {
        let records = (0..<70_000).map { index in
            Record(id: index, name: "Courier user \(index)", email: "user\(index)@example.com", active: index % 3 == 0,
                   score: Double(index) * 0.37, tags: ["alpha", "beta", "tag-\(index % 17)"])
        }
        return (try? JSONEncoder().encode(records)) ?? Data()
    }()

    static let response = HTTPURLResponse(
        url: URL(fileURLWithPath: "/"), statusCode: 200, httpVersion: "HTTP/1.1",
        headerFields: ["Content-Type": "application/json"]
    )
}
