import EfferentCommandLine
import Foundation

/// The operator's settings file, `/etc/efferent-server/efferent-server.conf` in the Debian package:
/// `option = value` lines naming `serve`'s long options (`data = /var/lib/efferent-server`,
/// `listen = 127.0.0.1:8750`, `trust-proxy = yes`), `#` comments and blank lines. Every command
/// takes from it the options it accepts and was not given, so `efferent-server invite` finds the
/// service's archives without flags; the command line wins, and `--data`, `--postgres` or
/// `EFFERENT_POSTGRES_URL` replace the file's store. `EFFERENT_SERVER_CONFIG` names another file
/// (empty: none). Without the file and the variable nothing changes.
struct ConfigFile {
    static let defaultPath = "/etc/efferent-server/efferent-server.conf"
    static let storeOptions: Set<String> = ["data", "postgres"]

    let path: String
    let entries: [(name: String, value: String)]

    /// The file to read: `EFFERENT_SERVER_CONFIG` when set (it must exist), else the default path
    /// when it exists; nil for none.
    static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(UsageError) -> ConfigFile? {
        let path: String
        if let named = environment["EFFERENT_SERVER_CONFIG"] {
            guard !named.isEmpty else { return nil }
            path = named
        } else {
            guard FileManager.default.fileExists(atPath: defaultPath) else { return nil }
            path = defaultPath
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("cannot read the settings file \(path) (EFFERENT_SERVER_CONFIG names it; set it empty for none).")
        }
        return try ConfigFile(path: path, text: String(decoding: data, as: UTF8.self), known: Serve.spec.options)
    }

    init(path: String, text: String, known: [CommandSpec.Option]) throws(UsageError) {
        self.path = path
        var entries: [(name: String, value: String)] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw UsageError("line \(number + 1) of \(path) is not 'option = value': \(line)")
            }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard let option = known.first(where: { $0.name == name }) else {
                throw UsageError("line \(number + 1) of \(path): '\(name)' is not an option of efferent-server serve (see efferent-server serve --help).")
            }
            if option.value == nil && !["yes", "no", "true", "false", "on", "off"].contains(value) {
                throw UsageError("line \(number + 1) of \(path): \(name) takes yes or no.")
            }
            guard !entries.contains(where: { $0.name == name }) else {
                throw UsageError("line \(number + 1) of \(path): \(name) is set twice; set it once.")
            }
            entries.append((name, value))
        }
        if entries.contains(where: { $0.name == "data" }) && entries.contains(where: { $0.name == "postgres" }) {
            throw UsageError("\(path) sets both data (a SQLite directory) and postgres (a database); keep one of them.")
        }
        self.entries = entries
    }

    /// The subcommand's arguments with the file's options it accepts put before those given (which
    /// win, being parsed last — and a setting given on the command line is not taken from the file).
    func arguments(for spec: CommandSpec, given: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let named = Set(given.prefix { $0 != "--" }.compactMap { argument -> String? in
            guard argument.hasPrefix("--") else { return nil }
            return String(argument.dropFirst(2).prefix { $0 != "=" })
        })
        let storeElsewhere = !named.isDisjoint(with: Self.storeOptions) || !(environment["EFFERENT_POSTGRES_URL"] ?? "").isEmpty
        var added: [String] = []
        for (name, value) in entries where !named.contains(name) {
            guard let option = spec.options.first(where: { $0.name == name }) else { continue }
            if Self.storeOptions.contains(name) && storeElsewhere { continue }
            if option.value == nil {
                if ["yes", "true", "on"].contains(value) { added.append("--" + name) }
            } else {
                added.append("--" + name + "=" + value)
            }
        }
        return added + given
    }
}
