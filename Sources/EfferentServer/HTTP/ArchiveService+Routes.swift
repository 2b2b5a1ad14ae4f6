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
        addLinkRoutes(to: router)
        addViewerRoutes(to: router)
    }

    /// Shared links (decision A.15), off Efferent's own routes: the owner's (signed by the read
    /// key) under `/shl/b/<bucket>/`, and the SMART Health Links IG's manifest and file routes.
    func addLinkRoutes(to router: Router) {
        router.parameter("link") { text in
            guard let id = try? LinkID(text) else { throw LinkRefusal.unknown }
            return id
        }
        router.parameter("ticket") { text in
            guard text.utf8.count == LinkID.characters, Base64URL.decode(text)?.count == LinkID.bytes else { throw LinkRefusal.ticketGone }
            return String(text)
        }
        router.parameter("version") { text in
            guard let n = Int(text), n >= 1, n <= Int(Int32.max) else { throw ServiceError(400, "a version is a whole number from 1") }
            return n
        }
        router.parameter("n") { text in
            guard let n = Int(text), n >= 0, n < LinkLimits.maxFiles else {
                throw ServiceError(400, "a file's number runs from 0 to \(LinkLimits.maxFiles - 1)")
            }
            return n
        }
        let prefix = LinkLimits.routePrefix
        router.put("\(prefix)/b/:bucket/l/:link") { [self] request, p in try createLink(p.get("bucket"), p.get("link"), request) }
        router.put("\(prefix)/b/:bucket/l/:link/f/:version/:n",
                   body: BodyLimit(bytes: LinkLimits.maxFileBytes,
                                   refusal: ServiceError(413, "a link's file may be at most 16 MiB; cut the share into more files"))) {
            [self] request, p in try uploadLinkFile(p.get("bucket"), p.get("link"), p.get("version"), p.get("n"), request)
        }
        router.post("\(prefix)/b/:bucket/l/:link/publish") { [self] request, p in try publishLink(p.get("bucket"), p.get("link"), request) }
        router.delete("\(prefix)/b/:bucket/l/:link") { [self] request, p in try revokeLink(p.get("bucket"), p.get("link"), request) }
        router.get("\(prefix)/b/:bucket/links") { [self] request, p in try listLinks(p.get("bucket"), request) }
        router.post("\(prefix)/:link") { [self] request, p in try manifest(p.get("link"), request) }
        router.on("OPTIONS", "\(prefix)/:link") { _, _ in Self.manifestPreflight() }
        router.get("\(prefix)/f/:ticket") { [self] request, p in try linkFile(p.get("ticket"), request) }
    }
}
