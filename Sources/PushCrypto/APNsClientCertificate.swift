import COpenSSL

/// An APNs client certificate with its private key, for certificate-based provider
/// authentication: checked to belong together and to be in date, kept as PEM for libcurl.
public struct APNsClientCertificate: Sendable, CustomStringConvertible {
    public let certificatePEM: String
    public let privateKeyPEM: String
    /// The certificate's subject, e.g. `/UID=com.example.app/CN=Apple Push Services: …`.
    public let subject: String
    /// The end of its validity, as OpenSSL prints it (`Jun  1 12:00:00 2027 GMT`).
    public let notAfter: String

    /// A PEM certificate and its PEM private key (the `openssl pkcs12 -nodes` export).
    public init(certificatePEM: String, privateKeyPEM: String) throws(CryptoError) {
        let key = try PEMReader.privateKey(privateKeyPEM, expectedHeader: "-----BEGIN PRIVATE KEY-----")
        try PEMReader.require("CERTIFICATE", in: certificatePEM)
        let certificate = try MemoryBIO.read(certificatePEM, "reading the certificate (PEM_read_bio_X509)") {
            PEM_read_bio_X509($0, nil, nil, nil)
        }
        defer { X509_free(certificate) }
        try self.init(certificate: certificate, key: key)
    }

    /// A `.p12` as Keychain Access exports it: certificate and key under one password.
    public init(pkcs12: [UInt8], password: String) throws(CryptoError) {
        OpenSSLErrorQueue.clear()
        var cursor: UnsafePointer<UInt8>? = nil
        let container: OpaquePointer? = pkcs12.withUnsafeBufferPointer { buffer in
            cursor = buffer.baseAddress
            return d2i_PKCS12(nil, &cursor, buffer.count)
        }
        guard let container else { throw .unreadablePKCS12("not a PKCS#12 file (\(OpenSSLErrorQueue.drain()))") }
        defer { PKCS12_free(container) }
        var keyPointer: OpaquePointer? = nil
        var certificatePointer: OpaquePointer? = nil
        guard PKCS12_parse(container, password, &keyPointer, &certificatePointer, nil) == 1,
            let keyPointer, let certificatePointer
        else {
            if let keyPointer { EVP_PKEY_free(keyPointer) }
            if let certificatePointer { X509_free(certificatePointer) }
            throw .unreadablePKCS12("wrong password, or no certificate and key inside (\(OpenSSLErrorQueue.drain()))")
        }
        defer { X509_free(certificatePointer) }
        try self.init(certificate: certificatePointer, key: EVPKey(taking: keyPointer))
    }

    private init(certificate: OpaquePointer, key: EVPKey) throws(CryptoError) {
        guard X509_check_private_key(certificate, key.pointer) == 1 else {
            OpenSSLErrorQueue.clear()
            throw .keyDoesNotMatchCertificate
        }
        notAfter = try MemoryBIO.text("ASN1_TIME_print") { ASN1_TIME_print($0, X509_get0_notAfter(certificate)) }
        // A certificate that has expired will be refused by APNs on every connection.
        if X509_cmp_current_time(X509_get0_notAfter(certificate)) < 0 {
            throw .certificateExpired(notAfter: notAfter)
        }
        subject = Self.subject(of: certificate)
        certificatePEM = try MemoryBIO.text("writing PEM") { PEM_write_bio_X509($0, certificate) }
        privateKeyPEM = try MemoryBIO.text("writing PEM") {
            PEM_write_bio_PrivateKey($0, key.pointer, nil, nil, 0, nil, nil)
        }
    }

    public var description: String { "APNsClientCertificate(\(subject), until \(notAfter))" }

    private static func subject(of certificate: OpaquePointer) -> String {
        guard let line = X509_NAME_oneline(X509_get_subject_name(certificate), nil, 0) else { return "unknown" }
        defer { pushgate_openssl_free(line) }
        return String(cString: line)
    }
}
