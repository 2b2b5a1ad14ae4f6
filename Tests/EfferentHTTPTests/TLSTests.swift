import EfferentCurl
import EfferentHTTP
import EfferentTestSupport
import Foundation
import Testing

/// HTTPS straight from the daemon (libmicrohttpd on GnuTLS), checked with libcurl trusting only
/// the test certificate. The key and certificate below were made for this test alone
/// (`openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -days 36500 -nodes
/// -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1`) and guard nothing else.
@Suite struct TLSTests {
    static let key = """
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg53ZD4H53GPEWPakx
jSQhXs23liKumTXmUWNqUFNaYlGhRANCAARX0lW5QGNFscmEzLcbuZdYrngD9Q6f
wuS+LN6+3w3dcvo6bDQArOpw8d7kjWd6AXmYbYkGd2eOz4VuBurao3Vk
-----END PRIVATE KEY-----
"""

    static let certificate = """
-----BEGIN CERTIFICATE-----
MIIBkDCCATagAwIBAgIUVFGbvbEL1UJnk7Yae6fyOrtzMlAwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTIwMTA5MDAxMFoYDzIxMjYxMTA3
MDkwMDEwWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARX0lW5QGNFscmEzLcbuZdYrngD9Q6fwuS+LN6+3w3dcvo6bDQArOpw
8d7kjWd6AXmYbYkGd2eOz4VuBurao3Vko2QwYjAdBgNVHQ4EFgQUKdZYAfeSpmyU
R3R4uBBH+RAKwfswHwYDVR0jBBgwFoAUKdZYAfeSpmyUR3R4uBBH+RAKwfswDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0gAMEUC
IF7xMzJIh25OzC4gtyDunuk5Fw8Bob3sDYKV2Vc0YI2lAiEA8tMMIBL37x/bWEuO
cM5PEr4bvZ2mwzhCYmSYar35MFY=
-----END CERTIFICATE-----
"""

    @Test func servesHTTPSFromACertificateAndKeyFile() throws {
        let directory = NSTemporaryDirectory() + "efferent-tls-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.key.write(toFile: directory + "/key.pem", atomically: true, encoding: .utf8)
        try Self.certificate.write(toFile: directory + "/cert.pem", atomically: true, encoding: .utf8)
        let credentials = try TLSCredentials(certificateFile: directory + "/cert.pem", keyFile: directory + "/key.pem")
        let server = try TestServer(.loopback, tls: credentials)

        let session = CurlSession()
        let answer = try session.perform(CurlExchange(method: "GET", url: "https://127.0.0.1:\(server.port)/items/5", caFile: directory + "/cert.pem"),
                                         cancel: CurlCancellation())
        #expect(answer.status == 200 && answer.body == Array("item 5".utf8))
        #expect(throws: CurlFailure.self, "a client that does not trust the certificate gets no answer") {
            try session.perform(CurlExchange(method: "GET", url: "https://127.0.0.1:\(server.port)/items/5", caFile: "/dev/null"),
                                cancel: CurlCancellation())
        }
        #expect(throws: CurlFailure.self, "plain HTTP to an HTTPS port gets no answer") {
            try session.perform(CurlExchange(method: "GET", url: "http://127.0.0.1:\(server.port)/items/5", deadline: 5), cancel: CurlCancellation())
        }
        #expect(throws: TLSCredentialsError.unreadableKey(directory + "/none.pem")) {
            try TLSCredentials(certificateFile: directory + "/cert.pem", keyFile: directory + "/none.pem")
        }
    }
}
