import ArgumentParser
import Foundation
import PushCore
import PushStore

/// `pushgate doctor`: checks a deployment and says what to fix, one line per finding.
/// Exit status 0 only when no finding is a problem.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check this deployment (configuration, database, socket, whether serve answers, nginx, credentials, clock, disk).",
        discussion: "One line per finding: ok, WARN (worth knowing) or FAIL (to fix). Exit status 0 only without FAIL.")

    @OptionGroup var global: GlobalOptions

    @Option(
        help: "nginx's worker user, who must reach the socket (default: the one scripts/run's nginx runs as, else Debian's www-data).")
    var nginxUser: String?

    @Option(
        help: "The rendered pushgate site include nginx loads (default: the one scripts/run rendered beside the socket, else /etc/nginx/conf.d/pushgate.conf).")
    var nginxConf: String?

    @Option(help: "This version's nginx template (found beside the executable or in the checkout when not given).")
    var nginxTemplate: String?

    @Option(help: "A push certificate that expires within this many days is a problem.")
    var expiryDays = 30

    @Flag(help: "Also run `pushgate apps check` for every app (talks to APNs and FCM).")
    var online = false

    func run() throws {
        let findings = diagnose()
        for finding in findings {
            print(finding)
        }
        if findings.hasProblem {
            let count = findings.filter { $0.verdict == .problem }.count
            print("\(count) problem(s) found")
            throw ExitCode(1)
        }
        print("no problems found")
    }

    private func diagnose() -> [DoctorFinding] {
        let environment = ProcessInfo.processInfo.environment
        let configPath = global.config ?? environment["PUSHGATE_CONFIG"]
        let (loaded, configurationFindings) = ConfigurationCheck(path: configPath, environment: environment).run()
        var findings = configurationFindings
        guard let configuration = loaded else { return findings }
        findings.append(BridgeTopicsCheck(topics: configuration.bridgeTopics).run())

        let runtime: Runtime
        do {
            runtime = try Runtime(global, label: "doctor")
        } catch {
            findings.append(.problem("configuration", "\(error)"))
            return findings
        }
        let checkup = runtime.backend.checkup()
        findings += checkup.findings.map(DoctorFinding.init)
        let apps = checkup.apps
        findings += MatrixHomeserversCheck(homeservers: configuration.matrixHomeservers, apps: apps).run()
        if let apps, let keys = checkup.senderKeys {
            findings += SenderKeyScopeCheck(keys: keys, appCount: apps.count).run()
        }

        findings += socketFindings(configuration)

        if let apps {
            findings += CredentialsCheck(apps: apps, now: Date(), expiryWarningDays: expiryDays).run()
            findings += PushServiceRefusalCheck(apps: apps, problems: checkup.appProblems ?? []).run()
            findings += UpstreamNameCheck(apps: apps, configuration: configuration).run()
            if online {
                findings += OnlineCredentialsCheck(apps: apps.map(\.id), configPath: configPath).run()
            }
        }
        findings += ClockCheck(
            now: Date(), latestRecordedTime: checkup.latestRecordedTime, synchronised: ClockCheck.systemSaysSynchronised()
        ).run()
        if let file = runtime.backend.databaseFile {
            findings += DiskSpaceCheck(databasePath: file).run()
        }
        return findings
    }

    /// How nginx reaches the responder: a TCP address, or the socket file, its access for
    /// nginx's worker user and the site include rendered from the template; and whether
    /// `serve` answers there.
    private func socketFindings(_ configuration: Configuration) -> [DoctorFinding] {
        var found: [DoctorFinding] = []
        if let address = configuration.listen {
            // Over TCP there is no socket file for nginx's user to reach, and the upstream
            // lines of nginx's site include are the operator's (one per node), not the template's.
            let clients = configuration.fastCGIClients ?? .loopback
            if let refusal = configuration.listenRefusal {
                found.append(.problem("socket", "serve will not start: " + refusal))
            } else if clients.allows(0), clients.allows(0xFFFF_FFFF) {
                found.append(
                    .warning(
                        "socket",
                        "FastCGI listens on TCP \(address) (PUSHGATE_LISTEN) and PUSHGATE_FASTCGI_CLIENTS=\(clients) lets any host "
                            + "connect and set REMOTE_ADDR: list only your nginx hosts"))
            } else {
                let reach = address.isLoopback ? "this host only" : "reachable from the network"
                found.append(
                    .ok(
                        "socket",
                        "FastCGI listens on TCP \(address) (PUSHGATE_LISTEN), \(reach); it answers connections from \(clients) "
                            + "only (PUSHGATE_FASTCGI_CLIENTS)"))
            }
            found += ServeAnswerCheck(target: .tcp(address, clients: clients)).run()
        } else {
            let site = NginxSite.locate(include: nginxConf, workerUser: nginxUser, socket: configuration.socket)
            found.append(.ok("nginx", "checking \(site.include) (\(site.origin)) with worker user \(site.workerUser)"))
            if let worker = UserIdentity(name: site.workerUser) {
                found += SocketAccessCheck(
                    socket: configuration.socket, worker: worker, socketUnit: SocketUnit.holding(configuration.socket)
                ).run()
            } else {
                found.append(.problem("socket", "there is no user \(site.workerUser): name nginx's worker user with --nginx-user"))
            }
            found += ServeAnswerCheck(target: .socket(configuration.socket)).run()
            found += NginxTemplateCheck(
                renderedPath: site.include, templatePath: nginxTemplate ?? Self.installedTemplate(), socket: configuration.socket
            ).run()
        }
        return found
    }

    /// The template this binary belongs with: `share/pushgate/nginx/pushgate.conf` beside an
    /// installed executable (scripts/install puts it there), or `nginx/pushgate.conf` of the
    /// checkout a built one sits in.
    static func installedTemplate() -> String? {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        var candidates = [executable.appendingPathComponent("../share/pushgate/nginx/pushgate.conf")]
        var directory = executable
        for _ in 0..<6 {
            candidates.append(directory.appendingPathComponent("nginx/pushgate.conf"))
            directory = directory.deletingLastPathComponent()
        }
        return candidates.map(\.standardizedFileURL.path).first { FileManager.default.fileExists(atPath: $0) }
    }
}
