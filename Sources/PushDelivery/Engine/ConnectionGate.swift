import Foundation

/// Lets one transfer at a time open the connection of a (origin, identity) and holds the rest
/// until its TLS handshake is done, so that they multiplex on it instead of each opening a
/// connection of their own.
///
/// CURLOPT_PIPEWAIT alone does not do this: libcurl waits only while it does not yet know
/// whether the *host* multiplexes. Once any connection to the host is up (say, of another
/// client certificate, or before an idle one was closed), a burst for an identity without a
/// connection opens one connection per transfer. Engine-thread state only.
final class ConnectionGate {
    private struct State {
        /// A connection of this key was up recently: transfers go straight to libcurl.
        var ready = false
        /// The transfer opening the connection, while `ready` is false.
        var opener: CurlTransfer?
        var held: [CurlTransfer] = []
        var inFlight = 0
        var lastFinished: UInt64 = 0
    }

    /// A ready key without transfers for this long is treated as connection-less again (libcurl
    /// itself stops reusing idle connections after 118 s, CURLOPT_MAXAGE_CONN).
    private let idleNanoseconds: UInt64 = 60 * 1_000_000_000
    private var states: [ConnectionKey: State] = [:]
    /// Keys whose opener is in flight: checked after each `curl_multi_perform` (few at a time).
    private var opening: Set<ConnectionKey> = []

    /// True: start `transfer` now (as the opener when `transfer.isOpener`); false: it is held.
    func admit(_ transfer: CurlTransfer, now: UInt64) -> Bool {
        let key = transfer.connectionKey
        var state = states[key] ?? State()
        defer { states[key] = state }
        if state.ready, state.inFlight == 0, now &- state.lastFinished > idleNanoseconds {
            state.ready = false
        }
        if state.ready {
            state.inFlight += 1
            transfer.admitted = true
            return true
        }
        if state.opener != nil {
            state.held.append(transfer)
            return false
        }
        state.opener = transfer
        state.inFlight += 1
        transfer.admitted = true
        transfer.isOpener = true
        opening.insert(key)
        return true
    }

    /// Transfers to start because their key's opener has connected.
    func connectedTransfers() -> [CurlTransfer] {
        guard !opening.isEmpty else { return [] }
        var released: [CurlTransfer] = []
        for key in opening {
            guard let opener = states[key]?.opener, opener.connectionReady else { continue }
            opening.remove(key)
            released += release(key)
        }
        return released
    }

    /// Book-keeping for a finished transfer. Returns held transfers to start, and held
    /// transfers to fail with the opener's error when it could not connect at all.
    func finished(
        _ transfer: CurlTransfer, outcome: UpstreamOutcome, now: UInt64
    ) -> (start: [CurlTransfer], fail: [CurlTransfer]) {
        let key = transfer.connectionKey
        guard transfer.admitted, var state = states[key] else { return ([], []) }
        state.inFlight -= 1
        state.lastFinished = now
        if case .failure(.connectionLost) = outcome {
            // The connection may be gone: the next burst waits for a new one again.
            state.ready = false
        }
        states[key] = state
        guard transfer.isOpener, state.opener === transfer else { return ([], []) }
        opening.remove(key)
        if !transfer.connectionReady, case .failure = outcome {
            // It never connected: those waiting for the same connection would fail alike.
            let held = states[key]?.held ?? []
            states[key]?.held = []
            states[key]?.opener = nil
            return ([], held)
        }
        return (release(key), [])
    }

    /// Everything still held, at shutdown.
    func drain() -> [CurlTransfer] {
        let held = states.values.flatMap(\.held)
        states.removeAll()
        opening.removeAll()
        return held
    }

    private func release(_ key: ConnectionKey) -> [CurlTransfer] {
        guard var state = states[key] else { return [] }
        let held = state.held
        state.held = []
        state.opener = nil
        state.ready = true
        state.inFlight += held.count
        states[key] = state
        for transfer in held { transfer.admitted = true }
        return held
    }
}
