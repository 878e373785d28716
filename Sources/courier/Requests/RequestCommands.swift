import ArgumentParser
import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the body of a POST, PUT or PATCH is encoded.
enum BodyStyle: String, EnumerableFlag {
    case json, form, multipart

    static func help(for value: BodyStyle) -> ArgumentHelp? {
        switch value {
        case .json: return "Send fields as a JSON object (the default)."
        case .form: return "Send fields as application/x-www-form-urlencoded."
        case .multipart: return "Send fields and files as multipart/form-data (implied by name@file)."
        }
    }
}

/// Options shared by every request command.
struct RequestOptions: ParsableArguments {
    @Argument(help: "The URL, e.g. http://127.0.0.1:8080/get.")
    var url: String

    @Argument(help: "Request items: name==value, Header:value, name=value, name:=json, name@file.")
    var items: [String] = []

    @Flag(name: .shortAndLong, help: "Print the request and response heads.")
    var verbose = false

    @Flag(help: "Exit with 3 when the response status is 400 or above.")
    var checkStatus = false

    @Option(help: "Seconds without data before the request fails.")
    var timeout: Double = 30
}

/// Sends one request described on the command line and prints the response.
struct RequestRunner {
    let method: String
    let options: RequestOptions
    let bodyStyle: BodyStyle?

    func run() async throws {
        let items = try options.items.map(RequestItem.init(parsing:))
        let request = try RequestBuilder(method: method, urlString: options.url, items: items, style: bodyStyle ?? .json, timeout: options.timeout).build()
        let printer = ResponsePrinter(verbose: options.verbose)
        printer.printRequest(request)

        let transport = AsyncHTTPClientTransport()
        var configuration = ExchangeConfiguration(transport: transport)
        configuration.cookieJar = CookieJar()
        let outcome: Result<ExchangeResult, any Error>
        do {
            outcome = .success(try await Exchange(request: request, configuration: configuration).result())
        } catch {
            outcome = .failure(error)
        }
        try? await transport.shutdown()

        switch outcome {
        case .success(let result):
            printer.printResponse(result.response, body: result.data ?? Data())
            if options.checkStatus && result.response.statusCode >= 400 {
                throw CLIFailure(status: .httpError, message: "HTTP \(result.response.statusCode) from \(result.request.url?.absoluteString ?? options.url)")
            }
        case .failure(let error as URLError):
            throw CLIFailure(status: .network, message: error.localizedDescription)
        case .failure(let error):
            throw CLIFailure(status: .network, message: "\(error)")
        }
    }
}

/// A subcommand that sends one request with its method.
protocol RequestSubcommand: AsyncParsableCommand {
    static var method: String { get }
    var options: RequestOptions { get }
    var bodyStyle: BodyStyle? { get }
}

extension RequestSubcommand {
    var bodyStyle: BodyStyle? { nil }
    func run() async throws { try await RequestRunner(method: Self.method, options: options, bodyStyle: bodyStyle).run() }
}

struct GetCommand: RequestSubcommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Send a GET request.")
    static let method = "GET"
    @OptionGroup var options: RequestOptions
}

struct HeadCommand: RequestSubcommand {
    static let configuration = CommandConfiguration(commandName: "head", abstract: "Send a HEAD request.")
    static let method = "HEAD"
    @OptionGroup var options: RequestOptions
}

struct DeleteCommand: RequestSubcommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Send a DELETE request.")
    static let method = "DELETE"
    @OptionGroup var options: RequestOptions
}

struct PostCommand: RequestSubcommand {
    static let configuration = CommandConfiguration(commandName: "post", abstract: "Send a POST request with a body.")
    static let method = "POST"
    @OptionGroup var options: RequestOptions
    @Flag(exclusivity: .exclusive) var bodyStyle: BodyStyle?
}

struct PutCommand: RequestSubcommand {
    static let configuration = CommandConfiguration(commandName: "put", abstract: "Send a PUT request with a body.")
    static let method = "PUT"
    @OptionGroup var options: RequestOptions
    @Flag(exclusivity: .exclusive) var bodyStyle: BodyStyle?
}

struct PatchCommand: RequestSubcommand {
    static let configuration = CommandConfiguration(commandName: "patch", abstract: "Send a PATCH request with a body.")
    static let method = "PATCH"
    @OptionGroup var options: RequestOptions
    @Flag(exclusivity: .exclusive) var bodyStyle: BodyStyle?
}
