import ArgumentParser
import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `courier download URL [-o FILE] [--continue]`: a resumable download to a file.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download a URL to a file, with progress, interruption and resumption.",
        discussion: """
        The body streams to the file (never held in memory). Progress goes to standard error: a \
        redrawn line on a terminal, plain lines every 0.5 s otherwise. Ctrl-C (SIGINT) or SIGTERM \
        stops the download and keeps FILE.part and FILE.courier-resume (so does a connection lost \
        midway); `--continue` resumes it \
        with Range/If-Range, and starts over when the server cannot resume (no range support, or \
        the file changed). A partial FILE without resume data (left by a browser, curl or wget) is \
        continued after its bytes with a Range request and no validator, with a warning: nothing proves \
        those bytes are the start of the server's file unless it sends Repr-Digest. The finished file is checked against the size the server announced and \
        against Repr-Digest, Content-Digest or Content-MD5 when the server sends them.
        Exit codes: 0 downloaded and verified, 2 usage error, 3 HTTP status >= 400, 4 network error, \
        5 verification failed (the file is kept for inspection), 130 stopped by SIGINT, 143 by SIGTERM.
        """
    )

    @Argument(help: "The URL to download, e.g. http://127.0.0.1:8080/bytes/1048576.")
    var url: String

    @Option(name: [.customShort("o"), .customLong("output")], help: "The file to write (default: the name the server gives in Content-Disposition, else the URL's last path component, in the current directory).")
    var output: String?

    @Option(name: .customLong("output-dir"), help: "The directory the file goes to, created when missing (as batch's): a relative -o, and the name the response or the URL gives, are taken from there. Default: the current directory.")
    var outputDirectory: String?

    @Flag(help: "Replace an existing file of the name chosen without -o (by default it is never overwritten: the download is saved as NAME-1.EXT, NAME-2.EXT…).")
    var force = false

    @Flag(name: .customLong("continue"), help: "Resume an interrupted download of the same file (from FILE.courier-resume), or continue a partial FILE another program left, after its bytes (as curl -C - and wget -c do).")
    var resume = false

    @Option(name: .customLong("timeout"), parsing: .unconditional, help: ArgumentHelp("Seconds without data before the download fails (0.001 to a year).", valueName: "seconds"))
    var timeoutGiven: OptionNumber = 30

    @Option(name: .customLong("checksum"), help: ArgumentHelp("The digest the whole file must have, as sha256=HEX or sha512=HEX (aria2c's --checksum). A mismatch exits 5 and the file is kept only as FILE.part; a FILE that already has it is a success without a download.", valueName: "algorithm=hex"))
    var checksumGiven: String?

    @Option(name: .customLong("max-time"), parsing: .unconditional, help: ArgumentHelp("Seconds the whole download may take before it is stopped, its bytes kept for --continue (curl's --max-time; 0.001 to a year). Default: no limit.", valueName: "seconds"))
    var maxTimeGiven: OptionNumber?

    @Option(name: .customLong("split"), parsing: .unconditional, help: ArgumentHelp("Fetch the file over up to N connections at once (1 to 16, aria2c's -s/-x), each asking for a segment with Range and If-Range, over HTTP/1.1. Only when the server answers Range: bytes=0-0 with a 206 stating the length and a strong validator (ETag or Last-Modified); otherwise one connection, and -v says why. A segment answered for another version of the file starts the download over. Not with --cache. Default 1.", valueName: "N"))
    var splitGiven: OptionNumber = 1

    @Option(name: .customLong("min-split-size"), parsing: .unconditional, help: ArgumentHelp("The least bytes of a --split segment (1M to 1024M, aria2c's -k): the file is cut into at most size/SIZE segments, and a connection that is done halves another's rest only when both halves keep SIZE. Default 20M.", valueName: "size"))
    var minSplitSizeGiven: OptionNumber = OptionNumber(argument: "20M")

    @Flag(name: .shortAndLong, help: "Show each request sent and each response head on stderr (the redirects and challenges between them, and timings), as the request commands' -v does.")
    var verbose = false

    @OptionGroup
    var redirects: RedirectOptions

    @OptionGroup
    var kept: SessionOptions

    @OptionGroup
    var common: CommonRequestOptions

    // Beside `common`, not inside it: see ``RequestCommandGroups``.
    @OptionGroup(title: "TLS")
    var tls: TLSOptions

    @OptionGroup(title: "Network")
    var network: NetworkOptions

    func run() async throws {
        let timeout = try NumericOption.timeout.seconds(timeoutGiven)
        let maxTime = try maxTimeGiven.map(NumericOption.maxTime.seconds)
        _ = try redirects.maxRedirects
        try common.check(tls: tls, network: network)
        try kept.check()
        let url = try DownloadCommand.httpURL(url)
        let checksum = try checksumGiven.map(ExpectedChecksum.init(parsing:))
        let split = try NumericOption.split.count(splitGiven)
        let minimumSplitSize = try NumericOption.minSplitSize.bytes(minSplitSizeGiven)
        let directory = outputDirectory.map { URL(fileURLWithPath: $0, isDirectory: true).standardizedFileURL }
        if let directory {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw CLIFailure.usage("cannot create the directory \(directory.path): \(error.localizedDescription)")
            }
        }
        let files = DownloadFiles(output: output, url: url, directory: directory)
        var isDirectory: ObjCBool = false
        let folder = files.output.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIFailure.usage("the directory \(folder.path) does not exist")
        }
        if let checksum, Self.isRegularFile(files.output), (try? checksum.matches(files.output)) == true {
            // Already here and proven whole: nothing to fetch (where HTTPie and xh would fail on the existing file).
            try StandardStreams.write("\(files.output.path) is already complete (verified \(checksum.algorithm.rawValue) from --checksum); nothing downloaded\n")
            return
        }
        var session = try kept.open(for: url)
        session?.warnIfWithheld(from: url)
        let common = session?.lending(to: self.common, for: url) ?? self.common
        var request = URLRequest(url: url)
        request.timeoutInterval = timeout
        request.setValue(CourierCommand.userAgent, forHTTPHeaderField: "User-Agent")
        // The file is the resource's own bytes, so that an interrupted download continues the same representation
        // and digests describe what is saved.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        let sessionHeaders = session?.headers(for: url) ?? [:]
        for (name, value) in sessionHeaders { request.setValue(value, forHTTPHeaderField: name) }
        try common.apply(to: &request)
        let confinement = SessionHeaderConfinement(lent: sessionHeaders, to: url, except: try self.common.header.map(HeaderOption.init(parsing:)))
        var stored: DownloadResumeData?
        // Bytes another program left, continued without proof that they are the start of the server's file.
        var unprovenBytes: Int64?
        // An interrupted --split download continues segment by segment, however many connections are given now.
        let segments = resume ? try files.loadSegments() : nil
        if resume, segments == nil {
            stored = try files.load(sending: request, confinedBy: confinement)
            if let stored, stored.url != url {
                // The resume data names the URL after redirects, or the URL of an earlier command.
                StandardStreams.writeError("courier: continuing \(stored.url.absoluteString), the URL recorded in \(files.resumeData.path)\n")
            } else if stored == nil, let adopted = try files.adoptForeignPartial(of: request) {
                stored = adopted
                unprovenBytes = adopted.resumption.offset
                StandardStreams.writeError("""
                    courier: warning: \(files.output.path) has no resume data; continuing after its \(adopted.resumption.offset) bytes, \
                    which cannot be checked against the server's copy (kept as \(files.partial.lastPathComponent) until done)

                    """)
            } else if stored == nil {
                StandardStreams.writeError("courier: no resume data at \(files.resumeData.path); downloading from the start\n")
            }
        }
        let splits = (split > 1 || segments != nil) && stored == nil
        var transportConfiguration = try common.transportConfiguration(tls: tls, network: network, timeout: timeout)
        if splits {
            // A connection per segment: over HTTP/2 the segments would share one connection (and its rate).
            transportConfiguration.maximumConnectionsPerHost = max(transportConfiguration.maximumConnectionsPerHost, split)
            transportConfiguration.httpVersion = .http1Only
        }
        let transport = EngineTransport(configuration: transportConfiguration)
        var transfer = DownloadTransfer(files: files, timeout: timeout, transport: transport, credential: try common.challengeCredential())
        if output == nil, !resume { transfer.serverNamed = ServerNamedTarget(urlNamed: files.output, replacesFiles: force) }
        transfer.maxTime = maxTime
        transfer.verbose = verbose
        transfer.followsRedirects = redirects.follow
        transfer.maximumRedirects = try redirects.maxRedirects
        transfer.retry = try common.retry
        transfer.cookieJar = session?.jar
        transfer.sessionHeaders = confinement
        transfer.cache = try kept.httpCache()
        var splitOutcome: DownloadTransfer.Outcome?
        if splits {
            let download = SplitDownload(transfer: transfer, connections: split, minimumSize: minimumSplitSize, confinement: confinement)
            switch try await download.run(request: request, continuing: segments) {
            case .ran(let outcome):
                splitOutcome = outcome
            case .oneConnection(let reason):
                if verbose || split > 1 { StandardStreams.writeError("courier: one connection: \(reason)\n") }
            }
        }
        let outcome: DownloadTransfer.Outcome
        if let splitOutcome {
            outcome = splitOutcome
        } else {
            outcome = try await transfer.run(request: request, resume: stored)
        }
        try? await transport.shutdown()
        if case .failed = outcome {} else {
            // Whatever the server answered, its cookies are kept, as a request's are.
            try session?.save(given: self.common, for: url)
        }
        switch outcome {
        case .finished(let response, let saved):
            // A split file's response is the probe's: only its promises about the whole file apply.
            let check = splitOutcome == nil ? IntegrityCheck(response: response) : IntegrityCheck(response: response).wholeRepresentationOnly()
            var verified: [String]
            do {
                verified = try check.verify(saved)
            } catch let mismatch as IntegrityCheck.Mismatch {
                throw CLIFailure(status: .verification, message: "\(saved.path) failed verification: \(mismatch.message); the file was kept for inspection")
            }
            if let unprovenBytes, response.statusCode == 206 || response.statusCode == 416, !check.coversWholeFile {
                StandardStreams.writeError("""
                    courier: warning: the first \(unprovenBytes) bytes were kept unchecked: the server sent no digest \
                    of the whole file (Repr-Digest)

                    """)
            }
            files.removeLeftovers()
            if let checksum {
                try Self.verify(saved, against: checksum)
                verified.append("\(checksum.algorithm.rawValue) from --checksum")
            }
            if let wanted = transfer.serverNamed?.wantedName(for: response), wanted != saved.lastPathComponent {
                StandardStreams.writeError("courier: \(wanted) is taken (a directory, or a file only --force replaces); saved as \(saved.lastPathComponent)\n")
            }
            let size = (try? IntegrityCheck.size(of: saved)) ?? 0
            let checks = verified.isEmpty ? "nothing to verify against" : "verified " + verified.joined(separator: ", ")
            try StandardStreams.write("saved \(saved.path) (\(size) bytes; \(checks))\n")
        case .httpError(let response):
            throw CLIFailure(status: .httpError, message: "HTTP \(response.statusCode) from \(response.url?.absoluteString ?? url.absoluteString); nothing was saved")
        case .stopped(let reason, let kept):
            let status: ExitStatus = reason == .signal(SIGTERM) ? .terminated : reason == .deadline ? .network : .interrupted
            let why = reason == .deadline ? "the download took longer than --max-time \(maxTime.map { String(format: "%g", $0) } ?? "") s and was stopped" : "stopped"
            guard let kept else {
                throw CLIFailure(status: status, message: "\(why) before any data arrived; nothing to resume")
            }
            throw CLIFailure(status: status, message: "\(why) after \(kept) bytes; resume with: \(resumeCommand(url, files))")
        case .broken(let error, let kept):
            throw CLIFailure(status: .network, message: "\(Self.describe(error)) after \(kept) bytes; resume with: \(resumeCommand(url, files))")
        case .failed(let error):
            throw CLIFailure(status: .network, message: Self.describe(error))
        }
    }

    /// Checks the finished `file` against `--checksum`; on a mismatch it is renamed `FILE.part`, so that nothing with
    /// the final name claims to be the file asked for.
    /// - Throws: ``CLIFailure`` (verification) on a mismatch; the errors of reading the file.
    private static func verify(_ file: URL, against checksum: ExpectedChecksum) throws {
        let actual = try IntegrityCheck.hash(file, from: 0, algorithm: checksum.algorithm)
        guard actual != checksum.digest else { return }
        let kept = URL(fileURLWithPath: file.path + ".part")
        try? FileManager.default.removeItem(at: kept)
        let keptWhere = (try? FileManager.default.moveItem(at: file, to: kept)) != nil ? "kept as \(kept.path)" : "left at \(file.path)"
        throw CLIFailure(status: .verification, message: """
            \(file.path) failed verification: its \(checksum.algorithm.rawValue) is \(ExpectedChecksum.hex(actual)), \
            not \(ExpectedChecksum.hex(checksum.digest)) as --checksum says; \(keptWhere)
            """)
    }

    private static func isRegularFile(_ url: URL) -> Bool {
        FileStatus.isRegularFile(atPath: url.path)
    }

    /// The command line that continues this download, quoted for a POSIX shell.
    private func resumeCommand(_ url: URL, _ files: DownloadFiles) -> String {
        let split = (try? NumericOption.split.count(splitGiven)) ?? 1
        return (["courier", "download", url.absoluteString, "-o", files.output.path, "--continue"] + (split > 1 ? ["--split", String(split)] : []))
            .map(ShellQuoting.quote).joined(separator: " ")
    }

    private static func describe(_ error: any Error) -> String {
        TransferFailureMessage.describe(error)
    }

    /// `given` as an absolute http(s) URL, with HTTPie's shorthand written out (``URLShorthand``).
    /// - Throws: a usage failure naming the text otherwise.
    static func httpURL(_ given: String) throws -> URL {
        let text = URLShorthand.expanded(given)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil else {
            throw CLIFailure.usage("not an http or https URL: \(given)")
        }
        return url
    }
}
