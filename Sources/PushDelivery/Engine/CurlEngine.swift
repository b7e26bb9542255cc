import PushCore
import CCurl
import Foundation
import Logging

/// The HTTP/2 engine: a libcurl multi handle driven by its own thread (one by default, see
/// `CurlEngineConfiguration.threads`), multiplexing every request to a host (and client
/// identity) over as few TLS connections as the streams allow. Create one per process and share
/// it; call `shutdown()` before exit.
public final class CurlEngine: HTTP2Transport {
    /// One multi handle and thread each; requests are dealt to them in turn.
    private let lanes: [EngineLane]
    private let nextLane = Locked(0)
    private let statisticsBox = Locked(CurlEngineStatistics())

    public init(configuration: CurlEngineConfiguration = CurlEngineConfiguration(), logger: Logger) throws(CurlEngineError) {
        CurlGlobal.ensureInitialized()
        let settings = Self.easySettings(configuration)
        var lanes: [EngineLane] = []
        for index in 0..<max(1, configuration.threads) {
            do {
                lanes.append(
                    try EngineLane(
                        index: index, configuration: configuration, settings: settings, statistics: statisticsBox,
                        logger: logger))
            } catch {
                for lane in lanes { lane.shutdown() }
                throw error
            }
        }
        self.lanes = lanes
        logger.debug(
            "curl engine started",
            metadata: [
                "threads": "\(lanes.count)",
                "connect_timeout": "\(configuration.connectTimeoutSeconds)",
                "request_timeout": "\(configuration.requestTimeoutSeconds)",
                "extra_ca_file": "\(configuration.extraCAFile ?? "none")",
            ])
    }

    public func submit(_ request: UpstreamRequest, completion: @escaping @Sendable (UpstreamOutcome) -> Void) {
        let transfer = CurlTransfer(request: request, completion: completion)
        let lane = lanes.count == 1 ? lanes[0] : lanes[nextLane.withLock { next in
            defer { next = (next + 1) % lanes.count }
            return next
        }]
        if !lane.queue.enqueue(transfer) {
            completion(.failure(.shutDown))
        }
    }

    /// Counters since start, for metrics and tests.
    public var statistics: CurlEngineStatistics {
        statisticsBox.withLock { $0 }
    }

    /// Refuses new requests, lets those in flight finish within the configured grace period,
    /// fails the rest with `.shutDown`, and waits until the engine thread has released libcurl.
    /// Call it from any thread but the engine's (not from a completion). Idempotent.
    public func shutdown() {
        for lane in lanes { _ = lane.queue.beginStopping() }
        for lane in lanes { lane.shutdown() }
    }

    /// Sets the multi handle's options: multiplexing and the connection limits.
    static func configure(_ multi: MultiHandle, _ configuration: CurlEngineConfiguration) throws(CurlEngineError) {
        let options: [(CURLMoption, Int, String)] = [
            (CURLMOPT_PIPELINING, pushgate_curlpipe_multiplex(), "CURLMOPT_PIPELINING"),
            (CURLMOPT_MAX_CONCURRENT_STREAMS, configuration.maxConcurrentStreams, "CURLMOPT_MAX_CONCURRENT_STREAMS"),
            (CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxHostConnections, "CURLMOPT_MAX_HOST_CONNECTIONS"),
            (CURLMOPT_MAXCONNECTS, configuration.maxCachedConnections, "CURLMOPT_MAXCONNECTS"),
        ]
        for (option, value, name) in options {
            let code = pushgate_curl_multi_setopt_long(multi.pointer, option, value)
            guard code == CURLM_OK else {
                throw .initializationFailed("\(name): \(String(cString: curl_multi_strerror(code)))")
            }
        }
    }

    /// With an extra CA file, CURLOPT_CAINFO names it and CURLOPT_CAPATH keeps the system's
    /// hashed CA directory: OpenSSL then trusts both (CAINFO alone would replace the bundle, and
    /// CURLSSLOPT_NATIVE_CA only means something on Windows in this libcurl).
    private static func easySettings(_ configuration: CurlEngineConfiguration) -> EasySettings {
        var settings = EasySettings(
            connectTimeoutMilliseconds: Int(configuration.connectTimeoutSeconds * 1000),
            requestTimeoutMilliseconds: Int(configuration.requestTimeoutSeconds * 1000))
        if let extra = configuration.extraCAFile {
            settings.caFile = extra
            settings.caPath = configuration.systemCAPath ?? CurlGlobal.defaultCAPath()
        } else if let systemPath = configuration.systemCAPath {
            settings.caPath = systemPath
        }
        return settings
    }
}

/// One engine thread with its multi handle and submission queue.
final class EngineLane: Sendable {
    let queue: SubmissionQueue
    private let finished = DispatchSemaphore(value: 0)

    init(
        index: Int, configuration: CurlEngineConfiguration, settings: EasySettings,
        statistics: Locked<CurlEngineStatistics>, logger: Logger
    ) throws(CurlEngineError) {
        guard let pointer = curl_multi_init() else { throw .initializationFailed("curl_multi_init returned NULL") }
        let multi = MultiHandle(pointer: pointer)
        do {
            try CurlEngine.configure(multi, configuration)
        } catch {
            curl_multi_cleanup(pointer)
            throw error
        }
        queue = SubmissionQueue(multi: multi)
        let loop = MultiLoop(
            multi: multi, queue: queue, settings: settings, configuration: configuration, statistics: statistics,
            logger: logger)
        let finished = self.finished
        let thread = Thread {
            loop.run()
            finished.signal()
        }
        thread.name = "pushgate-curl-\(index)"
        thread.start()
    }

    /// Stops the lane's thread and waits for it; idempotent.
    func shutdown() {
        _ = queue.beginStopping()
        finished.wait()
        finished.signal()  // let later and concurrent callers through too
    }
}

/// Counters of the engine's work since it started.
public struct CurlEngineStatistics: Sendable, Equatable {
    /// Transfers that got a reply (any status).
    public var responses = 0
    /// Transfers that ended without a reply.
    public var failures = 0
    /// TCP+TLS connections libcurl opened.
    public var connectionsOpened = 0

    public init() {}
}

/// Why the engine could not start.
public enum CurlEngineError: Error, Equatable, CustomStringConvertible {
    case initializationFailed(String)

    public var description: String {
        switch self {
        case .initializationFailed(let reason): return "the curl engine could not start: \(reason)"
        }
    }
}
