import Foundation

extension Configuration {
    /// The id this node's outbox claims are recorded under: `PUSHGATE_NODE_ID`, else the host
    /// name and where this `serve` takes FastCGI (`db1:10.0.0.5:9000`, `db1:/run/pushgate/
    /// pushgate.sock`). The default stays the same across restarts of one node, so that a
    /// restarted node takes back at once the rows it died holding, and differs between the
    /// `serve`s of one host, which cannot share a socket or a port: two processes under one
    /// id would take back each other's live claims.
    var effectiveNodeID: String {
        if let nodeID, !nodeID.isEmpty { return nodeID }
        let endpoint = listen?.description ?? URL(fileURLWithPath: socket).standardizedFileURL.path
        return "\(Self.hostName):\(endpoint)"
    }

    private static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: name, as: UTF8.self)
    }
}
