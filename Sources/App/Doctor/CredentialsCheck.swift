import Foundation
import PushCore
import PushCrypto

/// Each registered app's credentials load as delivery will load them, and a push certificate
/// is not expired nor about to: APNs refuses an expired one on every connection, and the
/// renewal takes a trip to the Apple developer account. Offline: `--online` adds `apps check`.
struct CredentialsCheck {
    let apps: [RegisteredApp]
    let now: Date
    /// A certificate that ends sooner than this is a problem already.
    let expiryWarningDays: Int

    func run() -> [DoctorFinding] {
        if apps.isEmpty {
            return [.warning("apps", "no app is registered: nothing can be pushed (`pushgate apps add`)")]
        }
        return apps.map(check)
    }

    private func check(_ app: RegisteredApp) -> DoctorFinding {
        let subject = "app \(app.id)"
        switch app.credentials {
        case .apnsToken(let teamID, let keyID, let privateKeyPEM):
            for (name, value) in [("team id", teamID), ("key id", keyID)] where !Self.isAppleIdentifier(value) {
                return .problem(subject, "APNs \(name) \(value) is not 10 letters and digits: `apps add --replace` with the right one")
            }
            do {
                _ = try APNsSigningKey(pem: privateKeyPEM)
            } catch {
                return .problem(subject, "the APNs signing key does not load (\(error)): `apps add --replace` with the .p8 file")
            }
            return .ok(subject, "APNs signing key (team \(teamID), key \(keyID)) loads")
        case .apnsCertificate(let certificatePEM, let privateKeyPEM):
            return checkCertificate(subject: subject, certificatePEM: certificatePEM, privateKeyPEM: privateKeyPEM)
        case .fcmServiceAccount(let json, let projectID):
            do {
                let account = try ServiceAccount(json: json)
                return .ok(subject, "FCM service account \(account.clientEmail) (project \(projectID)) loads")
            } catch {
                return .problem(subject, "the FCM service account does not load (\(error)): `apps add --replace` with a new key file")
            }
        case .webPush(let pem, let contact):
            do {
                let publicKey = try VAPIDKey(pem: pem).publicKeyBase64URL()
                return .ok(subject, "VAPID key \(publicKey.prefix(12))… (subject \(contact)) loads")
            } catch {
                return .problem(subject, "the VAPID key does not load (\(error)): `apps add --replace` with --vapid-key-file")
            }
        }
    }

    private func checkCertificate(subject: String, certificatePEM: String, privateKeyPEM: String) -> DoctorFinding {
        let certificate: APNsClientCertificate
        do {
            certificate = try APNsClientCertificate(certificatePEM: certificatePEM, privateKeyPEM: privateKeyPEM)
        } catch CryptoError.certificateExpired(let notAfter) {
            return .problem(
                subject,
                "the APNs push certificate expired on \(notAfter): APNs refuses it; renew it in the Apple developer account and `apps add --replace`")
        } catch {
            return .problem(subject, "the APNs push certificate does not load (\(error)): `apps add --replace`")
        }
        guard let end = Self.date(openSSLTime: certificate.notAfter) else {
            return .problem(subject, "cannot read the push certificate's end date \(certificate.notAfter)")
        }
        let secondsLeft = end.timeIntervalSince(now)
        if secondsLeft <= 0 {
            return .problem(
                subject,
                "the APNs push certificate expired on \(certificate.notAfter): renew it in the Apple developer account and `apps add --replace`")
        }
        let daysLeft = Int(secondsLeft / 86_400)
        if daysLeft < expiryWarningDays {
            return .problem(
                subject,
                "the APNs push certificate expires in \(daysLeft) day(s), on \(certificate.notAfter): renew it now and `apps add --replace`")
        }
        return .ok(subject, "APNs push certificate valid until \(certificate.notAfter) (\(daysLeft) days)")
    }

    /// Apple's team and key ids: ten capital letters and digits.
    static func isAppleIdentifier(_ value: String) -> Bool {
        value.utf8.count == 10 && value.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) }
    }

    /// OpenSSL's printed time, `Jun  1 12:00:00 2027 GMT`.
    static func date(openSSLTime text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 5, parts[4] == "GMT" else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "MMM d HH:mm:ss yyyy"
        return formatter.date(from: parts[0...3].joined(separator: " "))
    }
}
