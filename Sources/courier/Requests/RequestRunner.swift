import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one request described on the command line through one ``Exchange`` and prints the response.
struct RequestRunner {
    let method: String
    let options: RequestOptions
    let redirects: RedirectOptions
    let kept: SessionOptions
    let display: DisplayOptions
    /// The common options as given (a `--session` may lend more).
    let given: CommonRequestOptions
    let tls: TLSOptions
    let network: NetworkOptions
    let bodyStyle: BodyStyle?

    /// The runner of `command`'s request with `method`.
    init(method: String, command: some RequestCommandGroups) {
        self.method = method
        options = command.options
        redirects = command.redirects
        kept = command.kept
        display = command.display
        given = command.common
        tls = command.tls
        network = command.network
        bodyStyle = command.bodyStyle
    }

    func run() async throws {
        _ = try redirects.maxRedirects
        try options.check()
        try kept.check()
        try given.check(tls: tls, network: network)
        let items = try options.items.map(RequestItem.init(parsing:))
        let body = try BodyInput.read(raw: options.raw, contentType: options.contentType, ignoringStandardInput: options.ignoreStdin)
        let urlText = URLShorthand.expanded(options.url)
        let requestURL = URL(string: urlText)
        var session = try kept.open(for: requestURL)
        session?.warnIfWithheld(from: requestURL)
        let common = session?.lending(to: given, for: requestURL) ?? given
        let sessionHeaders = session?.headers(for: requestURL) ?? [:]
        let request = try buildRequest(items: items, body: body, common: common, sessionHeaders: sessionHeaders)
        let itemHeaders = items.compactMap { item -> HeaderOption? in
            guard case .header(let name, let value) = item else { return nil }
            return HeaderOption(name: name, value: value)
        }
        let confinement = SessionHeaderConfinement(
            lent: sessionHeaders, to: requestURL, except: try given.header.map(HeaderOption.init(parsing:)) + itemHeaders
        )
        let isTerminal = DisplayOptions.standardOutputIsTerminal
        let selection = try display.selection(verbose: options.verbose, standardOutputIsTerminal: isTerminal)
        try display.checkOverrides()
        var printer = ResponsePrinter(
            verbose: options.verbose, formatsBodies: display.formatsBodies(standardOutputIsTerminal: isTerminal),
            streamsLines: display.stream, isTerminal: isTerminal
        )
        printer.charsetOverride = display.responseCharset
        printer.mediaTypeOverride = display.responseMime
        let credential = try common.challengeCredential()
        let transportConfiguration = try given.transportConfiguration(tls: tls, network: network, timeout: try options.timeout)
        let output = try options.output.map(OutputFile.checked(path:))

        if options.printCurl {
            var curl = CURLCommandOptions()
            curl.credential = credential?.credential(for: request.url)
            curl.followsRedirects = redirects.follow
            curl.maximumRedirects = try redirects.follow ? redirects.maxRedirects : nil
            curl.outputFile = output
            try tls.apply(to: &curl)
            curl.proxy = network.proxy
            curl.noProxy = network.noproxy
            curl.unixSocketPath = network.unixSocket
            try StandardStreams.write(request.cURLDescription(options: curl) + "\n")
            return
        }
        var settings = RequestSettings()
        // The request has the serializer's User-Agent unless `-H 'User-Agent:'` removed it: then it goes without one.
        if request.value(forHTTPHeaderField: "User-Agent") == nil { settings.userAgent = nil }
        // What is printed before sending (--offline, -p H) has the fields Courier adds, as -v shows them sent.
        try printer.printRequest(settings.addingDefaultHeaders(to: request), head: selection.requestHead, body: selection.requestBody)
        if display.offline { return }

        let cache = try kept.httpCache()
        let transport = EngineTransport(configuration: transportConfiguration)
        var configuration = ExchangeConfiguration(transport: transport, settings: settings)
        configuration.cache = cache
        configuration.cookieJar = session?.jar ?? CookieJar()
        try redirects.apply(to: &configuration.settings)
        if !confinement.isEmpty { configuration.handlers.redirectHandler = { proposed, _ in confinement.confined(proposed) } }
        if let credential {
            configuration.handlers.challengeHandler = { challenge in credential.answer(challenge, originalURL: request.url) }
        }
        let limit = try given.retry
        if limit > 0 {
            configuration.interceptors = try given.retryInterceptors
            configuration.handlers.willRetry = { event in
                StandardStreams.writeError(CommonRequestOptions.retryLine(event, limit: limit) + "\n")
            }
        }
        // The body streams to its destination: the output file, or standard output as it arrives.
        configuration.sink = output.map { .file($0) } ?? .stream
        let upload = items.contains(where: \.isFile) ? ProgressDisplay() : nil
        if let upload {
            configuration.handlers.uploadProgress = { progress in
                upload.update(completed: progress.totalBytes, total: progress.totalBytesExpected < 0 ? nil : progress.totalBytesExpected, prefix: "upload")
            }
        }

        // `get -o FILE` on a terminal shows the bar `download` shows (an upload's own bar, when there is one, comes
        // first: two redrawn lines would overwrite each other).
        let download = output != nil && upload == nil && ProgressDisplay.Style.standardErrorIsTerminal
            ? ProgressDisplay(style: .redrawn) : nil
        if let download {
            configuration.handlers.downloadProgress = { progress in
                download.update(completed: progress.totalBytes, total: progress.totalBytesExpected < 0 ? nil : progress.totalBytesExpected)
            }
        }

        // A retry whose wait would pass --max-time fails at once rather than wait (the deadline below stops the rest).
        configuration.deadline = try options.maxTime.map { ContinuousClock.now.advanced(by: .seconds($0)) }
        let deadline = try options.maxTime.map { RequestDeadline(seconds: $0) }
        defer { deadline?.disarm() }
        // One connection, or with `--stream` an event stream's connections: one that fails mid-stream is opened again
        // where the stream stopped (EventStreamPosition).
        var attempt = request
        var eventStream = EventStreamPosition()
        while true {
            let exchange = Exchange(request: attempt, configuration: configuration)
            deadline?.watch(exchange)
            let outcome: Result<ExchangeResult, any Error>
            do {
                let result = try await exchange.result()
                deadline?.watch(result.body)
                outcome = .success(result)
            } catch {
                outcome = .failure(error)
            }
            for display in [upload, download].compactMap({ $0 }) {
                if case .success = outcome { display.finish() } else { display.abandon() }
            }
            defer {
                if options.verbose {
                    StandardStreams.writeError(VerboseTrace(metrics: exchange.metrics).lines.map { $0 + "\n" }.joined())
                }
            }
            do {
                let result = try outcome.get()
                try await printResponse(result, output: output, printer: printer, selection: selection, eventStream: &eventStream)
                try session?.save(given: given, itemHeaders: itemHeaders, for: requestURL)
                try? await transport.shutdown()
                if options.checkStatus && result.response.statusCode >= 400 {
                    throw CLIFailure(status: .httpError, message: "HTTP \(result.response.statusCode) from \(result.request.url?.absoluteString ?? urlText)")
                }
                return
            } catch let failure as CLIFailure {
                try? await transport.shutdown()
                throw failure
            } catch {
                if let deadline, deadline.hasExpired {
                    try? await transport.shutdown()
                    throw CLIFailure(status: .network, message: "the request took longer than --max-time \(Self.seconds(deadline.seconds)) s and was stopped")
                }
                let delay = eventStream.reconnectionDelay
                guard let next = eventStream.reconnection(of: attempt, after: error),
                      configuration.deadline.map({ ContinuousClock.now.advanced(by: delay) < $0 }) ?? true else {
                    try? await transport.shutdown()
                    throw CLIFailure(status: .network, message: TransferFailureMessage.describe(error))
                }
                StandardStreams.writeError(Self.reconnectionLine(after: error, delay: delay, lastEventID: next.value(forHTTPHeaderField: "Last-Event-ID")))
                try? await Task.sleep(for: delay)
                attempt = next
            }
        }
    }

    /// The line on standard error before an event stream is opened again.
    private static func reconnectionLine(after error: any Error, delay: Duration, lastEventID: String?) -> String {
        let from = lastEventID.map { " with Last-Event-ID: \($0)" } ?? ""
        return "courier: the event stream's connection failed (\(TransferFailureMessage.describe(error))); reconnecting in \(Self.seconds(delay.seconds)) s\(from)\n"
    }

    /// The parts `selection` asks for: the status line or the whole head, then the body, streamed to standard output
    /// as it arrives (or already in `output`). A body not asked for is read and dropped.
    private func printResponse(
        _ result: ExchangeResult, output: URL?, printer: ResponsePrinter, selection: DisplayOptions.Selection,
        eventStream: inout EventStreamPosition
    ) async throws {
        if selection.statusLine || selection.responseHead {
            try printer.printHead(result.response, httpVersion: result.metrics.transactions.last?.httpVersion, headerFields: selection.responseHead)
        }
        if let output {
            StandardStreams.writeError("courier: wrote \(result.bytesReceived) bytes to \(output.path)\n")
        } else if let body = result.body {
            if selection.responseBody {
                _ = try await printer.printBody(
                    body, contentType: result.response.value(forHTTPHeaderField: "Content-Type"),
                    separated: selection.statusLine || selection.responseHead, eventStream: &eventStream
                )
            } else {
                for try await _ in body {}
            }
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(format: "%.0f", value) : String(value)
    }

    /// The request: items and body style through ``RequestBuilder``, then `-H` and the authentication options, then
    /// the header items again.
    private func buildRequest(
        items: [RequestItem], body: BodyInput?, common: CommonRequestOptions, sessionHeaders: [String: String]
    ) throws -> URLRequest {
        var request = try RequestBuilder(
            method: method, urlString: URLShorthand.expanded(options.url), items: items, style: bodyStyle ?? .json, timeout: try options.timeout, body: body
        ).build()
        for (name, value) in sessionHeaders where request.value(forHTTPHeaderField: name) == nil {
            request.setValue(value, forHTTPHeaderField: name)
        }
        try common.apply(to: &request)
        // A header item wins over a -H of the same name, so that what is typed beats a -H of the defaults file
        // (DefaultsFile puts the file's options before the command line's).
        for case .header(let name, let value) in items {
            request.setValue(value.isEmpty ? nil : value, forHTTPHeaderField: name)
        }
        return request
    }
}
