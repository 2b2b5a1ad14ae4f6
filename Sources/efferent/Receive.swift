import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentHTTP
import EfferentReceiver
import EfferentSystem
import EfferentWriter
import Foundation

struct Receive: Subcommand {
    static let spec = CommandSpec(
        name: "receive",
        abstract: "Take what the PulsHealth app streams from an iPhone (Puls Sync Protocol v1), and seal and upload it.",
        discussion: """
        efferent receive [--listen ADDR:PORT]            run the receiver (stops on SIGTERM or SIGINT)
        efferent receive pair --url URL [--name NAME]    pair a phone: a token, the user ID, the link and its QR code
        efferent receive list                            the paired phones
        efferent receive revoke ID                       end one phone's token
        The receiver is the phone's trusted side: it holds the writer key and sees every sample, as
        `import` does. The archive service only ever sees sealed days. Changed days are sealed and
        uploaded once no batch has come for --debounce seconds; one JSON line per request, per
        batch and per upload goes to standard error.
        """,
        options: [
            .init("listen", value: "ADDR:PORT", help: "Where to listen; anything but loopback only when you ask.", default: "127.0.0.1:8751"),
            .init("profile", value: "DIR", help: "A writer profile to receive for (repeat for several people).", default: "EFFERENT_HOME",
                  repeatable: true),
            .init("tls-cert", value: "FILE", help: "PEM certificate chain; serve HTTPS directly (with --tls-key)."),
            .init("tls-key", value: "FILE", help: "PEM private key for --tls-cert."),
            .flag("trust-proxy", help: "Take the client address from X-Forwarded-For (only behind your own proxy)."),
            .init("debounce", value: "SECONDS", help: "Quiet time after the last batch before its days are sealed.", default: "30"),
            .init("longest-wait", value: "SECONDS", help: "The most a changed day waits while batches keep coming.", default: "600"),
            .init("connections-per-address", value: "N", help: "Connections one client address may hold open.", default: "32"),
            .init("body-memory", value: "MIB", help: "Memory all batches in flight may take together (503 with Retry-After past it; at least 129, as one batch may inflate to 128).",
                  default: "192"),
            PriorityOption.option,
            .init("url", value: "URL", help: "pair: the address the phone reaches this receiver at (https://…, or http:// on the local network)."),
            .init("name", value: "NAME", help: "pair: what to call the phone in list and status.", default: "iPhone"),
            .init("user", value: "UUID", help: "pair: the user ID the phone already sends (first pairing only).", default: "a new one"),
        ],
        arguments: [.init("VERB", help: "pair, list or revoke; none runs the receiver.", optional: true),
                    .init("ID", help: "revoke: the phone's number from list.", optional: true)])

    enum Action {
        case run(Listening)
        case pair(url: String, name: String, user: PulsUUID?)
        case list
        case revoke(Int64)
    }

    struct Listening {
        let listen: ListenAddress
        let profiles: [String]
        let tls: TLSCredentials?
        let trustProxy: Bool
        let debounce: Double
        let longestWait: Double
        let perAddress: Int
        let bodyMemory: Int?
        let priority: SourcePriority
    }

    let action: Action

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let verb = arguments.argument(0)
        let pairOnly = ["url", "name", "user"].filter { arguments.string($0) != nil }
        if verb != "pair", let option = pairOnly.first { throw UsageError("--\(option) goes with `receive pair`.") }
        if verb != nil, arguments.argument(0) != "revoke", arguments.argument(1) != nil {
            throw UsageError("`receive \(verb!)` takes no further argument.")
        }
        switch verb {
        case nil: action = .run(try Self.listening(arguments))
        case "pair":
            guard let url = arguments.string("url") else { throw UsageError("`receive pair` needs --url, the address the phone reaches this receiver at.") }
            guard url.hasPrefix("https://") || url.hasPrefix("http://"), URL(string: url)?.host != nil else {
                throw UsageError("--url must be a full URL starting with https:// (or http:// on the local network).")
            }
            var user: PulsUUID?
            if let text = arguments.string("user") {
                guard let uuid = PulsUUID(text) else { throw UsageError("--user takes a UUID such as 5ea4d000-0000-4000-8000-000000000001.") }
                user = uuid
            }
            let name = arguments.string("name", default: "iPhone").trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw UsageError("--name needs some text.") }
            action = .pair(url: url.hasSuffix("/") ? String(url.dropLast()) : url, name: name, user: user)
        case "list": action = .list
        case "revoke":
            guard let text = arguments.argument(1), let id = Int64(text), id > 0 else {
                throw UsageError("`receive revoke` needs the phone's number, as `receive list` shows it.")
            }
            action = .revoke(id)
        case let other?: throw UsageError("\(other.prefix(40)) is not a verb of receive; give pair, list or revoke, or none to run the receiver.")
        }
    }

    static func listening(_ arguments: ParsedArguments) throws(UsageError) -> Listening {
        let tls: TLSCredentials?
        switch (arguments.string("tls-key"), arguments.string("tls-cert")) {
        case (nil, nil): tls = nil
        case let (key?, certificate?):
            do { tls = try TLSCredentials(certificateFile: certificate, keyFile: key) } catch { throw UsageError(error.description) }
        default: throw UsageError("--tls-cert and --tls-key go together; give both or neither.")
        }
        func seconds(_ name: String, _ fallback: Double) throws(UsageError) -> Double {
            guard let text = arguments.string(name) else { return fallback }
            guard let value = Double(text), value >= 0.1, value <= 86_400 else { throw UsageError("--\(name) takes seconds from 0.1 to 86400.") }
            return value
        }
        return Listening(listen: try ListenAddress(parsing: arguments.string("listen", default: "127.0.0.1:8751")),
                         profiles: arguments.strings("profile"), tls: tls, trustProxy: arguments.flag("trust-proxy"),
                         debounce: try seconds("debounce", 30), longestWait: try seconds("longest-wait", 600),
                         perAddress: try arguments.integer("connections-per-address", default: 32, range: 1...100_000),
                         bodyMemory: arguments.string("body-memory") == nil ? nil
                             : try arguments.integer("body-memory", default: 192, range: 129...1_048_576) << 20,
                         priority: try PriorityOption.parse(arguments))
    }

    func run() async throws -> Int32 {
        switch action {
        case let .run(listening): return try await serve(listening)
        case let .pair(url, name, user): return try pair(url: url, name: name, user: user)
        case .list:
            let store = try ReceiverStore(store: WriterContext().store)
            let phones = try store.pairedPhones(today: store.store.zone.day(of: Date().timeIntervalSince1970))
            if phones.isEmpty { print("no phone is paired yet: efferent receive pair --url URL") }
            for phone in phones { print(Self.describe(phone)) }
            return 0
        case let .revoke(id):
            guard try ReceiverStore(store: WriterContext().store).revokePhone(id) else {
                note("no paired phone has the number \(id) (or it was revoked already); `efferent receive list` shows them")
                return 1
            }
            print("phone \(id) can no longer send; its token is refused from now on")
            return 0
        }
    }

    /// `#2  Anna's iPhone  paired 2026-11-30T…  last used …` (revoked phones say so).
    static func describe(_ phone: ReceiverStore.PairedPhone) -> String {
        func when(_ seconds: Double?) -> String {
            seconds.map { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: $0)) } ?? "never"
        }
        var line = "#\(phone.id)  \(phone.name)  paired \(when(phone.created))  last used \(when(phone.lastUsed))"
        if let revoked = phone.revoked { line += "  revoked \(when(revoked))" }
        return line
    }

    private func pair(url: String, name: String, user preferred: PulsUUID?) throws -> Int32 {
        let store = try ReceiverStore(store: WriterContext().store)
        let user = try store.phoneUser(preferred: preferred)
        let (id, token) = try store.pairPhone(name: name)
        let block = PairingBlock(url: url, token: token, user: user)
        print("Paired phone #\(id) (\(name)). In the PulsHealth app, add a server with these, or scan the code with the iPhone camera:")
        print("")
        print("  URL      \(url)")
        print("  token    \(token)")
        print("  user ID  \(user)")
        print("  link     \(block.link)")
        print("")
        for line in try block.qrLines(colors: Terminal.standardOutputIsTerminal) { print(line) }
        print("")
        print("The token is shown only now (the writer keeps its hash). `efferent receive list` shows the phones, `efferent receive revoke \(id)` ends this one.")
        return 0
    }

    private func serve(_ listening: Listening) async throws -> Int32 {
        // From here SIGTERM and SIGINT are events: they stop accepting, let batches in flight
        // finish, then stop sealing.
        let termination = TerminationSignal()
        let log: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
        let configuration = ReceiverConfiguration(log: log, trustProxy: listening.trustProxy, debounceSeconds: listening.debounce,
                                                  longestWaitSeconds: listening.longestWait, priority: listening.priority,
                                                  bodyBudgetBytes: listening.bodyMemory)
        let homes = listening.profiles.isEmpty ? [Profile.standard()] : listening.profiles.map(Profile.init(directory:))
        let profiles = try homes.map { home in
            try ReceiverProfile(context: try WriterContext(profile: home, retry: Environment.retryPolicy, onRetry: { text in
                log(LogLine(.info, ["retry": .text(text)]).json)
            }), configuration: configuration)
        }
        let receiver = try Receiver(profiles: profiles, configuration: configuration)
        // Batches in flight come and go in large buffers on many worker threads: given back whole.
        ProcessMemory.mapLargeBlocks()
        let daemon = try HTTPDaemon(configuration: .init(host: listening.listen.host, port: listening.listen.port,
                                                         connectionsPerAddress: listening.trustProxy ? 0 : listening.perAddress,
                                                         tls: listening.tls),
                                    responder: receiver)
        let url = listening.listen.url(scheme: listening.tls == nil ? "http" : "https", port: daemon.port)
        let reach = listening.listen.isLoopback
            ? "only this machine can reach \(url): put a proxy in front (Caddy, tailscale serve; documents/operations.md) at the URL the phone was paired with"
            : "the phone must reach this machine at \(url), or the URL it was paired with if a proxy stands in front"
        log(LogLine(.info, ["listening": .text(url), "writers": .count(profiles.count), "phone": .text(reach)]).json)
        receiver.start()
        // Waiting on a thread of its own: a pool thread held here (a one-core machine has one)
        // is one no task of the process could run on.
        await Blocking.onOwnThread { termination.wait() }
        daemon.shutDown(grace: 30)
        await receiver.stopped()
        log(LogLine(.info, ["stopped": .bool(true)]).json)
        return 0
    }
}
