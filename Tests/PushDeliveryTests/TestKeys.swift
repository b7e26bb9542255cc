import PushCore

/// Test-only keys, generated with `openssl genpkey` for these tests and never used elsewhere:
/// no Apple or Google account knows them.
enum TestKeys {
    /// An APNs-style .p8 key (EC P-256, PKCS#8).
    static let apnsKey = """
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgWn/Q0n+EgODMBX4y
jOmotlRUfmYaymjTzAEfUGXRzhehRANCAAQzr4AOE54EwdD3t4b945d5IDNuhH/Y
CvwBw94DkaWaMXbJ00M1ofpauwb2eAMbzFs8j1lTBHJyk7h/PAuZuTDD
-----END PRIVATE KEY-----
"""

    /// Its public half, for verifying provider tokens.
    static let apnsPublicKey = """
-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEM6+ADhOeBMHQ97eG/eOXeSAzboR/
2Ar8AcPeA5GlmjF2ydNDNaH6WrsG9ngDG8xbPI9ZUwRycpO4fzwLmbkwww==
-----END PUBLIC KEY-----
"""

    /// A second P-256 key, for "the operator replaced the key".
    static let otherAPNsKey = """
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgBKOpBb6bnAtc8ANm
uCYKC0zOHpEYUJ2qv3KI2OmGVpahRANCAATUImaj+4Y38IQCaggq8IxFAD1M9Dym
MMxWVF+zxNp794sCPHbqWgJq/0owmGvE22XPVGmJHTeZe3FegDwlK9EF
-----END PRIVATE KEY-----
"""

    /// The RSA-2048 key of the test service account.
    static let serviceAccountKey = """
-----BEGIN PRIVATE KEY-----
MIIEvwIBADANBgkqhkiG9w0BAQEFAASCBKkwggSlAgEAAoIBAQC3cRGTby316Bmg
S1chn6vPwBZzGNSVxbibGStNBUzs8UAH9KivzPw+GGfkaePDZln7QASWaZCoe+ev
2AMKdUKNI5PJwVFTLabq/ZOcEPMSRy31tTsL1Z9smrgbmTgYlofMwGuLoKbKaGjM
qeiTwwSJayswOlyAQ6y5A3bWTuUu4Otv/EwxQoo3DAteRsYz2t2uTZSt8FPmwDOw
PHWaaDOU/A/MvFYlT2Yq35Ehoz/0U/a0B70KY7nCCdOx59PKgDO05peGCeM+ErDE
VkDjyUd5efVu1ahN8oIqpYiJzQ2JVRw8U4UJkeTyDE1V7tlRgGRWwAtex4dwboMR
8aY5YwLhAgMBAAECggEAIrqD/JDJl3q5sURaKkovjYz84wziIDm2vZw5+6Kjgd8Z
g3gQ4HlzDrFxp8dZQKK1qdCgnbY+FfuhLQP87WOuNgi0f7d61T+5EFdx9NOrpPv3
SkNlepPWkwnGjakH+vWyn3OVWLGRKhQytP58ws6iov54RnDiFsFZJ4ytmJyGnIVT
d2e+6BZtvTgb/RG1Dpgt7wtCy9IrwY++P5wla4LFfwEheO+vFDHlsn5uk4Pd5BuY
b3kodeximbtH80iKFJmX+dS6+VcP1mzdcxV6TtozREauVboVG+Ac94zGvYMNoHd8
yI0XhAiOasnyyqqtuM0PDb80aXmY5OL/KD90E0TJnQKBgQDuevrSpTRE9NVaSKCd
SrV9zUbHE+N5gUt8ymcwvJIuuvUA2F4LJQx5DV8FDFdu67b7jyGx8Ib84yk70Xuy
0TZhBFTv3soIehxEufMfHQZku6B5fMyZYnGmtNLSj7n9+rLInY+3XezluncBTVy0
pj+pnek6Br/CwImQm5tng/H4/QKBgQDE6v6MfI77vropWzrqq3/uv4+SqrJW2wNU
RPrI1ndOx47u2RvZU1IJe5tmVLPtjJKM0+6x9Y5souuDxgXFVDmj0rz/rYVqVgPT
aIWnQWOFsSVS8GbkA6er3y5Uz0UrqLZDbCJBU6STMhud5zp4aKdbMzAlPU9vVq8p
L75eTcNYtQKBgQDIfogFNHMfTh9ZChpOYxL2svBASo5CBtuqDJh4tvDHbNKyZTWb
dQhpdT5fhiKz1GRAVfNkH+29ClYOPm4axh1Lr1KhX9LHEbJWbWbiz4oigkPGH4/7
nHIkT323HLKnvm80jpLW/JZABWYrqBi6n9KCDYqZCDeLykddVhVvD9UNGQKBgQC6
bbh8jNhZomJhEQwgbCl8gUOOGakp7cOjHoNHbTQbE3dQzZ8+C1IZxDqFkR+fgHym
c2cCeHZUh5HteaaxAWJopPVmIoOy/qg0mDog9Rkh02qAsTTYHlW5tFwK0wirotib
0F5F9shSyxe2UNnccUgwYa/tMbRotmqy1Y6nfXu6GQKBgQCn/KYE9x22lpKmijp8
TsWiAs9x0OSu+a+LASXMs5WSOhI0BbKf6l7PiGQ3r+rOnNH9uDuFd/Ggrd6kqhQq
yJwF4KvirP+naetmT20tD+QW0W/fYQh8rIpjjb23+Zddx/yO9AnPdIIVvdzmMt9d
YVbzxvoWnbY8ohh63x+CCMeNkg==
-----END PRIVATE KEY-----
"""

    /// Its public half, for verifying assertions.
    static let serviceAccountPublicKey = """
-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAt3ERk28t9egZoEtXIZ+r
z8AWcxjUlcW4mxkrTQVM7PFAB/Sor8z8Phhn5Gnjw2ZZ+0AElmmQqHvnr9gDCnVC
jSOTycFRUy2m6v2TnBDzEkct9bU7C9WfbJq4G5k4GJaHzMBri6CmymhozKnok8ME
iWsrMDpcgEOsuQN21k7lLuDrb/xMMUKKNwwLXkbGM9rdrk2UrfBT5sAzsDx1mmgz
lPwPzLxWJU9mKt+RIaM/9FP2tAe9CmO5wgnTsefTyoAztOaXhgnjPhKwxFZA48lH
eXn1btWoTfKCKqWIic0NiVUcPFOFCZHk8gxNVe7ZUYBkVsALXseHcG6DEfGmOWMC
4QIDAQAB
-----END PUBLIC KEY-----
"""

    /// A Google service-account file for the fake project `pushgate-test`, posting its
    /// assertions to `tokenURI`.
    static func serviceAccountJSON(tokenURI: String = "https://oauth.test/token", keyID: String = "test-key-1") -> String {
        let key = JSONValue.string(serviceAccountKey).encoded()
        return """
            {"type": "service_account", "project_id": "pushgate-test", "private_key_id": "\(keyID)",
             "private_key": \(String(decoding: key, as: UTF8.self)),
             "client_email": "pushgate@pushgate-test.iam.gserviceaccount.com", "token_uri": "\(tokenURI)"}
            """
    }
}
