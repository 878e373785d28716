import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one request described on the command line through one ``Exchange`` and prints the response.
struct RequestRunner {
    let method: String
    let options: RequestOptions
    let bodyStyle: BodyStyle?

    func run() async throws {
        try options.check()
        let items = try options.items.map(RequestItem.init(parsing:))
        let request = try buildRequest(items: items)
        let credential = try options.user.map(CredentialOption.credential(parsing:))
        let transportConfiguration = try options.tls.transportConfiguration()
        let output = try options.output.map(OutputFile.checked(path:))

        if options.printCurl {
            var curl = CURLCommandOptions()
            curl.credential = credential
            curl.followsRedirects = options.follow
            curl.maximumRedirects = options.follow ? options.maxRedirects : nil
            curl.outputFile = output
            try options.tls.apply(to: &curl)
            print(request.cURLDescription(options: curl))
            return
        }

        let transport = AsyncHTTPClientTransport(configuration: transportConfiguration)
        var configuration = ExchangeConfiguration(transport: transport)
        configuration.cookieJar = CookieJar()
        configuration.followsRedirects = options.follow
        configuration.maximumRedirects = options.maxRedirects
        configuration.credential = credential
        if let output { configuration.sink = .file(output) }
        let upload = items.contains(where: \.isFile) ? ProgressDisplay() : nil
        if let upload {
            configuration.uploadProgress = { progress in
                upload.update(completed: progress.totalBytes, total: progress.totalBytesExpected < 0 ? nil : progress.totalBytesExpected, prefix: "upload")
            }
        }

        let exchange = Exchange(request: request, configuration: configuration)
        let outcome: Result<ExchangeResult, any Error>
        do {
            outcome = .success(try await exchange.result())
        } catch {
            outcome = .failure(error)
        }
        try? await transport.shutdown()
        if case .success = outcome { upload?.finish() } else { upload?.abandon() }
        if options.verbose {
            FileHandle.standardError.write(Data(VerboseTrace(metrics: exchange.metrics).lines.map { $0 + "\n" }.joined().utf8))
        }

        switch outcome {
        case .success(let result):
            let version = result.metrics.transactions.last?.httpVersion
            ResponsePrinter(verbose: options.verbose).printResponse(result.response, httpVersion: version, body: result.data)
            if let output {
                FileHandle.standardError.write(Data("courier: wrote \(result.bytesReceived) bytes to \(output.path)\n".utf8))
            }
            if options.checkStatus && result.response.statusCode >= 400 {
                throw CLIFailure(status: .httpError, message: "HTTP \(result.response.statusCode) from \(result.request.url?.absoluteString ?? options.url)")
            }
        case .failure(let error as URLError):
            throw CLIFailure(status: .network, message: error.localizedDescription)
        case .failure(let error):
            throw CLIFailure(status: .network, message: "\(error)")
        }
    }

    /// The request: items and body style through ``RequestBuilder``, then `-H` and `--bearer`.
    private func buildRequest(items: [RequestItem]) throws -> URLRequest {
        let headers = try options.header.map(HeaderOption.init(parsing:))
        var request = try RequestBuilder(method: method, urlString: options.url, items: items, style: bodyStyle ?? .json, timeout: options.timeout).build()
        if let token = options.bearer {
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        for header in headers {
            request.setValue(header.value.isEmpty ? nil : header.value, forHTTPHeaderField: header.name)
        }
        return request
    }
}
