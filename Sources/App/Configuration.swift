import Foundation
import PushCore
import Logging
import FastCGI
import PushAPI
import PushDelivery
import PushStore

/// Everything an operator can set. Each key is read from the config file and from the
/// environment under the same `PUSHGATE_*` name; the environment wins. `settings` below is the
/// one list of keys, their meaning and how each is parsed: docs/operations.md's table follows it.
public struct Configuration: Sendable {
    public var database = "var/pushgate.sqlite"
    /// A database server instead of the file `database` when set (a libpq URI or `key=value`
    /// string).
    public var databaseURL: String? = nil
    public var databasePoolSize = 8
    public var httpPort = 8080
    public var socket = "var/run/pushgate.sock"
    /// 0660: only the socket's owner and group may connect. Anyone who can connect speaks
    /// FastCGI and sets REMOTE_ADDR themselves, so a world-writable socket would let any local
    /// user claim to be 127.0.0.1 to the operator pages.
    public var socketMode: UInt16 = 0o660
    /// The group the socket is given, a name or a number: one nginx's workers are in. nil
    /// keeps serve's own group (systemd's `Group=`; with scripts/run, the user's).
    public var socketGroup: String? = nil
    /// FastCGI responder threads: `PUSHGATE_THREADS`, else what suits the database's engine
    /// (`StoreSettings.defaultResponderThreads`: a report waits on its thread for its batch's
    /// commit, so the threads bound a batch, and the engines batch differently).
    public var threads: Int {
        get { threadsSet ?? StoreSettings.defaultResponderThreads(serverURL: databaseURL) }
        set { threadsSet = newValue }
    }
    /// `threads` as set; nil: the database's default.
    private var threadsSet: Int?
    public var maxBodyBytes = 1_048_576
    /// The upstream lane (pnm2's sends, whose callers wait on APNs/FCM): threads of its own
    /// apart from `threads`, so that however slow the upstream, the responder threads stay free
    /// for token reports, the other dialects and /healthz. A send is parked while its pushes are
    /// out, so these threads only read, check and answer sends.
    /// 8: fewer threads wake less often per send (docs/performance.md has the counts measured);
    /// a few more than the cores keep them busy while a remote database answers their reads.
    public var upstreamLaneThreads = 8
    /// Sends parked at once, waiting on the upstream: each holds an nginx connection and its
    /// pushes, no thread. At the bound, new sends wait in the lane's queue.
    public var upstreamLaneParked = 1024
    /// Pushes the parked sends wait on at once, summed (a multisend carries up to 5,000); 0:
    /// what the delivery engine carries at once (`parkedPushLimit`). At the bound, new sends
    /// wait in the queue. More than the engine carries would wait in its queue instead, where
    /// against a slow upstream they outwait nginx's 60 s and the caller gets a 504 for pushes
    /// that still go out; bounded here, the caller gets "Push service busy" in time.
    public var upstreamLaneParkedPushes = 0

    /// The bound on parked pushes in force: `upstreamLaneParkedPushes`, or for 0 what the
    /// delivery engine hands libcurl at once (per thread, times its threads) less the Matrix
    /// lane's share, so that the two lanes together never fill the engine's queue.
    public var parkedPushLimit: Int {
        upstreamLaneParkedPushes > 0 ? upstreamLaneParkedPushes : max(1, engineTransfers - matrixParkedPushLimit)
    }
    /// The Matrix lane (notifies, whose homeservers wait on APNs/FCM/Web Push): apart from the
    /// upstream lane, so that however many notifies a homeserver's users cause, a PBX's sends
    /// keep their threads, their queue and their share of the delivery engine.
    public var matrixLaneThreads = 2
    /// Notifies parked at once while their pushes are out.
    public var matrixLaneParked = 256
    /// Pushes the parked notifies wait on at once, summed; 0: a quarter of what the delivery
    /// engine carries at once. A notify is let in while the sum is below it (a notify carries
    /// up to 1,000 devices, Synapse sends one).
    public var matrixLaneParkedPushes = 0
    /// Notifies that may wait for room in the lane; one more is answered 503 at once.
    public var matrixLaneQueue = 64

    /// The Matrix lane's bound on parked pushes in force.
    public var matrixParkedPushLimit: Int {
        matrixLaneParkedPushes > 0 ? matrixLaneParkedPushes : max(1, engineTransfers / 4)
    }

    /// Transfers the delivery engine hands libcurl at once, over all its threads.
    private var engineTransfers: Int { deliveryThreads * CurlEngineConfiguration().maxTransfersInFlight }
    /// Sends that may wait for a lane thread; one more is answered "Push service busy" at once.
    /// A waiting send holds an nginx connection and a socket, no thread.
    public var upstreamLaneQueue = 256
    /// The longest a send waits for a lane thread before it is answered busy. 10 s: with the
    /// delivery's 30 s request time-out, it stays within nginx's 60 s fastcgi_read_timeout.
    public var upstreamLaneWaitMilliseconds = 10_000
    public var databaseSynchronous = DatabaseSynchronous.normal
    public var databaseBusyTimeoutMilliseconds = 5000
    public var logLevel = Logger.Level.info
    public var apnsURL = "https://api.push.apple.com"
    public var apnsSandboxURL = "https://api.sandbox.push.apple.com"
    public var fcmURL = "https://fcm.googleapis.com"
    public var caFile: String? = nil
    /// FastCGI over TCP instead of the Unix socket (`PUSHGATE_LISTEN`).
    public var listen: TCPListenAddress? = nil
    /// The nginx hosts whose FastCGI connections `serve` answers when it listens on TCP
    /// (`PUSHGATE_FASTCGI_CLIENTS`); nil: loopback only, and a non-loopback `listen` refuses
    /// to start, since whoever connects sets REMOTE_ADDR and is trusted as nginx.
    public var fastCGIClients: FastCGIClients? = nil

    /// Why `serve` must not listen as configured, nil when it may: on an address reachable
    /// from the network without `fastCGIClients`, anyone who reaches the port could claim to
    /// be 127.0.0.1 or a homeserver.
    public var listenRefusal: String? {
        guard let listen, !listen.isLoopback, fastCGIClients == nil else { return nil }
        return "PUSHGATE_LISTEN=\(listen) is reachable from the network and FastCGI has no authentication: "
            + "set PUSHGATE_FASTCGI_CLIENTS to the addresses or CIDR ranges of the nginx hosts (such as 10.0.0.2,10.0.1.0/24), "
            + "or listen on a loopback address"
    }
    public var deliveryThreads = 2
    /// How long a node's claim on queued pushes holds. When a node dies, another one delivers
    /// its claimed rows once this has passed; it must stay longer than a batch takes to send
    /// (the delivery's own time-out is 30 s), or a slow batch is claimed and sent again.
    public var outboxLeaseSeconds = 60
    public var fcmSenderID: String? = nil
    public var cospaceFCMApp: String? = nil
    public var bridgeAPNsApp: String? = nil
    public var bridgeFCMApp: String? = nil
    /// The topics bridge clients may subscribe to (`PUSHGATE_BRIDGE_TOPICS`); unrestricted
    /// while unset, which the doctor warns about.
    public var bridgeTopics = BridgeTopics.unrestricted
    /// The push services Web Push subscriptions may name (`PUSHGATE_WEBPUSH_ENDPOINTS`).
    public var webPushEndpoints = WebPushEndpointPolicy.publicPushServices
    /// Who may call the Matrix push gateway (`PUSHGATE_MATRIX_HOMESERVERS`): loopback unless
    /// listed, since a homeserver sends no credentials.
    public var matrixHomeservers = MatrixHomeservers.loopback
    /// Devices no report, registration or refresh touched for this long are removed with their
    /// links. 270: FCM's own horizon, after which it calls a token stale.
    public var deviceRetentionDays = 270
    /// Dead letters are kept this long for operators to look at and retry, then removed.
    public var deadLetterRetentionDays = 14
    /// The id this node's outbox claims are recorded under (`PUSHGATE_NODE_ID`); nil: see
    /// `effectiveNodeID`.
    public var nodeID: String? = nil
    /// cospace logins: threads of their own that run the password hash (the password lane),
    /// and failed logins allowed per client address and per user name a minute, past which
    /// a login is answered 429 without hashing (see `LoginThrottle`).
    public var passwordCheckThreads = 2
    public var loginFailuresPerMinute = 10
    /// New devices or clients one client address (IPv6: its /64) may create in an hour
    /// through the Token Reporter, the Beams device and client APIs and the bridge's `pnsub`
    /// (see `NewDeviceQuota`); 0: no quota.
    public var newDevicesPerHour = NewDeviceQuota.defaultPerHour
    /// What all the /64s of one IPv6 /56, and of one /48, may create in an hour together, so
    /// that a subscriber's or a tunnel broker's prefix is not 256 or 65,536 quotas; 0: that
    /// prefix is not counted. Raised to the narrower ceiling when set below it.
    public var newDevicesPerHourPer56 = NewDeviceQuota.defaultPerHourPer56
    public var newDevicesPerHourPer48 = NewDeviceQuota.defaultPerHourPer48
    /// Addresses and user names the login throttle holds at most (each); see `LoginThrottle`.
    public var loginThrottleCapacity = LoginThrottle.defaultCapacity
    /// The most devices one app may have; a new one past it is refused with 507 (see
    /// `AppDeviceCeiling`). 0: no ceiling.
    public var maxDevicesPerApp = 0

    public init() {}

    /// How hard the database file is kept safe from power loss. `normal` (WAL) survives any crash of
    /// pushgate itself; `full` also survives the machine losing power, at an fsync per write.
    public enum DatabaseSynchronous: String, Sendable, CaseIterable {
        case normal, full
    }

    /// One configuration key.
    public struct Setting: Sendable {
        public let name: String
        public let meaning: String
        let apply: @Sendable (inout Configuration, String) throws(ConfigurationError) -> Void
        let show: @Sendable (Configuration) -> String?
    }

    public static let settings: [Setting] = [
        .text("PUSHGATE_DB", "SQLite database path", \.database),
        .optionalText(
            "PUSHGATE_DATABASE_URL",
            "PostgreSQL connection string (libpq URI or key=value); when set, every command uses it instead of PUSHGATE_DB",
            \.databaseURL, show: StoreSettings.redacted(serverURL:)),
        .integer("PUSHGATE_DATABASE_POOL", "PostgreSQL connections each pushgate process opens at most", \.databasePoolSize, 1...256),
        .integer("PUSHGATE_HTTP_PORT", "the port nginx listens on (scripts/run)", \.httpPort, 1...65535),
        .text("PUSHGATE_SOCKET", "FastCGI socket between nginx and the responder", \.socket),
        .optional(
            "PUSHGATE_LISTEN",
            "FastCGI over TCP on IPv4-ADDRESS:PORT instead of PUSHGATE_SOCKET, for an nginx on another host; beyond loopback, PUSHGATE_FASTCGI_CLIENTS must name the nginx hosts",
            \.listen, expected: "an IPv4 address and a port, such as 10.0.0.5:9000", show: \.description,
            parse: TCPListenAddress.init),
        .optional(
            "PUSHGATE_FASTCGI_CLIENTS",
            "with PUSHGATE_LISTEN, the IPv4 addresses or CIDR ranges (commas or spaces between) of the nginx hosts whose FastCGI connections are answered; others are closed unread; unset: loopback only (and a non-loopback PUSHGATE_LISTEN refuses to start)",
            \.fastCGIClients, expected: "IPv4 addresses or CIDR ranges separated by commas, such as 10.0.0.2,10.0.1.0/24",
            show: \.listing, parse: FastCGIClients.init(listing:)),
        .parsed(
            "PUSHGATE_SOCKET_MODE", "file mode of the FastCGI socket, octal", \.socketMode,
            expected: "an octal file mode such as 0660", show: { "0" + String($0, radix: 8) },
            parse: { UInt16($0, radix: 8).flatMap { $0 <= 0o777 ? $0 : nil } }),
        .parsed(
            "PUSHGATE_SOCKET_GROUP",
            "group of the FastCGI socket (a name or number) that nginx's workers are in; unset: serve's own group",
            \.socketGroup, expected: "a group name or number, such as www-data", show: { $0 },
            // `.none` of String??: a bare nil would be read as "no group" and refuse nothing.
            parse: { SocketGroup.isWellFormed($0) ? $0 : String??.none }),
        .integer("PUSHGATE_THREADS", "FastCGI responder threads: requests answered at once; unset: 24 on SQLite, 64 on PostgreSQL", \.threads, 1...512),
        .integer("PUSHGATE_UPSTREAM_LANE_THREADS", "threads of their own for pnm2 sends, apart from PUSHGATE_THREADS; a send waiting on APNs/FCM is parked and holds none", \.upstreamLaneThreads, 1...256),
        .integer("PUSHGATE_UPSTREAM_LANE_PARKED", "pnm2 sends parked at once while their pushes are out (a connection each, no thread); more wait in the lane's queue", \.upstreamLaneParked, 1...65_536),
        .integer("PUSHGATE_UPSTREAM_LANE_PARKED_PUSHES", "pushes the parked pnm2 sends wait on at once, summed; more sends wait in the lane's queue; 0: what the delivery engine carries at once", \.upstreamLaneParkedPushes, 0...10_000_000),
        .integer("PUSHGATE_UPSTREAM_LANE_QUEUE", "pnm2 sends that may wait for a lane thread; more are answered \"Push service busy\" at once", \.upstreamLaneQueue, 0...65_536),
        .integer("PUSHGATE_UPSTREAM_LANE_WAIT_MS", "longest wait for a lane thread before a pnm2 send is answered \"Push service busy\"", \.upstreamLaneWaitMilliseconds, 0...50_000),
        .integer("PUSHGATE_MATRIX_LANE_THREADS", "threads of their own for Matrix notifies, apart from pnm2's lane; a notify waiting on the upstreams is parked and holds none", \.matrixLaneThreads, 1...256),
        .integer("PUSHGATE_MATRIX_LANE_PARKED", "Matrix notifies parked at once while their pushes are out; more wait in the lane's queue", \.matrixLaneParked, 1...65_536),
        .integer("PUSHGATE_MATRIX_LANE_PARKED_PUSHES", "pushes the parked Matrix notifies wait on at once, summed; more notifies wait in the lane's queue; 0: a quarter of what the delivery engine carries at once", \.matrixLaneParkedPushes, 0...10_000_000),
        .integer("PUSHGATE_MATRIX_LANE_QUEUE", "Matrix notifies that may wait for room in their lane; more are answered 503 M_LIMIT_EXCEEDED at once", \.matrixLaneQueue, 0...65_536),
        .integer("PUSHGATE_MAX_BODY_BYTES", "largest request body accepted; larger ones get 413", \.maxBodyBytes, 1...(64 << 20)),
        .choice("PUSHGATE_DB_SYNCHRONOUS", "normal: survives crashes of pushgate; full: also power loss, slower", \.databaseSynchronous),
        .integer("PUSHGATE_DB_BUSY_TIMEOUT_MS", "how long a write waits for another writer before failing", \.databaseBusyTimeoutMilliseconds, 0...600_000),
        .choice("PUSHGATE_LOG_LEVEL", "trace, debug, info, notice, warning, error or critical", \.logLevel),
        .text("PUSHGATE_APNS_URL", "APNs production endpoint", \.apnsURL),
        .text("PUSHGATE_APNS_SANDBOX_URL", "APNs sandbox endpoint", \.apnsSandboxURL),
        .text("PUSHGATE_FCM_URL", "FCM v1 endpoint (the OAuth token URL comes from the service account)", \.fcmURL),
        .optionalText("PUSHGATE_CA_FILE", "extra CA bundle trusted for upstream TLS, besides the system's", \.caFile),
        .integer("PUSHGATE_DELIVERY_THREADS", "curl engine threads, each with its own HTTP/2 connection per upstream", \.deliveryThreads, 1...16),
        .integer("PUSHGATE_OUTBOX_LEASE_SECONDS", "how long a node's claim on queued pushes lasts; a dead node's pushes go out this long after it claimed them", \.outboxLeaseSeconds, 2...3600),
        .optionalText("PUSHGATE_FCM_SENDER_ID", "the sender_id cospace GET /api/push shows", \.fcmSenderID),
        .optionalText("PUSHGATE_COSPACE_FCM_APP", "the FCM app (id) cospace gcm registration ids belong to", \.cospaceFCMApp),
        .optionalText("PUSHGATE_BRIDGE_APNS_APP", "the APNs app (id) behind bridge apns:// destinations", \.bridgeAPNsApp),
        .optionalText("PUSHGATE_BRIDGE_FCM_APP", "the FCM app (id) behind bridge gcm:// destinations", \.bridgeFCMApp),
        .parsed(
            BridgeTopics.key,
            "comma-separated topic paths bridge clients may subscribe to (each with everything below it); unset: any topic",
            \.bridgeTopics, expected: "topic paths separated by commas, such as news,alerts/eu",
            show: { $0.prefixes?.map(\.text).joined(separator: ",") }, parse: BridgeTopics.init(configured:)),
        .parsed(
            "PUSHGATE_WEBPUSH_ENDPOINTS",
            "comma-separated push services (https://host[:port], *. for a domain's subdomains) Web Push subscriptions may name; default the public browsers' services",
            \.webPushEndpoints, expected: "https://host[:port] origins separated by commas", show: \.listing,
            parse: WebPushEndpointPolicy.init(listing:)),
        .parsed(
            "PUSHGATE_MATRIX_HOMESERVERS",
            "addresses or CIDR ranges (commas or spaces between) of the Matrix homeservers that may call /_matrix/push/v1/notify; default loopback; render nginx with the same list",
            \.matrixHomeservers, expected: "IP addresses or CIDR ranges separated by commas, such as 10.0.0.5,192.168.1.0/24",
            show: \.listing, parse: MatrixHomeservers.init(listing:)),
        .integer("PUSHGATE_DEVICE_RETENTION_DAYS", "devices not reported, registered or refreshed for this many days are removed with their links", \.deviceRetentionDays, 1...36_500),
        .integer("PUSHGATE_DEAD_LETTER_RETENTION_DAYS", "days a dead letter is kept before housekeeping removes it", \.deadLetterRetentionDays, 1...36_500),
        .optionalText("PUSHGATE_NODE_ID", "this node's id in outbox claims (default: host name and FastCGI socket or listen address)", \.nodeID),
        .integer("PUSHGATE_PASSWORD_CHECK_THREADS", "threads that hash cospace login passwords, apart from PUSHGATE_THREADS: logins never take more CPU than these", \.passwordCheckThreads, 1...64),
        .integer("PUSHGATE_LOGIN_FAILURES_PER_MINUTE", "failed cospace logins allowed per client address (IPv6: per /64) and per user name a minute; more are answered 429 without hashing", \.loginFailuresPerMinute, 1...100_000),
        .integer("PUSHGATE_NEW_DEVICES_PER_HOUR", "new devices or clients one client address (IPv6: per /64) may create an hour through the Token Reporter, the Beams device and client APIs and bridge pnsub, counted by each serve; more are answered 429; 0: no limit", \.newDevicesPerHour, 0...100_000_000),
        .integer("PUSHGATE_NEW_DEVICES_PER_HOUR_PER_56", "new devices or clients all the /64s of one IPv6 /56 may create an hour together (at least PUSHGATE_NEW_DEVICES_PER_HOUR); more are answered 429; 0: /56s not counted", \.newDevicesPerHourPer56, 0...100_000_000),
        .integer("PUSHGATE_NEW_DEVICES_PER_HOUR_PER_48", "new devices or clients all the /64s of one IPv6 /48 may create an hour together (at least the /56's); more are answered 429; 0: /48s not counted", \.newDevicesPerHourPer48, 0...100_000_000),
        .integer("PUSHGATE_LOGIN_THROTTLE_CAPACITY", "client addresses and user names the login throttle remembers at most (each); when every name held failed within the minute, a login under another name is answered 429", \.loginThrottleCapacity, 1...10_000_000),
        .integer("PUSHGATE_MAX_DEVICES_PER_APP", "the most devices one app may have; a new device past it is refused with 507 in the dialect's shape (stored devices report as before); 0: no ceiling", \.maxDevicesPerApp, 0...1_000_000_000),
    ]

    /// Keys earlier versions read, with why they are gone: a configuration an upgrade left
    /// behind still loads, with a warning that says what to remove.
    static let retired = [
        "PUSHGATE_SQL_DIR": "the schema migrations are built into pushgate"
    ]

    /// Variables the repository's scripts read (`scripts/run`, `scripts/install`,
    /// `scripts/render-nginx`, the bench and the tests), which the processes those scripts start
    /// inherit: not pushgate's settings, and not typos of them, so they draw no warning. An
    /// operator who runs `PUSHGATE_NGINX_USER=www-data scripts/run` was told that serve ignored
    /// a variable it was never meant to read.
    static let scriptVariables: Set<String> = [
        "PUSHGATE_CONFIG", "PUSHGATE_BIN", "PUSHGATE_BINARY", "PUSHGATE_MOCK_BIN", "PUSHGATE_DEMO_DIR",
        "PUSHGATE_RESPONDERS", "PUSHGATE_TEST_DATABASE_URL",
    ]
    /// Prefixes of such variables: render-nginx's knobs and the bench's own.
    static let scriptVariablePrefixes = ["PUSHGATE_NGINX_", "PUSHGATE_BENCH_"]

    static func isScriptVariable(_ name: String) -> Bool {
        scriptVariables.contains(name) || scriptVariablePrefixes.contains { name.hasPrefix($0) }
    }

    /// The file's keys, then the environment's `PUSHGATE_*` variables over them. Unknown keys
    /// are returned as warnings; a value of the wrong type is an error naming the key.
    public static func load(
        file: ConfigurationFile?, environment: [String: String]
    ) throws(ConfigurationError) -> (Configuration, warnings: [String]) {
        var configuration = Configuration()
        var warnings: [String] = []
        let known = Dictionary(uniqueKeysWithValues: settings.map { ($0.name, $0) })
        for entry in file?.entries ?? [] {
            if let reason = retired[entry.key] {
                warnings.append("\(file!.path):\(entry.line): \(entry.key) is no longer used (\(reason)): remove it")
                continue
            }
            guard let setting = known[entry.key] else {
                warnings.append("\(file!.path):\(entry.line): unknown key \(entry.key) ignored")
                continue
            }
            try setting.apply(&configuration, entry.value)
        }
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix("PUSHGATE_") {
            if let reason = retired[name] {
                warnings.append("\(name) is no longer used (\(reason)): unset it")
                continue
            }
            guard let setting = known[name] else {
                if !isScriptVariable(name) { warnings.append("unknown environment variable \(name) ignored") }
                continue
            }
            try setting.apply(&configuration, value)
        }
        return (configuration, warnings)
    }

    /// Every key with its effective value, for the start-up log and `pushgate config`. No
    /// value here is a secret: credentials live in the database, not in the configuration;
    /// the one exception, a password in PUSHGATE_DATABASE_URL, is shown as `***` (as libpq reads the
    /// string, whatever its spelling).
    public var summary: [(name: String, value: String)] {
        Self.settings.map { ($0.name, $0.show(self) ?? "(unset)") }
    }
}

public enum ConfigurationError: Error, Equatable, CustomStringConvertible {
    case invalid(key: String, value: String, expected: String)
    case unreadableFile(path: String, reason: String)
    case malformedLine(path: String, line: Int)

    public var description: String {
        switch self {
        case .invalid(let key, let value, let expected):
            return "configuration \(key)=\(value) is invalid: expected \(expected)"
        case .unreadableFile(let path, let reason):
            return "cannot read configuration file \(path): \(reason)"
        case .malformedLine(let path, let line):
            return "\(path):\(line): expected KEY = value"
        }
    }
}

extension Configuration.Setting {
    /// A key whose value `parse` reads: a value it makes nothing of (nil) or throws on stops
    /// start-up with `expected` (and the error thrown).
    static func parsed<Value>(
        _ name: String, _ meaning: String, _ path: WritableKeyPath<Configuration, Value> & Sendable, expected: String,
        show: @escaping @Sendable (Value) -> String?, parse: @escaping @Sendable (String) throws -> Value?
    ) -> Self {
        Self(
            name: name, meaning: meaning,
            apply: { config, value throws(ConfigurationError) in
                let parsed: Value?
                do {
                    parsed = try parse(value)
                } catch {
                    throw .invalid(key: name, value: value, expected: "\(expected) (\(error))")
                }
                guard let parsed else { throw .invalid(key: name, value: value, expected: expected) }
                config[keyPath: path] = parsed
            },
            show: { show($0[keyPath: path]) })
    }

    /// As `parsed`, for a key that an empty value unsets.
    static func optional<Value>(
        _ name: String, _ meaning: String, _ path: WritableKeyPath<Configuration, Value?> & Sendable, expected: String,
        show: @escaping @Sendable (Value) -> String?, parse: @escaping @Sendable (String) throws -> Value?
    ) -> Self {
        parsed(name, meaning, path, expected: expected, show: { $0.flatMap(show) }) { value in
            value.isEmpty ? .some(nil) : try parse(value).map { Optional($0) }
        }
    }

    static func text(_ name: String, _ meaning: String, _ path: WritableKeyPath<Configuration, String> & Sendable) -> Self {
        parsed(name, meaning, path, expected: "a non-empty value", show: { $0 }) { $0.isEmpty ? nil : $0 }
    }

    static func optionalText(
        _ name: String, _ meaning: String, _ path: WritableKeyPath<Configuration, String?> & Sendable,
        show: @escaping @Sendable (String) -> String? = { $0 }
    ) -> Self {
        optional(name, meaning, path, expected: "any value", show: show) { $0 }
    }

    static func integer(
        _ name: String, _ meaning: String, _ path: WritableKeyPath<Configuration, Int> & Sendable, _ range: ClosedRange<Int>
    ) -> Self {
        parsed(
            name, meaning, path, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)",
            show: { String($0) }, parse: { Int($0).flatMap { range.contains($0) ? $0 : nil } })
    }

    static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ meaning: String, _ path: WritableKeyPath<Configuration, Choice> & Sendable
    ) -> Self where Choice.RawValue == String {
        parsed(
            name, meaning, path, expected: "one of " + Choice.allCases.map(\.rawValue).joined(separator: ", "),
            show: \.rawValue, parse: { Choice(rawValue: $0.lowercased()) })
    }
}
