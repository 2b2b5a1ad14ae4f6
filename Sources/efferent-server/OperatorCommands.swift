import EfferentCommandLine
import EfferentCore
import EfferentServer
import Foundation

let dataOption = CommandSpec.Option("data", value: "DIR", help: "Directory holding the archive database.", default: "./efferent-data")

struct Invite: Subcommand {
    static let spec = CommandSpec(
        name: "invite",
        abstract: "Print a one-time invite code that lets one writer create an archive.",
        discussion: "Only a hash of the code is stored; the code is shown once. The service need not be stopped.",
        options: [dataOption, .init("expires", value: "DURATION", help: "How long the code stays valid: 30m, 12h, 7d.", default: "7d")])

    let data: String
    let seconds: Int

    init(_ arguments: ParsedArguments) throws(UsageError) {
        data = arguments.string("data", default: "./efferent-data")
        let text = arguments.string("expires", default: "7d")
        guard let unit = text.last, let n = Int(text.dropLast()), n > 0,
              let scale = ["m": 60, "h": 3600, "d": 86_400][String(unit)] else {
            throw UsageError("--expires takes a whole number followed by m, h or d, like 7d.")
        }
        seconds = n * scale
    }

    func run() throws -> Int32 {
        let store = try SQLiteArchiveStore(directory: data, readers: 1)
        let code = Invites.newCode()
        let now = Date()
        let expires = now.addingTimeInterval(TimeInterval(seconds))
        try store.addInvite(hash: Invites.hash(code), expires: expires, now: now)
        print(code)
        FileHandle.standardError.write(Data("valid until \(ISO8601DateFormatter().string(from: expires)); give it to one writer: efferent init --server URL --invite \(code)\n".utf8))
        return 0
    }
}

struct Backup: Subcommand {
    static let spec = CommandSpec(
        name: "backup",
        abstract: "Copy the archive into one SQLite file, consistently, while the service runs.",
        options: [dataOption, .init("to", value: "FILE", help: "The backup file to create (must not exist).")])

    let data: String
    let destination: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        data = arguments.string("data", default: "./efferent-data")
        destination = try arguments.required("to")
        if FileManager.default.fileExists(atPath: destination) {
            throw UsageError("\(destination) already exists; name a new file so no backup is overwritten.")
        }
    }

    func run() throws -> Int32 {
        let store = try SQLiteArchiveStore(directory: data, readers: 1)
        try store.backup(to: destination)
        let size = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
        print("backed up to \(destination) (\(size) bytes); restore by stopping the service and copying it to \(data)/\(SQLiteArchiveStore.fileName)")
        return 0
    }
}

struct Stats: Subcommand {
    static let spec = CommandSpec(name: "stats", abstract: "Show what the service holds: archives, days, bytes, edits.", options: [dataOption])

    let data: String

    init(_ arguments: ParsedArguments) throws(UsageError) { data = arguments.string("data", default: "./efferent-data") }

    func run() throws -> Int32 {
        let stats = try SQLiteArchiveStore(directory: data, readers: 1).serviceStats()
        print("archives       \(stats.buckets)")
        print("days           \(stats.days)")
        print("stored bytes   \(stats.storedBytes)")
        print("pending edits  \(stats.pendingEdits)")
        print("bytes taken    \(stats.taken) (ever handed over; counts against --max-service-bytes)")
        return 0
    }
}

struct RemoveBucket: Subcommand {
    static let spec = CommandSpec(
        name: "remove-bucket",
        abstract: "Delete one archive and everything in it (the service itself has no delete route).",
        options: [dataOption], arguments: [.init("ID", help: "The 26-character bucket id.")])

    let data: String
    let bucket: BucketID

    init(_ arguments: ParsedArguments) throws(UsageError) {
        data = arguments.string("data", default: "./efferent-data")
        guard let text = arguments.argument(0), let id = try? BucketID(text) else {
            throw UsageError("a bucket id is 26 characters of a–z and 2–7.")
        }
        bucket = id
    }

    func run() throws -> Int32 {
        let store = try SQLiteArchiveStore(directory: data, readers: 1)
        guard try store.removeBucket(bucket) else {
            FileHandle.standardError.write(Data("error: there is no archive \(bucket) here.\n".utf8))
            return 1
        }
        print("removed \(bucket)")
        return 0
    }
}
