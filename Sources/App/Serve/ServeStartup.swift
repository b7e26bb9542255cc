import FastCGI
import Foundation
import PushCore

/// What serve does and says before it serves: the migrations, the open-file limit, and the
/// lines an operator checks first when pushes go astray.
struct ServeStartup {
    let runtime: Runtime

    /// Migrates the database and logs what was read: which file, which database, and where
    /// pushes go (a test deployment left pointing at a mock, or a sandbox URL in production).
    /// No secrets: the database password is shown as ***.
    func prepare() throws {
        let configuration = runtime.configuration
        let logger = runtime.logger
        for name in try runtime.backend.migrate() { logger.info("applied migration \(name)") }
        logger.info("open files allowed: \(DescriptorLimit.raiseToMaximum())")
        let file = runtime.configurationFile ?? "(no file: environment and defaults)"
        let extraCA = configuration.caFile.map { ", extra CA file \($0)" } ?? ""
        let upstreams =
            "APNs \(configuration.apnsURL) (sandbox \(configuration.apnsSandboxURL)), FCM \(configuration.fcmURL)"
        logger.info("configuration \(file), database \(runtime.backend.databaseDescription), \(upstreams)\(extraCA)")
        if let warning = IgnoredProxySettings.warning(
            for: IgnoredProxySettings.set(in: ProcessInfo.processInfo.environment))
        {
            logger.warning("\(warning)")
        }
        for (name, value) in configuration.summary {
            logger.debug("config \(name)=\(value)")
        }
    }

    /// The listening socket (the one systemd passed, if it did) and its threads, with the three
    /// lanes of their own.
    static func fastCGIConfiguration(_ configuration: Configuration, activatedSocket: ActivatedSocket? = nil) throws
        -> FastCGIConfiguration
    {
        let upstreamWait = Double(configuration.upstreamLaneWaitMilliseconds) / 1000
        return FastCGIConfiguration(
            socketPath: configuration.socket, socketMode: UInt32(configuration.socketMode),
            socketGroup: try configuration.socketGroup.map(SocketGroup.id(of:)),
            threadCount: configuration.threads, maxBodyBytes: configuration.maxBodyBytes,
            lanes: [
                // Stopping waits for the sends queued, running and parked: their wait, then as
                // long as nginx waits for an answer (its fastcgi_read_timeout, 60 s).
                LaneConfiguration(
                    lane: .upstream, threadCount: configuration.upstreamLaneThreads,
                    queueLimit: configuration.upstreamLaneQueue, queueWaitSeconds: upstreamWait,
                    drainTimeoutSeconds: upstreamWait + 60, parkedLimit: configuration.upstreamLaneParked,
                    parkedPushLimit: configuration.parkedPushLimit, responderBodyLimit: sendCheckedOnResponderBytes),
                // Matrix notifies: the same waits as pnm2's sends, in a lane of their own.
                LaneConfiguration(
                    lane: .matrix, threadCount: configuration.matrixLaneThreads,
                    queueLimit: configuration.matrixLaneQueue, queueWaitSeconds: upstreamWait,
                    drainTimeoutSeconds: upstreamWait + 60, parkedLimit: configuration.matrixLaneParked,
                    parkedPushLimit: configuration.matrixParkedPushLimit, responderBodyLimit: sendCheckedOnResponderBytes),
                // Logins that run the password hash (~0.1–0.7 s of a core each): a few
                // threads, whatever arrives; the rest wait without a thread, or are told
                // to try again. What waits is checked within nginx's read time-out.
                LaneConfiguration(
                    lane: .passwords, threadCount: configuration.passwordCheckThreads,
                    queueLimit: passwordLaneQueue, queueWaitSeconds: passwordLaneWaitSeconds,
                    drainTimeoutSeconds: passwordLaneWaitSeconds + 60),
            ],
            tcpAddress: configuration.listen, tcpClients: configuration.fastCGIClients ?? .loopback,
            runningThreadLimit: runningThreadLimit(configuration), activatedSocket: activatedSocket)
    }

    /// How many responder threads run at once (see `RunningLimit`). On SQLite twice the cores
    /// (at least 4): a request there waits only on its commit, which gives its turn away. On
    /// PostgreSQL all of them: every query waits on the network, and those waits are not marked.
    static func runningThreadLimit(_ configuration: Configuration) -> Int? {
        guard configuration.databaseURL == nil else { return nil }
        return max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
    }

    static func announce(_ listening: FastCGIConfiguration, runtime: Runtime) {
        let configuration = runtime.configuration
        if let activated = listening.activatedSocket {
            runtime.logger.info(
                "FastCGI takes its socket from systemd (LISTEN_FDS): \(activated); it makes, changes and removes no socket file"
            )
            // nginx's site include is rendered from PUSHGATE_SOCKET: a socket unit listening
            // elsewhere leaves nginx connecting to nothing.
            if !activated.isTCP, configuration.listen == nil, activated.address != configuration.socket {
                runtime.logger.warning(
                    "the socket systemd passed is \(activated.address), not PUSHGATE_SOCKET \(configuration.socket), where nginx's site include connects: make them one path"
                )
            }
            if activated.isTCP {
                runtime.logger.info(
                    "FastCGI answers connections from \(listening.tcpClients) only (PUSHGATE_FASTCGI_CLIENTS)")
            }
        } else if let address = configuration.listen {
            // FastCGI has no authentication: only these hosts' connections are read.
            runtime.logger.info(
                "FastCGI listens on \(address), answering connections from \(listening.tcpClients) only (PUSHGATE_FASTCGI_CLIENTS)"
            )
        }
        runtime.logger.info(
            "serving on \(listening.listenDescription) with \(configuration.threads) threads, database \(runtime.backend.databaseDescription)"
        )
    }

    /// Logins that may wait for a password lane thread, and for how long, before they are
    /// answered 503 `service-busy`: a phone's login retries; an attacker's waits in nginx.
    static let passwordLaneQueue = 64
    static let passwordLaneWaitSeconds = 10.0

    /// pnm2 sends with bodies up to this size (a push is a few hundred bytes; a multisend of a
    /// few dozen fits) are checked on the responder thread that read them while the upstream
    /// lane has room, and only parked on the lane: one hand-off fewer per send. Larger
    /// multisends, whose checking takes milliseconds of a core, stay on the lane's threads.
    static let sendCheckedOnResponderBytes = 16_384
}
