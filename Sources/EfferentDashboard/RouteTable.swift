import EfferentHTTP
import Foundation

/// The dashboard's routes as they are registered — all GET — each handler timed into a
/// `Server-Timing` header, and the patterns kept so a test can hold the OpenAPI document to them.
/// Filled while the routes are registered, then done with: the router's frozen table is what serves.
final class RouteTable {
    let router: Router
    private(set) var registered: [String] = []

    init(router: Router) { self.router = router }

    func get(_ pattern: String, _ handler: @escaping Router.Handler) {
        registered.append(pattern)
        router.get(pattern) { request, parameters in
            let started = DispatchTime.now().uptimeNanoseconds
            var response = try handler(request, parameters)
            let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
            response.headers.append(("Server-Timing", "app;dur=" + String(format: "%.2f", milliseconds)))
            return response
        }
    }
}
