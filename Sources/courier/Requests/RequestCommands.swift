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

/// `courier request METHOD URL …`: any method, e.g. OPTIONS, PROPFIND or a custom one.
struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request", abstract: "Send a request with any method (OPTIONS, PROPFIND, a custom one…)."
    )
    @Argument(help: "The method, e.g. OPTIONS (sent as given: methods are case-sensitive).")
    var method: String
    @OptionGroup var options: RequestOptions
    @OptionGroup var common: CommonRequestOptions
    @Flag(exclusivity: .exclusive) var bodyStyle: BodyStyle?

    func run() async throws {
        // RFC 9110's token: what a method may be, so nothing else reaches the request line.
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard !method.isEmpty, method.unicodeScalars.allSatisfy(token.contains) else {
            throw CLIFailure.usage("\"\(method)\" is not an HTTP method (letters, digits and !#$%&'*+-.^_`|~ only)")
        }
        try await RequestRunner(method: method, options: options, given: common, bodyStyle: bodyStyle).run()
    }
}

/// A subcommand that sends one request with its method.
protocol RequestSubcommand: AsyncParsableCommand {
    static var method: String { get }
    var options: RequestOptions { get }
    var common: CommonRequestOptions { get }
    var bodyStyle: BodyStyle? { get }
}

extension RequestSubcommand {
    var bodyStyle: BodyStyle? { nil }
    func run() async throws { try await RequestRunner(method: Self.method, options: options, given: common, bodyStyle: bodyStyle).run() }
}

struct GetCommand: RequestSubcommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Send a GET request.")
    static let method = "GET"
    @OptionGroup var options: RequestOptions
    @OptionGroup var common: CommonRequestOptions
}

struct HeadCommand: RequestSubcommand {
    static let configuration = CommandConfiguration(commandName: "head", abstract: "Send a HEAD request.")
    static let method = "HEAD"
    @OptionGroup var options: RequestOptions
    @OptionGroup var common: CommonRequestOptions
}

struct DeleteCommand: RequestSubcommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Send a DELETE request.")
    static let method = "DELETE"
    @OptionGroup var options: RequestOptions
    @OptionGroup var common: CommonRequestOptions
}

struct PostCommand: RequestSubcommand {
    static let configuration = CommandConfiguration(commandName: "post", abstract: "Send a POST request with a body.")
    static let method = "POST"
    @OptionGroup var options: RequestOptions
    @OptionGroup var common: CommonRequestOptions
    @Flag(exclusivity: .exclusive) var bodyStyle: BodyStyle?
}

struct PutCommand: RequestSubcommand {
    static let configuration = CommandConfiguration(commandName: "put", abstract: "Send a PUT request with a body.")
    static let method = "PUT"
    @OptionGroup var options: RequestOptions
    @OptionGroup var common: CommonRequestOptions
    @Flag(exclusivity: .exclusive) var bodyStyle: BodyStyle?
}

struct PatchCommand: RequestSubcommand {
    static let configuration = CommandConfiguration(commandName: "patch", abstract: "Send a PATCH request with a body.")
    static let method = "PATCH"
    @OptionGroup var options: RequestOptions
    @OptionGroup var common: CommonRequestOptions
    @Flag(exclusivity: .exclusive) var bodyStyle: BodyStyle?
}
