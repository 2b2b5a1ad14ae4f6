import EfferentCore
import EfferentHTTP

/// Every route of protocol §6–§8 with its handler and body ceiling (§6), and this project's kit routes. Bucket ids, days and
/// edit names are parsed while the path is matched, so a handler only ever sees valid ones.
extension ArchiveHandlers {
    func addRoutes(to router: Router) {
        router.parameter("bucket") { text in
            guard let id = try? BucketID(text) else { throw ServiceError.malformedBucket }
            return id
        }
        router.parameter("day") { text in
            guard let day = CalendarDay(text) else { throw ServiceError(400, "\(text.prefix(40)) is not a real date (YYYY-MM-DD)") }
            return day
        }
        router.parameter("locator") { text in
            guard let locator = try? KitLocator(text) else { throw ServiceError(400, "malformed kit locator") }
            return locator
        }
        router.parameter("name") { text in
            guard let name = try? EditName(text) else { throw ServiceError(400, "malformed edit name") }
            return name
        }

        router.get("/health") { _, _ in Self.json(200, .object(["ok": .bool(true)])) }
        router.put("/b/:bucket") { [self] request, p in try claim(p.get("bucket"), request) }
        router.get("/b/:bucket/days") { [self] request, p in try listing(p.get("bucket"), request) }
        router.put("/b/:bucket/days", body: BodyLimit(bytes: ProtocolLimits.maxRequestBytes,
                                                      refusal: ServiceError(413, "a request may carry at most 5 MiB; send fewer days in each"))) {
            [self] request, p in try upload(p.get("bucket"), request)
        }
        router.get("/b/:bucket/d/:day") { [self] request, p in try oneDay(p.get("bucket"), p.get("day"), request) }
        router.get("/b/:bucket/d") { [self] request, p in try range(p.get("bucket"), request) }
        router.get("/b/:bucket/stats") { [self] _, p in try stats(p.get("bucket")) }
        router.put("/b/:bucket/editor") { [self] request, p in try register(.editor, p.get("bucket"), request) }
        router.put("/b/:bucket/reader") { [self] request, p in try register(.reader, p.get("bucket"), request) }
        for method in ["PUT", "DELETE"] {
            router.on(method, "/b/:bucket/device") { _, _ in
                throw ServiceError(501, "this service sends no push notifications: writers collect edits each time they run")
            }
        }
        router.get("/b/:bucket/edits") { [self] request, p in try listEdits(p.get("bucket"), request) }
        router.post("/b/:bucket/edits", body: BodyLimit(bytes: ProtocolLimits.maxEditBytes,
                                                        refusal: ServiceError(413, "an edit may be at most 256 KiB; send fewer items in each"))) {
            [self] request, p in try postEdit(p.get("bucket"), request)
        }
        router.get("/b/:bucket/e/:name") { [self] request, p in try fetchEdit(p.get("bucket"), p.get("name"), request) }
        router.put("/b/:bucket/e/:name/outcome", body: BodyLimit(bytes: ProtocolLimits.maxOutcomeBytes,
                                                                 refusal: ServiceError(413, "an outcome may be at most 64 KiB"))) {
            [self] request, p in try answerEdit(p.get("bucket"), p.get("name"), request)
        }
        router.get("/b/:bucket/o/:name") { [self] request, p in try outcome(p.get("bucket"), p.get("name"), request) }
        router.post("/mcp/b/:bucket", body: BodyLimit(bytes: 1024 * 1024)) { [self] request, p in try mcp(p.get("bucket"), request) }

        // This project's extension, off Efferent's routes: recovery kits' sealed records.
        router.put("/kit/:locator", body: BodyLimit(bytes: 4096, refusal: ServiceError(413, "a sealed recovery record is at most 4 KiB"))) {
            [self] request, p in try putKit(p.get("locator"), request)
        }
        router.get("/kit/:locator") { [self] request, p in try getKit(p.get("locator"), request) }
    }
}
