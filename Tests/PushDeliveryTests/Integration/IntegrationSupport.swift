import Foundation
import MockUpstream
import PushCore
import PushDelivery
import XCTest

/// Shared set-up of the tests that run the real engine against the local mock servers.
enum Integration {
    /// The engine trusting the mocks' test CA, as `PUSHGATE_CA_FILE` would make it.
    static func engine(
        extraCAFile: String? = MockFixtures.caFile, systemCAPath: String? = nil, requestTimeout: Double = 10,
        configure: (inout CurlEngineConfiguration) -> Void = { _ in }
    ) throws -> CurlEngine {
        var configuration = CurlEngineConfiguration(
            connectTimeoutSeconds: 5, requestTimeoutSeconds: requestTimeout, extraCAFile: extraCAFile,
            systemCAPath: systemCAPath)
        configure(&configuration)
        return try CurlEngine(configuration: configuration, logger: Fixtures.logger)
    }

    /// The test key the mock APNs verifies provider tokens with (kid KEY1234567, team TEAM123456).
    static let providerKey = MockAPNsProviderKey(
        keyID: "KEY1234567", teamID: "TEAM123456", publicKeyPEM: TestKeys.apnsPublicKey)

    static func mockAPNs(
        environment: APNsEnvironment = .production, configure: (inout MockAPNsConfiguration) -> Void = { _ in }
    ) throws -> MockAPNs {
        var configuration = MockAPNsConfiguration(providerKeys: [providerKey], environment: environment)
        configuration.eventLoopThreads = 1
        configure(&configuration)
        return try MockAPNs(configuration: configuration)
    }

    static func post(_ url: String, headers: [HTTPHeader] = [], body: String = "{}") -> UpstreamRequest {
        UpstreamRequest(method: "POST", url: url, headers: headers, body: Array(body.utf8))
    }

    /// `openssl rehash` a directory holding `certificates`, as /etc/ssl/certs is: a stand-in for
    /// the system CA directory. Nil when the openssl tool is missing.
    static func hashedCADirectory(_ certificates: [String]) throws -> URL? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else { return nil }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (index, certificate) in certificates.enumerated() {
            try FileManager.default.copyItem(
                atPath: certificate, toPath: directory.appendingPathComponent("ca\(index).pem").path)
        }
        let rehash = Process()
        rehash.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        rehash.arguments = ["rehash", directory.path]
        try rehash.run()
        rehash.waitUntilExit()
        return rehash.terminationStatus == 0 ? directory : nil
    }
}
