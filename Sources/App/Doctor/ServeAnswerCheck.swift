import FastCGI
import Foundation
import PushCore

/// `serve` answers: a `GET /readyz`, written to its socket or TCP address as nginx writes it,
/// answered 200 within the timeout. The other socket checks read files, modes and owners;
/// only this one sees a `serve` that is stopped, stuck, or up without its database. Under
/// socket activation (`pushgate.socket`) the socket exists while `serve` is down and a
/// connection waits in its backlog, so a `serve` that cannot start shows as no answer.
struct ServeAnswerCheck {
    /// Where nginx reaches `serve`.
    enum Target: CustomStringConvertible {
        case socket(String)
        /// `serve`'s TCP address and the hosts it answers (`PUSHGATE_FASTCGI_CLIENTS`).
        case tcp(TCPListenAddress, clients: FastCGIClients)

        var description: String {
            switch self {
            case .socket(let path): path
            case .tcp(let address, _): "TCP \(address)"
            }
        }
    }

    /// What asking met.
    enum Outcome: Equatable {
        case answered(status: Int, milliseconds: Int)
        case failed(FastCGIClientRequest.Failure)
    }

    let target: Target
    var timeoutSeconds = 5

    func run() -> [DoctorFinding] {
        let request = FastCGIClientRequest(
            params: [
                ("REQUEST_METHOD", "GET"), ("REQUEST_URI", "/readyz"), ("REMOTE_ADDR", "127.0.0.1"),
                ("HTTP_USER_AGENT", "pushgate doctor"),
            ],
            timeoutSeconds: timeoutSeconds)
        let started = Date()
        let outcome: Outcome
        do {
            let reply: FastCGIClientRequest.Reply
            switch target {
            case .socket(let path):
                reply = try request.send(toSocket: path)
            case .tcp(let address, let clients):
                // From the listener's own address (loopback for one on every address): serve
                // closes a connection from a host its list leaves out before reading it, and
                // listing this host only for doctor would trust every local user as nginx.
                let host = address.host == "0.0.0.0" ? "127.0.0.1" : address.host
                guard let asking = IPAddress(host), clients.allows(asking) else {
                    return [
                        .warning(
                            "serve",
                            "doctor would ask \(target) from \(host), which PUSHGATE_FASTCGI_CLIENTS (\(clients)) leaves out, so it "
                                + "did not ask whether serve answers: ask GET /readyz through nginx instead")
                    ]
                }
                reply = try request.send(toHost: host, port: address.port, from: host)
            }
            outcome = .answered(status: reply.status, milliseconds: Int(Date().timeIntervalSince(started) * 1000))
        } catch let failure as FastCGIClientRequest.Failure {
            outcome = .failed(failure)
        } catch {
            outcome = .failed(FastCGIClientRequest.Failure(reason: .other, description: "\(error)"))
        }
        return Self.findings(for: outcome, target: target, timeoutSeconds: timeoutSeconds, doctorUser: UserIdentity.name(of: getuid()))
    }

    /// The finding for an outcome; none when there is no socket file, which the socket check
    /// has said already.
    static func findings(for outcome: Outcome, target: Target, timeoutSeconds: Int, doctorUser: String) -> [DoctorFinding] {
        let status = "systemctl status pushgate; journalctl -u pushgate says why"
        let failure: FastCGIClientRequest.Failure
        switch outcome {
        case .answered(200, let milliseconds):
            return [.ok("serve", "answers on \(target): GET /readyz 200 in \(milliseconds) ms")]
        case .answered(503, _):
            return [
                .problem(
                    "serve",
                    "answers on \(target) but is not ready (GET /readyz 503): its database does not answer or its writer is stuck, "
                        + "so reports and pushes fail (\(status))")
            ]
        case .answered(let code, _):
            return [.problem("serve", "GET /readyz on \(target) was answered \(code), not 200: is that pushgate's serve?")]
        case .failed(let met):
            failure = met
        }
        switch failure.reason {
        case .timedOut:
            return [
                .problem(
                    "serve",
                    "nothing answered GET /readyz on \(target) within \(timeoutSeconds) s: serve is stuck, or not running "
                        + "while the socket waits for it (\(status))")
            ]
        case .cannotConnect(ENOENT):
            return []
        case .cannotConnect(ECONNREFUSED):
            return [.problem("serve", "nothing listens on \(target): serve is not running (\(status))")]
        case .cannotConnect(EACCES), .cannotConnect(EPERM):
            return [
                .warning(
                    "serve",
                    "doctor (running as \(doctorUser)) may not connect to \(target), so it did not ask serve whether it answers: "
                        + "run it as root or as a member of the socket's group")
            ]
        case .closed:
            return [.problem("serve", "\(target) closed the connection without answering GET /readyz (\(status))")]
        case .cannotConnect, .other:
            return [.problem("serve", "could not ask \(target) whether serve answers: \(failure) (\(status))")]
        }
    }
}
