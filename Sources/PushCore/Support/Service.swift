/// A part of `pushgate serve` that works in the background (the outbox worker, the WAL
/// checkpointer, housekeeping, the delivery engine, …). serve starts its services in the
/// order it lists them and stops them in the reverse order, so that each stops before what
/// it uses: `stop` finishes or hands back what the service holds, then returns.
public protocol Service: AnyObject {
    /// What the log calls it.
    var serviceName: String { get }
    func start() throws
    func stop()
}
