/// Times of events per key within a sliding window (failed logins per address, new devices
/// per network), with the keys also queued in the order of their latest event. So the
/// expired go, and at capacity the key longest quiet goes, from the front of that queue at
/// O(1) amortised cost: no call scans the table, however full, and a caller can tell a table
/// full of live keys (the oldest is still in its window) from one that has room to make.
///
/// Not synchronised: its owner holds a lock around every call.
public struct WindowCounts<Key: Hashable> {
    public let windowSeconds: Double
    /// Keys held at most; `record` of a new key past it makes room by dropping the oldest.
    public let capacity: Int
    /// Per key, the times of its events, oldest first; expired times at the front are cut
    /// when the key is read or when the key expires whole.
    private var times: [Key: [Double]] = [:]
    /// (key, time of its latest event then), oldest first, from `head` on. An entry whose
    /// time is no longer its key's latest (a newer event, a key removed) is stale and skipped.
    /// Every key held has an entry for its latest time, so skipping stale ones loses none.
    private var order: [(key: Key, at: Double)] = []
    private var head = 0

    public init(windowSeconds: Double, capacity: Int) {
        self.windowSeconds = windowSeconds
        self.capacity = max(1, capacity)
    }

    public var count: Int { times.count }

    public func contains(_ key: Key) -> Bool { times[key] != nil }

    /// The key's times still inside the window at `time`, oldest first; the expired are cut.
    public mutating func live(_ key: Key, at time: Double) -> ArraySlice<Double> {
        let start = time - windowSeconds
        guard let held = times[key] else { return [] }
        guard let firstLive = held.firstIndex(where: { $0 > start }) else {
            times[key] = nil
            return []
        }
        if firstLive > 0 { times[key]!.removeFirst(firstLive) }
        return times[key]![...]
    }

    /// When the key holds `limit` live times: when the oldest of those leaves the window.
    public mutating func fullUntil(_ key: Key, limit: Int, at time: Double) -> Double? {
        let held = live(key, at: time)
        guard held.count >= limit else { return nil }
        return held[held.endIndex - limit] + windowSeconds
    }

    /// Counts an event of the key. A new key past `capacity` first drops the key longest quiet.
    public mutating func record(_ key: Key, at time: Double) {
        if times[key] == nil, times.count >= capacity { removeOldest() }
        times[key, default: []].append(time)
        enqueue(key, time)
    }

    /// Takes back one event of the key at `time` (the latest such), as if it never happened.
    public mutating func remove(_ time: Double, of key: Key) {
        guard let index = times[key]?.lastIndex(of: time) else { return }
        times[key]!.remove(at: index)
        if let last = times[key]!.last {
            // Its latest time may be earlier now; that time's entry may be gone as stale.
            if index == times[key]!.count { enqueue(key, last) }
        } else {
            times[key] = nil
        }
    }

    /// Takes back the key's latest event.
    public mutating func removeLatest(of key: Key) {
        if let last = times[key]?.last { remove(last, of: key) }
    }

    /// Forgets the key and all its events.
    public mutating func remove(_ key: Key) { times[key] = nil }

    /// Drops every key whose events all left the window by `time`: from the queue's front,
    /// so it costs what expired.
    public mutating func forgetExpired(at time: Double) {
        let start = time - windowSeconds
        while head < order.count, order[head].at <= start {
            let entry = order[head]
            head += 1
            if let last = times[entry.key]?.last, last <= start { times[entry.key] = nil }
        }
        compact()
    }

    /// The key whose latest event is the oldest, and that event's time.
    public mutating func oldest() -> (key: Key, at: Double)? {
        while head < order.count {
            let entry = order[head]
            if times[entry.key]?.last == entry.at { return entry }
            head += 1
        }
        compact()
        return nil
    }

    /// Drops the key whose latest event is the oldest.
    public mutating func removeOldest() {
        if let entry = oldest() {
            times[entry.key] = nil
            head += 1
            compact()
        }
    }

    private mutating func enqueue(_ key: Key, _ time: Double) {
        order.append((key, time))
        // Stale entries pile up under keys with many events: rebuilt from the table once they
        // are twice what it holds, which leaves as many events to come before the next rebuild.
        if order.count - head > 2 * max(times.count, 512) {
            order = times.map { ($0.key, $0.value.last!) }.sorted { $0.at < $1.at }
            head = 0
        }
    }

    /// Gives back the queue's consumed front once it is most of the array.
    private mutating func compact() {
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }
}
