import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One settings value travels from each façade to the exchange: what a session, a manager or an operation says
/// through its own properties is what `requestSettings` and `transportSettings` hold, and what the wire shows.
@Suite("Request and transport settings: one value from façade to exchange", .timeLimit(.minutes(1)))
struct RequestSettingsTests {
    @Test("a session configuration's properties are its two settings values")
    func sessionPropertiesAreTheSettings() {
        var configuration = SessionConfiguration.ephemeral
        let jar = CookieJar()
        configuration.httpCookieStorage = jar
        configuration.maximumResponseDataSize = 1_024
        configuration.contentDecoding = nil
        configuration.httpMaximumConnectionsPerHost = 3
        configuration.proxy = .all(ProxyServer(kind: .http, host: "proxy.example", port: 3128))
        #expect(configuration.requestSettings.cookieJar === jar)
        #expect(configuration.requestSettings.maximumBodySize == 1_024)
        #expect(configuration.requestSettings.contentDecoding == nil)
        #expect(configuration.transportSettings.maximumConnectionsPerHost == 3)
        #expect(configuration.transportSettings.proxy == configuration.proxy)

        configuration.transportSettings.connectTimeout = 2
        configuration.requestSettings.credentialStore = nil
        #expect(configuration.connectTimeout == 2 && configuration.urlCredentialStorage == nil)

        let engine = EngineTransport.Configuration(settings: configuration.transportSettings)
        #expect(engine.maximumConnectionsPerHost == 3 && engine.connectTimeout == 2 && engine.proxy == configuration.proxy)
    }

    @Test("a manager's request settings reach its operations whole, and the operation's exchange")
    func managerSettingsReachTheWire() async throws {
        let manager = HTTPRequestOperationManager(baseURL: try await Fixtures.url("/"))
        manager.transport = Fixtures.transport
        manager.responseSerializer = HTTPResponseSerializer()
        var settings = manager.requestSettings
        #expect(settings.cookieJar === CookieJar.processShared && settings.credentialStore === CredentialStore.shared)
        settings.contentDecoding = nil
        settings.credentialStore = nil
        manager.requestSettings = settings
        #expect(!manager.shouldUseCredentialStorage)

        let quiet = manager.httpRequestOperation(with: URLRequest(url: try await Fixtures.url("/headers")),
                                                     success: nil, failure: nil)
        #expect(quiet.requestSettings.contentDecoding == nil && !quiet.shouldUseCredentialStorage)
        let plain = try await OperationFixtures.operation(HTTPRequestOperation.self, "/headers")
        await OperationFixtures.run([quiet, plain])

        let sent = try [quiet, plain].map { operation in
            let echo = try SessionFixtures.json(try #require(operation.responseData))
            return (echo["headers"] as? [String: String])?["Accept-Encoding"]
        }
        #expect(sent[0] == nil, "the manager's settings turned decoding off for its operation")
        #expect(sent[1] == "gzip, deflate", "an operation of its own asks for compressed bodies")
    }
}

/// A setting declared once in `RequestSettings` reaches every façade: the redirect rule, for sessions and operations.
@Suite("Redirect settings through both façades", .timeLimit(.minutes(1)))
struct RedirectSettingsTests {
    @Test("a session's maximumRedirects stops a longer chain with httpTooManyRedirects, and lets a shorter one through")
    func sessionRedirectLimit() async throws {
        let manager = SessionFixtures.manager { $0.requestSettings.maximumRedirects = 2 }
        manager.responseSerializer = HTTPResponseSerializer()
        let short = manager.dataTask(with: try await SessionFixtures.request("/redirect/2"), completionHandler: nil)
        short.resume()
        _ = try await short.value
        #expect((short.response as? HTTPURLResponse)?.url?.path == "/get")

        let long = manager.dataTask(with: try await SessionFixtures.request("/redirect/3"), completionHandler: nil)
        long.resume()
        await #expect { _ = try await long.value } throws: { ($0 as? URLError)?.code == .httpTooManyRedirects }
    }

    @Test("an operation that does not follow redirects delivers the 3xx response itself")
    func operationDoesNotFollow() async throws {
        let following = try await OperationFixtures.operation(URLConnectionOperation.self, "/redirect/1")
        let stopping = try await OperationFixtures.operation(URLConnectionOperation.self, "/redirect/1")
        stopping.requestSettings.followsRedirects = false
        await OperationFixtures.run([following, stopping])
        #expect(following.response?.statusCode == 200 && following.response?.url?.path == "/get")
        #expect(stopping.response?.statusCode == 302 && stopping.error == nil)
    }
}
