import Foundation
import Synchronization
import Testing

/// The servers nobody here wrote — nginx (TLS, HTTP/2, static files) and httpbin under gunicorn — that the interop
/// suites run against.
///
/// When the environment already describes one (`eval "$(scripts/nginx-test-server start)"`), that one is used.
/// Otherwise the suite's condition trait starts it with the same script, on a port the kernel gives, in a state
/// directory of this test process, and it is stopped when the process exits. Where the server cannot start (not
/// installed), its suites are skipped with a message that names the install command.
final class ExternalServer: Sendable {
    /// The script under `scripts/` that starts and stops the server.
    let script: String
    /// The variable the script exports that says the server runs.
    let urlVariable: String
    /// The variable that moves the script's state (pid file, logs) into a directory of this process.
    let stateVariable: String
    /// Why the suites are skipped when it cannot start.
    let skipMessage: Comment

    private let started = Mutex<[String: String]?>(nil)
    private let start = Mutex<Task<[String: String]?, Never>?>(nil)

    init(script: String, urlVariable: String, stateVariable: String, skipMessage: Comment) {
        self.script = script
        self.urlVariable = urlVariable
        self.stateVariable = stateVariable
        self.skipMessage = skipMessage
    }

    /// The server's variables once ``isRunning()`` returned `true` (empty before).
    var variables: [String: String] { started.withLock { $0 ?? [:] } }

    /// Starts the server unless the environment describes one or it started before; whether it runs.
    func isRunning() async -> Bool {
        let task = start.withLock { task in
            if let task { return task }
            let made = Task { await self.variablesFromEnvironmentOrStart() }
            task = made
            return made
        }
        guard let variables = await task.value else { return false }
        started.withLock { $0 = variables }
        return true
    }

    private var stateDirectory: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("courier-tests-\(getpid())-\(script)").path
    }

    private func variablesFromEnvironmentOrStart() async -> [String: String]? {
        let environment = ProcessInfo.processInfo.environment
        if environment[urlVariable] != nil { return environment }
        // The server's daemon inherits the script's open descriptors: its output goes to files, since a pipe would
        // stay open (and its reader waiting) as long as the server runs.
        let exports = stateDirectory + ".env"
        let command = "\(stateVariable)='\(stateDirectory)' '\(ExternalServers.scripts)/\(script)' start > '\(exports)' 2> '\(stateDirectory).log'"
        guard await ShellCommand.status(of: command, timeout: .seconds(300)) == 0,
              let printed = try? String(contentsOfFile: exports, encoding: .utf8)
        else {
            return nil
        }
        var variables = environment
        for line in printed.split(separator: "\n") {
            guard line.hasPrefix("export "), let equals = line.firstIndex(of: "=") else { continue }
            let name = line[line.index(line.startIndex, offsetBy: 7)..<equals]
            variables[String(name)] = String(line[line.index(after: equals)...])
        }
        guard variables[urlVariable] != nil else { return nil }
        ExternalServers.stopAtExit(self)
        return variables
    }

    /// Stops a server this process started (called at exit).
    func stop() {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "\(stateVariable)='\(stateDirectory)' '\(ExternalServers.scripts)/\(script)' stop; rm -rf '\(stateDirectory)' '\(stateDirectory).env' '\(stateDirectory).log'"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
        process.waitUntilExit()
    }
}

enum ExternalServers {
    /// nginx from `scripts/nginx-test-server`.
    static let nginx = ExternalServer(
        script: "nginx-test-server", urlVariable: "COURIER_NGINX_URL", stateVariable: "COURIER_NGINX_STATE",
        skipMessage: "nginx is not installed or did not start: apt-get install nginx openssl (or export the variables of scripts/nginx-test-server start)"
    )
    /// httpbin from `scripts/httpbin-test-server`.
    static let httpbin = ExternalServer(
        script: "httpbin-test-server", urlVariable: "COURIER_HTTPBIN_URL", stateVariable: "COURIER_HTTPBIN_STATE",
        skipMessage: "httpbin did not start: apt-get install python3-venv, with PyPI reachable for httpbin and gunicorn (or export the variable of scripts/httpbin-test-server start)"
    )

    /// tinyproxy (open, and with Basic credentials) and pproxy (SOCKS5) from `scripts/proxy-test-servers`.
    static let proxies = ExternalServer(
        script: "proxy-test-servers", urlVariable: "COURIER_TINYPROXY_URL", stateVariable: "COURIER_PROXIES_STATE",
        skipMessage: "the proxies did not start: apt-get install tinyproxy python3-venv, with PyPI reachable for pproxy (or export the variables of scripts/proxy-test-servers start)"
    )

    /// sse-starlette under uvicorn from `scripts/sse-test-server` (the app: `scripts/sse_test_app.py`), for the event
    /// streams and JSON lines.
    static let sse = ExternalServer(
        script: "sse-test-server", urlVariable: "COURIER_SSE_URL", stateVariable: "COURIER_SSE_STATE",
        skipMessage: "sse-starlette did not start: apt-get install python3-venv, with PyPI reachable for sse-starlette and uvicorn (or export the variable of scripts/sse-test-server start)"
    )

    /// A PostgreSQL cluster of its own (Debian's PostgreSQL, `initdb` in the state directory) from
    /// `scripts/postgres-test-server`, for the queue's PostgreSQL store.
    static let postgres = ExternalServer(
        script: "postgres-test-server", urlVariable: "COURIER_POSTGRES_URL", stateVariable: "COURIER_POSTGRES_STATE",
        skipMessage: "PostgreSQL did not start: apt-get install postgresql (or export the variable of scripts/postgres-test-server start)"
    )

    /// The repository's `scripts` directory.
    static let scripts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts").path

    private static let toStop = Mutex<[ExternalServer]>([])

    fileprivate static func stopAtExit(_ server: ExternalServer) {
        let first = toStop.withLock { servers in
            servers.append(server)
            return servers.count == 1
        }
        if first { atexit { ExternalServers.stopAll() } }
    }

    private static func stopAll() {
        for server in toStop.withLock({ $0 }) { server.stop() }
    }
}
