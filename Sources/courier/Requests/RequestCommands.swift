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

/// The option groups of a request command, side by side. argument-parser checks every group's definition on each
/// parse of a debug build, and that check repeats about fivefold for each level a group is nested (a `courier get`
/// with these five groups inside `RequestOptions` and `CommonRequestOptions` spent 0.3 s of CPU parsing its
/// arguments, which every test that runs a command paid); so no group holds another.
protocol RequestCommandGroups {
    var options: RequestOptions { get }
    var redirects: RedirectOptions { get }
    var kept: SessionOptions { get }
    var display: DisplayOptions { get }
    var common: CommonRequestOptions { get }
    var tls: TLSOptions { get }
    var network: NetworkOptions { get }
    var bodyStyle: BodyStyle? { get }
}

/// `courier request METHOD URL …`: any method, e.g. OPTIONS, PROPFIND or a custom one.
struct RequestCommand: AsyncParsableCommand, RequestCommandGroups {
    static let configuration = CommandConfiguration(
        commandName: "request", abstract: "Send a request with any method (OPTIONS, PROPFIND, a custom one…)."
    )
    @Argument(help: "The method, e.g. OPTIONS (sent as given: methods are case-sensitive).")
    var method: String
    @OptionGroup var options: RequestOptions
    @OptionGroup var redirects: RedirectOptions
    @OptionGroup var kept: SessionOptions
    @OptionGroup(title: "Output") var display: DisplayOptions
    @OptionGroup var common: CommonRequestOptions
    @OptionGroup(title: "TLS") var tls: TLSOptions
    @OptionGroup(title: "Network") var network: NetworkOptions
    @Flag(exclusivity: .exclusive) var bodyStyle: BodyStyle?

    func run() async throws {
        // RFC 9110's token: what a method may be, so nothing else reaches the request line.
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard !method.isEmpty, method.unicodeScalars.allSatisfy(token.contains) else {
            throw CLIFailure.usage("\"\(method)\" is not an HTTP method (letters, digits and !#$%&'*+-.^_`|~ only)")
        }
        try await RequestRunner(method: method, command: self).run()
    }
}

/// A method with a command of its own (`get`, `post`…).
protocol RequestMethod {
    /// The method sent, e.g. `GET`.
    static var method: String { get }
    /// The command's name and abstract.
    static var configuration: CommandConfiguration { get }
}

enum GetMethod: RequestMethod {
    static let method = "GET"
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Send a GET request.")
}

enum HeadMethod: RequestMethod {
    static let method = "HEAD"
    static let configuration = CommandConfiguration(commandName: "head", abstract: "Send a HEAD request.")
}

enum DeleteMethod: RequestMethod {
    static let method = "DELETE"
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Send a DELETE request.")
}

enum PostMethod: RequestMethod {
    static let method = "POST"
    static let configuration = CommandConfiguration(commandName: "post", abstract: "Send a POST request with a body.")
}

enum PutMethod: RequestMethod {
    static let method = "PUT"
    static let configuration = CommandConfiguration(commandName: "put", abstract: "Send a PUT request with a body.")
}

enum PatchMethod: RequestMethod {
    static let method = "PATCH"
    static let configuration = CommandConfiguration(commandName: "patch", abstract: "Send a PATCH request with a body.")
}

/// `courier get|head|delete URL …`: a request whose body, if any, is given with `--raw` or standard input.
struct MethodCommand<Method: RequestMethod>: AsyncParsableCommand, RequestCommandGroups {
    static var configuration: CommandConfiguration { Method.configuration }
    @OptionGroup var options: RequestOptions
    @OptionGroup var redirects: RedirectOptions
    @OptionGroup var kept: SessionOptions
    @OptionGroup(title: "Output") var display: DisplayOptions
    @OptionGroup var common: CommonRequestOptions
    @OptionGroup(title: "TLS") var tls: TLSOptions
    @OptionGroup(title: "Network") var network: NetworkOptions
    var bodyStyle: BodyStyle? { nil }

    func run() async throws { try await RequestRunner(method: Method.method, command: self).run() }
}

/// `courier post|put|patch URL …`: a request whose fields are encoded as `--json` (the default), `--form` or
/// `--multipart`.
struct BodyMethodCommand<Method: RequestMethod>: AsyncParsableCommand, RequestCommandGroups {
    static var configuration: CommandConfiguration { Method.configuration }
    @OptionGroup var options: RequestOptions
    @OptionGroup var redirects: RedirectOptions
    @OptionGroup var kept: SessionOptions
    @OptionGroup(title: "Output") var display: DisplayOptions
    @OptionGroup var common: CommonRequestOptions
    @OptionGroup(title: "TLS") var tls: TLSOptions
    @OptionGroup(title: "Network") var network: NetworkOptions
    @Flag(exclusivity: .exclusive) var bodyStyle: BodyStyle?

    func run() async throws { try await RequestRunner(method: Method.method, command: self).run() }
}
