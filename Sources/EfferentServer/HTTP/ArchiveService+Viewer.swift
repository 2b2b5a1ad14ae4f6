import EfferentCore
import EfferentHTTP

/// The viewer a browser opens for a shared link (`https://<service>/share#shlink:/…`): static
/// files embedded in the binary (`ViewerAssets`, scripts/embed-viewer). The fragment holding the
/// link and its key is never sent, so the service serves the same page to everyone and learns
/// nothing from it; the page fetches the manifest and decrypts in the browser.
extension ArchiveHandlers {
    /// The page may run only its own script and style, and talk only to this service; nothing is
    /// cached, framed, sniffed or referred.
    static let viewerHeaders: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
    ]

    func addViewerRoutes(to router: Router) {
        for (path, file) in ViewerAssets.files {
            let response = HTTPResponse(status: 200, headers: [("Content-Type", file.type)] + Self.viewerHeaders, body: file.bytes)
            router.get(path) { _, _ in response }
            if path == LinkLimits.viewerPath { router.get(path + "/") { _, _ in response } }
        }
    }
}
