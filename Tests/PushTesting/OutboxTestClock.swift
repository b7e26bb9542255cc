import Foundation
import Logging
import PushCore
import XCTest
@testable import PushDelivery

/// Unix milliseconds that tests move by hand, or that follow the real clock.
/// `@unchecked Sendable`: state is guarded by `lock`.
public final class OutboxTestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int64
    private var following = false

    public init(_ start: Int64) { value = start }

    public var now: Int64 { lock.withLock { following ? OutboxWorker.systemClock() : value } }

    public var followsRealTime: Bool {
        get { lock.withLock { following } }
        set { lock.withLock { following = newValue } }
    }

    public func advance(by milliseconds: Int64) { lock.withLock { value += milliseconds } }
}
