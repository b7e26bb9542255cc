import Foundation
import Logging
import PushCore

/// Logs FastCGI connections closed for coming from a host not in `FastCGIClients`, at a
/// bounded rate: whoever reaches the port can connect as fast as they like, and must not fill
/// the log. The first refusal is logged at once; then at most one line a minute, saying how
/// many were closed since and from where the latest came.
final class RefusedConnectionLog: @unchecked Sendable {
    // @unchecked: the counts are touched only under `lock`.
    private let logger: Logger
    private let intervalSeconds: Double
    private let now: @Sendable () -> Double
    private let lock = NSLock()
    private var unlogged = 0
    private var nextLine: Double = -.infinity

    init(
        logger: Logger, intervalSeconds: Double = 60,
        now: @escaping @Sendable () -> Double = Monotonic.seconds
    ) {
        self.logger = logger
        self.intervalSeconds = intervalSeconds
        self.now = now
    }

    func refused(from address: String, allowed: FastCGIClients) {
        let time = now()
        lock.lock()
        unlogged += 1
        guard time >= nextLine else {
            lock.unlock()
            return
        }
        let count = unlogged
        unlogged = 0
        nextLine = time + intervalSeconds
        lock.unlock()
        logger.warning(
            "FastCGI connection from \(address) closed unread: not in PUSHGATE_FASTCGI_CLIENTS (\(allowed))\(count > 1 ? "; \(count) closed since the last such line" : "")"
        )
    }
}
