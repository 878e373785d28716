import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns a command line's method, URL and items into a `URLRequest` with Courier's serializers.
struct RequestBuilder {
    let method: String
    let urlString: String
    let items: [RequestItem]
    let style: BodyStyle
    let timeout: TimeInterval
    /// A whole body (`--raw` or standard input) instead of body items. Default none.
    var body: BodyInput?

    func build() throws -> URLRequest {
        let target = try urlWithQuery()
        let bodyItems = items.filter(\.isBodyItem)
        if !bodyItems.isEmpty, ["GET", "HEAD", "DELETE"].contains(method) {
            throw CLIFailure.usage("\(method.lowercased()) takes no body items; use name==value for the query string")
        }
        if body != nil, !bodyItems.isEmpty {
            throw CLIFailure.usage("a body from --raw or standard input cannot be mixed with body items (name=value, name:=json, name@file); use --ignore-stdin to send the items")
        }
        var request: URLRequest
        do {
            request = try makeRequest(url: target, bodyItems: bodyItems)
            if let body {
                request.httpBody = body.data
                request.setValue(body.contentType, forHTTPHeaderField: "Content-Type")
            }
        } catch let failure as CLIFailure {
            throw failure
        } catch {
            throw CLIFailure.usage("cannot build the request: \(error)")
        }
        for case .header(let name, let value) in items {
            guard HeaderOption.isFieldName(name) else {
                throw CLIFailure.usage("bad header item \"\(name):\(value)\": \"\(name)\" is not a header name")
            }
            request.setValue(value.isEmpty ? nil : value, forHTTPHeaderField: name)
        }
        request.timeoutInterval = timeout
        return request
    }

    private func urlWithQuery() throws -> String {
        guard var components = URLComponents(string: urlString),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              components.host?.isEmpty == false
        else {
            throw CLIFailure.usage("\"\(urlString)\" is not an http or https URL")
        }
        let queries = items.compactMap { item -> URLQueryItem? in
            guard case .query(let name, let value) = item else { return nil }
            return URLQueryItem(name: name, value: value)
        }
        if !queries.isEmpty {
            components.queryItems = (components.queryItems ?? []) + queries
        }
        guard let string = components.string else { throw CLIFailure.usage("cannot build a URL from \"\(urlString)\"") }
        return string
    }

    /// `serializer` with a command line's default fields instead of an app's: courier's `User-Agent`, and no
    /// `Accept-Language` (the process's languages are not the user's request; curl and HTTPie send none).
    private static func serializer(_ serializer: HTTPRequestSerializer) -> HTTPRequestSerializer {
        serializer.setValue(CourierCommand.userAgent, forHTTPHeaderField: "User-Agent")
        serializer.setValue(nil, forHTTPHeaderField: "Accept-Language")
        return serializer
    }

    private func makeRequest(url: String, bodyItems: [RequestItem]) throws -> URLRequest {
        let hasFiles = bodyItems.contains { if case .file = $0 { true } else { false } }
        guard !bodyItems.isEmpty else {
            return try Self.serializer(HTTPRequestSerializer()).request(method: method, urlString: url, parameters: nil)
        }
        if hasFiles || style == .multipart {
            return try multipartRequest(url: url, bodyItems: bodyItems)
        }
        var fields: [String: Any] = [:]
        for item in bodyItems {
            switch item {
            case .field(let name, let value):
                fields[name] = value
            case .jsonField(let name, let json):
                fields[name] = style == .json ? try parseJSON(json, field: name) : json
            default:
                continue
            }
        }
        let serializer = Self.serializer(style == .json ? JSONRequestSerializer() : HTTPRequestSerializer())
        return try serializer.request(method: method, urlString: url, parameters: fields)
    }

    private func multipartRequest(url: String, bodyItems: [RequestItem]) throws -> URLRequest {
        for case .file(_, let path) in bodyItems where !FileManager.default.isReadableFile(atPath: path) {
            throw CLIFailure.usage("cannot read the file \"\(path)\"")
        }
        return try Self.serializer(HTTPRequestSerializer()).multipartFormRequest(method: method, urlString: url, parameters: nil) { form in
            for item in bodyItems {
                switch item {
                case .field(let name, let value):
                    form.appendPart(withFormData: Data(value.utf8), name: name)
                case .jsonField(let name, let json):
                    form.appendPart(withFormData: Data(json.utf8), name: name)
                case .file(let name, let path):
                    try form.appendPart(withFileURL: URL(fileURLWithPath: path), name: name)
                default:
                    continue
                }
            }
        }
    }

    private func parseJSON(_ text: String, field: String) throws -> Any {
        guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
            throw CLIFailure.usage("the value of \(field):= is not valid JSON: \(text)")
        }
        return value
    }
}
