import Foundation

/// A certificate chain and its private key, PEM, for serving HTTPS directly (Debian's
/// libmicrohttpd does TLS with GnuTLS). A phone app talks HTTPS to anything off the local network.
public struct TLSCredentials: Sendable {
    public let certificate: String
    public let key: String

    public init(certificatePEM: String, keyPEM: String) {
        certificate = certificatePEM
        key = keyPEM
    }

    /// Reads both files (`--tls-cert`, `--tls-key`); the key is read first.
    public init(certificateFile: String, keyFile: String) throws(TLSCredentialsError) {
        guard let key = try? String(contentsOfFile: keyFile, encoding: .utf8) else { throw .unreadableKey(keyFile) }
        guard let certificate = try? String(contentsOfFile: certificateFile, encoding: .utf8) else {
            throw .unreadableCertificate(certificateFile)
        }
        self.init(certificatePEM: certificate, keyPEM: key)
    }
}

public enum TLSCredentialsError: Error, Equatable, CustomStringConvertible {
    case unreadableKey(String)
    case unreadableCertificate(String)

    public var description: String {
        switch self {
        case let .unreadableKey(path): "cannot read the TLS key \(path)."
        case let .unreadableCertificate(path): "cannot read the TLS certificate \(path)."
        }
    }
}
