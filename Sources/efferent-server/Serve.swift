import EfferentCommandLine
import EfferentHTTP
import EfferentServer
import EfferentSystem
import Foundation

struct Serve: Subcommand {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Run the archive service.",
        discussion: "Stops on SIGTERM or SIGINT after the requests in flight finish. Logs one JSON line per request on stderr.",
        options: StoreChoice.options + [StoreChoice.poolOption,
            .init("listen", value: "ADDR:PORT", help: "Numeric address and port to listen on ([::1]:8750 for IPv6).", default: "127.0.0.1:8750"),
            .init("admission", value: "invite|open", help: "Who may create an archive: holders of an invite code, or anyone.", default: "invite"),
            .init("public-url", value: "URL", help: "The address people reach this service at, used in MCP answers.", default: "the request's Host"),
            .flag("trust-proxy", help: "Take the client address from X-Forwarded-For (only behind your own proxy, which buffers request bodies)."),
            .init("tls-cert", value: "FILE", help: "PEM certificate chain; serve HTTPS directly (with --tls-key)."),
            .init("tls-key", value: "FILE", help: "PEM private key for --tls-cert."),
            .init("max-bucket-bytes", value: "N", help: "Bytes one archive may ever be handed.", default: "536870912 (512 MiB)"),
            .init("max-service-bytes", value: "N", help: "Bytes the whole service may ever be handed.", default: "107374182400 (100 GiB)"),
            .init("rate-limits", value: "SPEC", help: "Requests per client address per minute, or 'off'.", default: "claims=5,writes=300,edits=60,links=120,kits=30"),
            .init("max-connections", value: "N", help: "Connections open at once (past it, or past an address's share, the slowest head is closed).", default: "8192"),
            .init("connections-per-address", value: "N", help: "Connections one client address may hold open (with --trust-proxy: requests in flight per forwarded address).", default: "32"),
            .init("body-memory", value: "MIB", help: "Memory all request bodies in flight may take together (503 with Retry-After past it).", default: "256"),
            .init("idle-timeout", value: "SECONDS", help: "Close a connection idle this long between requests.", default: "30"),
            .init("head-timeout", value: "SECONDS", help: "Close a connection whose request head has not all arrived by then, however its bytes trickle.", default: "10"),
        ])

    let store: StoreChoice
    let host: String
    let port: Int
    let configuration: ServiceConfiguration
    let tls: TLSCredentials?
    let maxConnections: Int
    let perAddress: Int
    let idleTimeout: Int
    let headTimeout: Int

    init(_ arguments: ParsedArguments) throws(UsageError) {
        store = try StoreChoice(arguments)
        let listen = try ListenAddress(parsing: arguments.string("listen", default: "127.0.0.1:8750"))
        (host, port) = (listen.host, listen.port)
        guard let admission = ServiceConfiguration.Admission(rawValue: arguments.string("admission", default: "invite")) else {
            throw UsageError("--admission takes invite or open.")
        }
        guard let limits = RateLimits.parse(arguments.string("rate-limits", default: "claims=5,writes=300,edits=60,links=120,kits=30")) else {
            throw UsageError("--rate-limits takes 'off' or a list like claims=5,writes=300,edits=60,links=120,kits=30 with whole numbers above 0.")
        }
        let quota = Quota(bucketBytes: Int64(try arguments.integer("max-bucket-bytes", default: Int(Quota().bucketBytes), range: 1...Int.max)),
                          serviceBytes: Int64(try arguments.integer("max-service-bytes", default: Int(Quota().serviceBytes), range: 1...Int.max)))
        let publicURL = arguments.string("public-url")
        if let publicURL, !(publicURL.hasPrefix("http://") || publicURL.hasPrefix("https://")) {
            throw UsageError("--public-url must start with http:// or https://.")
        }
        let trustProxy = arguments.flag("trust-proxy")
        perAddress = try arguments.integer("connections-per-address", default: 32, range: 1...100_000)
        let bodyMemory = try arguments.integer("body-memory", default: Router.Configuration.defaultBodyBudgetBytes >> 20, range: 8...1_048_576)
        var configuration = ServiceConfiguration(admission: admission, publicURL: publicURL, trustProxy: trustProxy,
                                                 quota: quota, rateLimits: limits, requestsPerClient: trustProxy ? perAddress : nil,
                                                 bodyBudgetBytes: bodyMemory << 20)
        switch (arguments.string("tls-key"), arguments.string("tls-cert")) {
        case (nil, nil): tls = nil
        case let (key?, certificate?):
            do {
                tls = try TLSCredentials(certificateFile: certificate, keyFile: key)
            } catch {
                throw UsageError(error.description)
            }
        default: throw UsageError("--tls-cert and --tls-key go together; give both or neither.")
        }
        configuration.servesTLS = tls != nil
        self.configuration = configuration
        maxConnections = try arguments.integer("max-connections", default: HTTPDaemon.Configuration.defaultConnectionLimit, range: 16...1_000_000)
        idleTimeout = try arguments.integer("idle-timeout", default: 30, range: 1...3600)
        headTimeout = try arguments.integer("head-timeout", default: 10, range: 1...3600)
    }

    func run() throws -> Int32 {
        // Listening for SIGTERM before the "listening" line goes out: a supervisor (or a test)
        // that stops the server as soon as it announces itself must not find the signal ignored
        // and the handler not yet in place.
        let termination = TerminationSignal()
        let store = try self.store.open()
        let service = ArchiveService(store: store, configuration: configuration)
        // Uploads in flight come and go in large buffers on many worker threads: given back whole.
        ProcessMemory.mapLargeBlocks()
        // Behind a trusted proxy every connection comes from the proxy: the cap moves to requests
        // per forwarded address (the router's), so one slow client cannot use up everyone's.
        let daemon = try HTTPDaemon(configuration: .init(host: host, port: port, connectionLimit: maxConnections,
                                                         idleTimeoutSeconds: idleTimeout,
                                                         connectionsPerAddress: configuration.trustProxy ? 0 : perAddress, tls: tls,
                                                         headTimeoutSeconds: Double(headTimeout)),
                                    responder: service)
        if let sqlite = store as? SQLiteArchiveStore, !sqlite.tightened.isEmpty {
            StandardError.writeLine(LogLine(.warning, ["madeOwnerOnly": .list(sqlite.tightened.map(LogLine.Field.text)),
                                                       "note": .text("others could read these archive files; they are 0600 now")]).json)
        }
        let location = StoreChoice.describe(store)
        let scheme = tls == nil ? "http" : "https"
        let shown = host.contains(":") ? "[\(host)]" : host
        StandardError.writeLine(LogLine(.info, [("listening", .text("\(scheme)://\(shown):\(daemon.port)")),
                                                ("admission", .text(configuration.admission.rawValue)), (location.key, .text(location.value))]).json)

        // Shared links' files go when they expire, whether or not anyone asks for them.
        service.linkSweeper.start()

        // SIGTERM / SIGINT: stop accepting, let requests in flight finish, then exit.
        termination.wait()
        daemon.shutDown(grace: 30)
        service.linkSweeper.stop()
        StandardError.writeLine(LogLine(.info, ["stopped": .bool(true)]).json)
        return 0
    }
}
