import Foundation

/// A self-signed push certificate (EC P-256) and its key, PEM files made by the real
/// `openssl ca`, which, unlike `openssl req -x509`, takes any validity period, past ones too:
/// for tests of what expired and nearly expired certificates do.
public struct DatedCertificate: Sendable {
    public let certificateFile: URL
    public let keyFile: URL

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Makes one valid from `start` to `end` in a new folder under `directory`.
    public static func make(
        from start: Date, to end: Date, in directory: URL, subject: String = "Apple Push Services: com.example.app"
    ) throws -> DatedCertificate {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss'Z'"
        let folder = directory.appendingPathComponent("ca-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data().write(to: folder.appendingPathComponent("index.txt"))
        try "[ca]\ndefault_ca = d\n[d]\ndatabase = index.txt\nnew_certs_dir = .\nrand_serial = yes\ndefault_md = sha256\npolicy = p\n[p]\ncommonName = supplied\n"
            .write(to: folder.appendingPathComponent("ca.cnf"), atomically: true, encoding: .utf8)
        try openssl(
            ["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "key.pem", "-out", "req.csr",
             "-subj", "/CN=\(subject)"], in: folder)
        try openssl(
            ["ca", "-config", "ca.cnf", "-selfsign", "-keyfile", "key.pem", "-in", "req.csr", "-out", "cert.pem", "-batch", "-notext",
             "-startdate", formatter.string(from: start), "-enddate", formatter.string(from: end)], in: folder)
        return DatedCertificate(
            certificateFile: folder.appendingPathComponent("cert.pem"), keyFile: folder.appendingPathComponent("key.pem"))
    }

    private static func openssl(_ arguments: [String], in folder: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "openssl \(arguments[0]) failed: \(text)") }
    }
}
