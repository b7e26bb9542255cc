import PushCore
import CCurl
import Foundation
import Logging

/// The engine thread's work: takes submitted transfers, drives `curl_multi_perform`, completes
/// finished transfers, and sleeps in `curl_multi_poll` until a socket, a timer or a
/// `curl_multi_wakeup` needs it. All of its state belongs to that one thread.
/// `@unchecked Sendable` only so that the thread's entry closure can carry it there; nothing
/// else touches it afterwards.
final class MultiLoop: @unchecked Sendable {
    private let multi: MultiHandle
    private let queue: SubmissionQueue
    private let settings: EasySettings
    private let configuration: CurlEngineConfiguration
    private let statistics: Locked<CurlEngineStatistics>
    private let logger: Logger

    /// Submitted but not yet handed to libcurl (beyond `maxTransfersInFlight`).
    private var backlog: [CurlTransfer] = []
    private var backlogStart = 0
    /// Transfers libcurl is running, by easy handle; holding them here keeps them alive for the
    /// callbacks, which get them as unretained context pointers.
    private var inFlight: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private let gate = ConnectionGate()
    /// Transfers the gate let through, started before the backlog.
    private var released: [CurlTransfer] = []
    /// Easy handles whose transfers are done, kept to carry the next ones.
    private var idleHandles: [EasyHandle] = []
    /// Enough for the transfers one pass completes in a send or a fan-out row; each idle handle
    /// holds about 6 KiB, and up to 17 KiB more of the buffers libcurl keeps while the
    /// handle's connection carries other streams.
    static let idleHandlesKept = 128
    /// The longest the loop sleeps without a socket, a timer or a wake-up asking for it.
    /// libcurl 7.88 (Debian 12's) sometimes leaves HTTP/2 transfers with work to do and no
    /// timer set, and they then wait out the whole sleep (docs/performance.md, pnm2
    /// multisend, has the measurements). A short sleep bounds that wait, at the price of an
    /// idle engine thread waking ten times a second.
    static let longestSleepMilliseconds: Int32 = 100

    init(
        multi: MultiHandle, queue: SubmissionQueue, settings: EasySettings, configuration: CurlEngineConfiguration,
        statistics: Locked<CurlEngineStatistics>, logger: Logger
    ) {
        self.multi = multi
        self.queue = queue
        self.settings = settings
        self.configuration = configuration
        self.statistics = statistics
        self.logger = logger
    }

    func run() {
        var stopDeadline: Date?
        while true {
            var running: Int32 = 0
            let code = curl_multi_perform(multi.pointer, &running)
            if code != CURLM_OK {
                logger.error("curl_multi_perform failed", metadata: ["error": "\(String(cString: curl_multi_strerror(code)))"])
            }
            released += gate.connectedTransfers()
            completeFinishedTransfers()
            let (incoming, stopping) = queue.takeAll()
            if stopping {
                // Nothing new starts once stopping; what is in flight gets the grace period.
                fail(incoming + takeBacklog() + released + gate.drain(), with: .shutDown)
                released = []
                let deadline = stopDeadline ?? Date().addingTimeInterval(configuration.shutdownGraceSeconds)
                stopDeadline = deadline
                if inFlight.isEmpty || Date() >= deadline { break }
            } else {
                backlog.append(contentsOf: incoming)
                // New transfers must reach curl_multi_perform before the loop sleeps.
                if startFromBacklog() > 0 { continue }
            }
            curl_multi_poll(multi.pointer, nil, 0, Self.longestSleepMilliseconds, nil)
        }
        abortInFlight()
        idleHandles.removeAll()
        curl_multi_cleanup(multi.pointer)
        logger.debug("curl engine stopped")
    }

    /// Hands released, then backlog transfers to libcurl while fewer than the maximum are in
    /// flight; the connection gate holds those whose connection is still being opened.
    private func startFromBacklog() -> Int {
        var started = 0
        let now = DispatchTime.now().uptimeNanoseconds
        if !released.isEmpty {
            var next = 0
            while inFlight.count < configuration.maxTransfersInFlight, next < released.count {
                if start(released[next]) { started += 1 }
                next += 1
            }
            released.removeFirst(next)
        }
        while inFlight.count < configuration.maxTransfersInFlight, backlogStart < backlog.count {
            let transfer = backlog[backlogStart]
            backlogStart += 1
            if gate.admit(transfer, now: now), start(transfer) { started += 1 }
        }
        if backlogStart == backlog.count {
            backlog.removeAll(keepingCapacity: backlog.count <= 4096)
            backlogStart = 0
        } else if backlogStart > 4096, backlogStart * 2 > backlog.count {
            backlog.removeFirst(backlogStart)
            backlogStart = 0
        }
        return started
    }

    private func takeBacklog() -> [CurlTransfer] {
        let rest = Array(backlog[backlogStart...])
        backlog = []
        backlogStart = 0
        return rest
    }

    /// Starts a transfer the gate admitted; a failure to start is reported to the gate too.
    private func start(_ transfer: CurlTransfer) -> Bool {
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        let handle: EasyHandle
        do {
            if let idle = idleHandles.popLast() { handle = idle } else { handle = try EasyHandle(settings: settings) }
            try handle.prepare(for: transfer, context: context, settings: settings)
        } catch {
            finish(transfer, .failure(error))
            return false
        }
        let code = curl_multi_add_handle(multi.pointer, handle.pointer)
        guard code == CURLM_OK else {
            finish(transfer, .failure(.invalidRequest("curl_multi_add_handle: \(String(cString: curl_multi_strerror(code)))")))
            return false
        }
        transfer.handle = handle
        inFlight[handle.pointer] = transfer
        return true
    }

    private func completeFinishedTransfers() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi.pointer, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            // The message is freed by curl_multi_remove_handle: read it first.
            let result = pushgate_curl_msg_result(message)
            var newConnections = 0
            _ = pushgate_curl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &newConnections)
            curl_multi_remove_handle(multi.pointer, easy)
            guard let transfer = inFlight.removeValue(forKey: easy) else { continue }
            let outcome = self.outcome(of: transfer, result: result)
            if let handle = transfer.handle, idleHandles.count < Self.idleHandlesKept { idleHandles.append(handle) }
            transfer.handle = nil
            if newConnections > 0 { statistics.withLock { $0.connectionsOpened += newConnections } }
            finish(transfer, outcome)
        }
    }

    private func outcome(of transfer: CurlTransfer, result: CURLcode) -> UpstreamOutcome {
        guard let handle = transfer.handle else { return .failure(.connectionLost("transfer lost its handle")) }
        if result != CURLE_OK, let refusal = transfer.addressRefusal {
            return .failure(.invalidRequest(refusal))
        }
        if transfer.responseTooLarge {
            return .failure(.connectionLost("reply larger than \(CurlTransfer.maximumResponseBytes) bytes"))
        }
        guard result == CURLE_OK else {
            return .failure(CurlErrorMapping.transportError(result, message: handle.errorMessage))
        }
        return .success(
            UpstreamResponse(status: handle.responseCode, headers: transfer.responseHeaders, body: transfer.responseBody))
    }

    /// Completions run here, on the engine thread, outside every lock: they may submit again.
    private func finish(_ transfer: CurlTransfer, _ outcome: UpstreamOutcome) {
        let (start, fail) = gate.finished(transfer, outcome: outcome, now: DispatchTime.now().uptimeNanoseconds)
        released += start
        statistics.withLock {
            if case .success = outcome { $0.responses += 1 } else { $0.failures += 1 }
        }
        transfer.completion(outcome)
        for held in fail { finish(held, outcome) }
    }

    private func fail(_ transfers: [CurlTransfer], with error: TransportError) {
        for transfer in transfers { finish(transfer, .failure(error)) }
    }

    /// At the end of the grace period: whatever is still in flight fails with `.shutDown`.
    private func abortInFlight() {
        completeFinishedTransfers()
        let aborted = Array(inFlight.values)
        for (easy, transfer) in inFlight {
            curl_multi_remove_handle(multi.pointer, easy)
            transfer.handle = nil
        }
        inFlight.removeAll()
        fail(aborted, with: .shutDown)
    }
}
