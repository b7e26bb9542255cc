import COpenSSL

/// Reads PEM keys through OpenSSL after looking at the PEM labels first, because OpenSSL's own
/// errors ("DECODER routines::unsupported") do not tell an operator what is wrong with a file.
enum PEMReader {
    /// Labels of unencrypted private keys: PKCS#8, and the legacy per-algorithm forms.
    static let privateKeyLabels: Set<String> = ["PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY"]

    /// Loads an unencrypted private key. `expectedHeader` only words the error for non-PEM input.
    static func privateKey(_ pem: String, expectedHeader: String) throws(CryptoError) -> EVPKey {
        let labels = labels(in: pem)
        guard let first = labels.first else { throw .notPEM(expected: expectedHeader) }
        if labels.contains("ENCRYPTED PRIVATE KEY") || pem.contains("Proc-Type: 4,ENCRYPTED") {
            throw .encryptedKey
        }
        guard labels.contains(where: privateKeyLabels.contains) else {
            throw .unexpectedPEM(found: first, expected: "PRIVATE KEY")
        }
        return EVPKey(
            taking: try MemoryBIO.read(pem, "reading the private key (PEM_read_bio_PrivateKey)") {
                PEM_read_bio_PrivateKey($0, nil, refusePassphrase, nil)
            })
    }

    /// Loads a SubjectPublicKeyInfo public key (`-----BEGIN PUBLIC KEY-----`).
    static func publicKey(_ pem: String) throws(CryptoError) -> EVPKey {
        try require("PUBLIC KEY", in: pem)
        return EVPKey(
            taking: try MemoryBIO.read(pem, "reading the public key (PEM_read_bio_PUBKEY)") {
                PEM_read_bio_PUBKEY($0, nil, nil, nil)
            })
    }

    /// Refuses text without a `-----BEGIN label-----` block, naming what it holds instead.
    static func require(_ label: String, in pem: String) throws(CryptoError) {
        let labels = labels(in: pem)
        guard let first = labels.first else { throw .notPEM(expected: "-----BEGIN \(label)-----") }
        guard labels.contains(label) else { throw .unexpectedPEM(found: first, expected: label) }
    }

    /// The labels of every `-----BEGIN LABEL-----` line, in order.
    static func labels(in pem: String) -> [String] {
        let marker = "-----BEGIN "
        var labels: [String] = []
        for line in pem.split(whereSeparator: \.isNewline) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix(marker) else { continue }
            let rest = trimmed.dropFirst(marker.count)
            guard let end = rest.range(of: "-----") else { continue }
            labels.append(String(rest[..<end.lowerBound]))
        }
        return labels
    }
}

/// Answers OpenSSL's passphrase requests with "none": its default callback would prompt on the
/// terminal of a server. Encrypted keys are refused before reading; this covers what slips past.
private func refusePassphrase(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int32, _ writing: Int32, _ context: UnsafeMutableRawPointer?
) -> Int32 {
    -1
}
