import CCurl
import Foundation

/// The hand-over point between threads that submit transfers and the engine thread that runs
/// them: a locked list plus `curl_multi_wakeup`, the one multi-handle call libcurl allows from
/// any thread. The engine takes the whole list at once.
/// `@unchecked Sendable`: `pending`, `wakeupPending` and `stopping` are guarded by `lock`; the
/// multi handle is only woken while `lock` is held and `stopping` is false, and the engine
/// cleans it up only after it has seen `stopping`, so a wake-up never reaches a freed handle.
final class SubmissionQueue: @unchecked Sendable {
    private let lock = NSLock()
    private let multi: MultiHandle
    private var pending: [CurlTransfer] = []
    /// A wake-up was sent that the engine has not yet answered by taking the list: later
    /// submissions need not send another (one write(2) per batch, not per request).
    private var wakeupPending = false
    private var stopping = false

    init(multi: MultiHandle) {
        self.multi = multi
    }

    /// False when the engine is stopping: the caller fails the transfer itself.
    func enqueue(_ transfer: CurlTransfer) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !stopping else { return false }
        pending.append(transfer)
        if !wakeupPending {
            wakeupPending = true
            curl_multi_wakeup(multi.pointer)
        }
        return true
    }

    /// Everything submitted since the last call, and whether the engine should stop.
    func takeAll() -> (transfers: [CurlTransfer], stopping: Bool) {
        lock.lock()
        defer { lock.unlock() }
        wakeupPending = false
        let transfers = pending
        pending = []
        return (transfers, stopping)
    }

    /// Refuses further submissions and wakes the engine; true the first time only.
    func beginStopping() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !stopping else { return false }
        stopping = true
        curl_multi_wakeup(multi.pointer)
        return true
    }
}

/// A libcurl multi handle. `@unchecked Sendable`: only the engine thread calls into it, except
/// `curl_multi_wakeup`, which libcurl documents as callable from any thread.
struct MultiHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}
