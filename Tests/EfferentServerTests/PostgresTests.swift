import EfferentPostgres
import EfferentHTTP
import EfferentCore
@testable import EfferentServer
import EfferentServiceTestSupport
import EfferentTestSupport
import Foundation
import Testing

/// What only the PostgreSQL store has to prove: several `efferent-server` processes on one
/// database keep every promise SQLite's single writer kept, migrations race safely, a lost
/// database answers 503, and `migrate-store` moves a SQLite archive without losing an upload time.
/// The route suite itself runs on PostgreSQL through `ServiceKind`.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.clusterURL != nil, PostgresTestDatabase.missingClusterReason))
struct PostgresTests {
    /// Sends `requests` all at once, alternating between the two processes; statuses in order.
    static func hammer(_ requests: [HTTPRequest], ports: [Int]) async throws -> [HTTPResponse] {
        try await withThrowingTaskGroup(of: (Int, HTTPResponse).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { (index, try await Loopback.send(request, port: ports[index % ports.count])) }
            }
            var responses = [HTTPResponse?](repeating: nil, count: requests.count)
            for try await (index, response) in group { responses[index] = response }
            return responses.map { $0! }
        }
    }

    @Test func twoProcessesKeepEveryInvariantUnderConcurrentLoad() async throws {
        let database = try PostgresTestDatabase()
        // A store of the test's own on the same database: invites in, the truth read back.
        let store = try PostgresArchiveStore(url: database.url, connections: 2)
        let oneUpload = try StandInWriter().upload([day("2026-01-01")]).body.count
        // Two processes without ceilings for claims and edits, then two with them for uploads.
        let first = try ServerProcess(store: ["--postgres", database.url], arguments: ["--admission", "invite", "--rate-limits", "off", "--connections-per-address", "256"])
        let second = try ServerProcess(store: ["--postgres", database.url], arguments: ["--admission", "invite", "--rate-limits", "off", "--connections-per-address", "256"])
        var ports = [first.port, second.port]
        let now = Date()

        // One invite code, twenty writers of twenty buckets presenting it at once: one wins.
        let shared = Invites.newCode()
        try store.addInvite(hash: Invites.hash(shared), expires: now.addingTimeInterval(600), now: now)
        let strangers = (0..<20).map { _ in StandInWriter() }
        let sharedClaims = try await Self.hammer(strangers.map { $0.claim(invite: shared) }, ports: ports)
        #expect(sharedClaims.filter { $0.status == 201 }.count == 1)
        #expect(sharedClaims.filter { $0.status == 403 && $0.error!.contains("used already") }.count == 19)
        #expect(try strangers.filter { try store.bucket($0.bucket) != nil }.count == 1)

        // Twenty writers with codes of their own claiming one bucket at once: one keeps it, and the
        // nineteen losers' codes stay unused.
        let contested = StandInWriter()
        let keys = (0..<20).map { _ in Ed25519PrivateKey() }
        let codes = keys.map { _ in Invites.newCode() }
        for code in codes { try store.addInvite(hash: Invites.hash(code), expires: now.addingTimeInterval(600), now: now) }
        let claims = try await Self.hammer(zip(keys, codes).map { contested.claim(invite: $1, key: $0) }, ports: ports)
        #expect(claims.filter { $0.status == 201 }.count == 1)
        #expect(claims.filter { $0.status == 403 && $0.error == "this bucket already belongs to another writer" }.count == 19)
        let winner = try #require(claims.firstIndex { $0.status == 201 })
        #expect(try store.bucket(contested.bucket)?.writer == keys[winner].publicKey)
        let unused = try store.use { db in try db.query("SELECT count(*) FROM invite WHERE used IS NULL").int64(0, 0) }
        #expect(unused == 19)

        // Sixty edits posted at once (before the uploads fill the service): sixty unique names, listed in order. Then each answered twice
        // at once from both processes: every one answered, none left sealed.
        let editing = StandInWriter()
        let code = Invites.newCode()
        try store.addInvite(hash: Invites.hash(code), expires: now.addingTimeInterval(600), now: now)
        #expect(try await Loopback.send(editing.claim(invite: code), port: first.port).status == 201)
        #expect(try await Loopback.send(editing.registerEditor(), port: second.port).status == 201)
        let posts = try await Self.hammer(try (0..<60).map { _ in try editing.postEdit(EditQueueTests.meal) }, ports: ports)
        #expect(posts.allSatisfy { $0.status == 201 }, "\(posts.map { "\($0.status) \($0.error ?? "")" })")
        let names = try posts.map { try EditName(try #require($0.json?["name"]?.stringValue)) }
        #expect(Set(names).count == 60, "edit names are unique across processes")
        let listed = try store.listEdits(editing.bucket, after: nil, limit: 100, includeAnswered: false).map(\.name)
        #expect(listed == names.sorted() && listed.count == 60)
        let outcome = EditOutcome(applied: 1, failed: [])
        let answered = try await Self.hammer(names.flatMap { [editing.answer($0, outcome), editing.answer($0, outcome)] }, ports: ports)
        #expect(answered.allSatisfy { $0.status == 200 })
        let left = try store.use { db in
            try db.query("SELECT count(*) FROM edit WHERE bucket = $1::text AND (answered IS NULL OR sealed IS NOT NULL OR outcome IS NULL)",
                         [.text(editing.bucket.rawValue)]).int64(0, 0)
        }
        #expect(left == 0, "an outcome is never recorded without the sealed edit's removal, nor the reverse")
        #expect(try store.serviceStats().pendingEdits == 0)

        #expect(first.terminate() == 0 && second.terminate() == 0)
        let taken = try store.serviceStats().taken
        let bucketCeiling = Int64(oneUpload * 6 + oneUpload / 2)
        let serviceCeiling = taken + Int64(oneUpload * 40 + oneUpload / 2)
        let arguments = ["--admission", "invite", "--rate-limits", "off", "--connections-per-address", "256",
                         "--max-bucket-bytes", "\(bucketCeiling)", "--max-service-bytes", "\(serviceCeiling)"]
        let third = try ServerProcess(store: ["--postgres", database.url], arguments: arguments)
        let fourth = try ServerProcess(store: ["--postgres", database.url], arguments: arguments)
        ports = [third.port, fourth.port]

        // Eight buckets, ten uploads each, all eighty at once: each bucket's ceiling admits six,
        // the service's forty in all. The tallies count exactly the accepted bytes.
        let writers = (0..<8).map { _ in StandInWriter() }
        for writer in writers {
            let code = Invites.newCode()
            try store.addInvite(hash: Invites.hash(code), expires: now.addingTimeInterval(600), now: now)
            #expect(try await Loopback.send(writer.claim(invite: code), port: third.port).status == 201)
        }
        var uploads = [(writer: Int, day: CalendarDay, request: HTTPRequest)]()
        for (index, writer) in writers.enumerated() {
            for day in days(from: "2025-01-01", count: 10) { uploads.append((index, day, try writer.upload([day]))) }
        }
        uploads.shuffle()
        let answers = try await Self.hammer(uploads.map(\.request), ports: ports)
        #expect(answers.allSatisfy { $0.status == 200 || $0.status == 507 })
        #expect(answers.contains { $0.error == "this bucket has been handed all the \(bucketCeiling) bytes it may ever hold; its operator can raise the ceiling" })
        var acceptedBytes = [Int64](repeating: 0, count: writers.count)
        var acceptedDays = [Set<CalendarDay>](repeating: [], count: writers.count)
        for (upload, answer) in zip(uploads, answers) where answer.status == 200 {
            acceptedBytes[upload.writer] += Int64(upload.request.body.count)
            acceptedDays[upload.writer].insert(upload.day)
        }
        for (index, writer) in writers.enumerated() {
            let record = try #require(try store.bucket(writer.bucket))
            #expect(record.taken == acceptedBytes[index], "no lost update on the bucket's tally")
            #expect(record.taken <= bucketCeiling)
            let listed = try store.listDays(writer.bucket, after: nil, through: nil, limit: 100)
            #expect(Set(listed.map(\.day)) == acceptedDays[index], "stored days are exactly the accepted ones")
        }
        let total = acceptedBytes.reduce(0, +)
        #expect(try store.serviceStats().taken == taken + total, "no lost update on the service tally")
        #expect(taken + total <= serviceCeiling)
        #expect(total >= Int64(oneUpload) * 39, "the ceilings, not a failure, turned uploads away")

        // One day re-sent ten times at once: each upload's time is later than the one before it.
        let resender = writers[0]
        let resentDay = try #require(acceptedDays[0].min())
        let before = try #require(try store.day(resender.bucket, resentDay)).uploaded
        let storedBefore = try store.serviceStats().taken
        var resends = [HTTPRequest]()
        for _ in 0..<10 { resends.append(try resender.upload([resentDay])) }
        let resent = try await Self.hammer(resends, ports: ports)
        let resentCount = resent.filter { $0.status == 200 }.count
        #expect(try store.day(resender.bucket, resentDay)!.uploaded >= before + Int64(resentCount))
        let storedAfter = try store.serviceStats().taken
        #expect(resentCount == 0 || storedAfter > storedBefore)

        #expect(third.terminate() == 0 && fourth.terminate() == 0)
    }

    /// Two services, each with a store of its own on one database (as two processes have), and one
    /// clock held at the start of a minute, so all twelve claims fall in the same minute whatever
    /// the wall clock says.
    @Test func rateLimitsAreSharedBetweenProcesses() async throws {
        let database = try PostgresTestDatabase()
        let now = Date().timeIntervalSince1970
        let minute = Date(timeIntervalSince1970: now - now.truncatingRemainder(dividingBy: 60))
        let limits = RateLimits(claims: 5, writes: 300, edits: 60)
        let first = try RunningService(postgres: database, rateLimits: limits, clock: { minute })
        let second = try RunningService(postgres: database, rateLimits: limits, clock: { minute })
        let claims = (0..<12).map { _ in StandInWriter(clock: Int64(minute.timeIntervalSince1970)).claim() }
        let answers = try await Self.hammer(claims, ports: [first.port, second.port])
        #expect(answers.filter { $0.status == 201 }.count == 5, "five claims a minute from one address, whichever service takes them")
        #expect(answers.filter { $0.status == 429 && $0.header("retry-after") == "60" }.count == 7)
    }

    @Test func processesStartingTogetherMigrateOnce() async throws {
        let database = try PostgresTestDatabase()
        let url = database.url
        let opened = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 { group.addTask { (try? PostgresArchiveStore(url: url, connections: 1)) != nil } }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(opened == [Bool](repeating: true, count: 6))
        let store = try PostgresArchiveStore(url: url, connections: 1)
        let versions = try store.use { db in
            let rows = try db.query("SELECT version FROM migration ORDER BY version")
            return (0..<rows.count).map { rows.int64($0, 0) }
        }
        #expect(versions == PostgresSchema.migrations.map { Int64($0.version) })

        // A database written by a newer service is refused with a sentence, not used.
        try store.use { db in _ = try db.query("INSERT INTO migration (version, applied) VALUES (999, 0)") }
        #expect(throws: StoreError.newerSchema(999)) { try PostgresArchiveStore(url: url, connections: 1) }
    }

    @Test func aLostDatabaseAnswers503AndTheServiceRecovers() async throws {
        // The store logs in as a role of its own, so the test can lock it out of the shared cluster.
        let database = try PostgresTestDatabase()
        let cluster = try #require(PostgresTestDatabase.clusterURL)
        let admin = try PostgresConnection(url: cluster)
        let role = database.schema + "_role"
        try admin.execute("CREATE ROLE \(role) LOGIN; ALTER SCHEMA \(database.schema) OWNER TO \(role)")
        defer { try? admin.execute("DROP OWNED BY \(role) CASCADE; DROP ROLE \(role)") }
        let user = try #require(database.url.range(of: "://efferent@"))
        let url = database.url.replacingCharacters(in: user, with: "://\(role)@")
        let store = try PostgresArchiveStore(url: url, connections: 4)
        let service = ArchiveService(store: store, configuration: ServiceConfiguration(admission: .open, rateLimits: nil, log: nil))
        let writer = StandInWriter()
        #expect(service.respond(to: writer.claim()).status == 201)

        // Every connection cut and no new one allowed, as while the database restarts.
        try admin.execute("ALTER ROLE \(role) NOLOGIN")
        let cut = try admin.query("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = $1::text", [.text(role)])
        #expect(cut.int64(0, 0) >= 1)
        for request in [writer.read("/b/\(writer.bucket)/stats"), try writer.upload([day("2026-01-01")])] {
            let refused = service.respond(to: request)
            #expect(refused.status == 503)
            #expect(refused.error == "the archive's database cannot be reached just now; try again shortly")
            #expect(refused.header("retry-after") == "5")
        }

        // Back again: the next requests are served on fresh connections.
        try admin.execute("ALTER ROLE \(role) LOGIN")
        #expect(service.respond(to: try writer.upload([day("2026-01-01")])).status == 200)
        #expect(try store.stats(writer.bucket).days == 1)
    }

    @Test func aMalformedURLIsRefusedWithoutQuotingIt() throws {
        for url in ["postgresql://efferent:hunter2@[::1/db", "postgresql://efferent:hun%zzter2@127.0.0.1/db"] {
            do {
                _ = try PostgresArchiveStore(url: url, connections: 1)
                Issue.record("a malformed URL was accepted")
            } catch {
                let text = String(describing: error)
                #expect(!text.contains("hunter2") && !text.contains("hun%zzter2"), "\(text)")
                #expect(text.contains("the PostgreSQL URL cannot be read"))
            }
        }
        // A well-formed URL to nowhere names the place, never the password.
        do {
            _ = try PostgresArchiveStore(url: "postgresql://efferent:hunter2@127.0.0.1:1/db", connections: 1)
            Issue.record("a closed port was reached")
        } catch {
            #expect(!String(describing: error).contains("hunter2"))
            #expect((error as? StoreError)?.isUnavailable == true)
        }
    }

    @Test func migrateStoreMovesASQLiteArchiveKeepingUploadTimes() async throws {
        // A SQLite service with an archive in every state: days uploaded twice, a read and an
        // editor key, one edit answered and one waiting, invites used and unused, a kit's record.
        let source = try TestService(.inProcess, admission: .invite)
        let now = Date(timeIntervalSince1970: source.clockSeconds)
        let sqlite = try #require(source.store as? SQLiteArchiveStore)
        let used = Invites.newCode(), spare = Invites.newCode()
        try sqlite.addInvite(hash: Invites.hash(used), expires: now.addingTimeInterval(3600), now: now)
        try sqlite.addInvite(hash: Invites.hash(spare), expires: now.addingTimeInterval(3600), now: now)
        let writer = StandInWriter(clock: Int64(source.clockSeconds))
        #expect(try await source.send(writer.claim(invite: used)).status == 201)
        let month = days(from: "2026-03-01", count: 31)
        #expect(try await source.send(try writer.upload(month)).status == 200)
        #expect(try await source.send(try writer.upload(Array(month.prefix(3)))).status == 200)
        #expect(try await source.send(writer.registerReader()).status == 201)
        #expect(try await source.send(writer.registerEditor()).status == 201)
        let answeredName = try EditName(try #require(try await source.send(try writer.postEdit(EditQueueTests.meal)).json?["name"]?.stringValue))
        #expect(try await source.send(writer.answer(answeredName, EditOutcome(applied: 1, failed: []))).status == 200)
        #expect(try await source.send(try writer.postEdit(EditQueueTests.meal)).status == 201)
        // A shared link with a passcode, opened once (decision A.15).
        var owner = LinkTests.Owner(clock: source.clockSeconds)
        owner.writer = writer
        let (link, jwe) = try await LinkTests.publishedLink(source, owner, passcode: "migrated 42")
        #expect(try await source.send(LinkTests.manifest(link, passcode: "migrated 42")).status == 200)
        let kitLocator = try KitLocator(KitRouteTests.locator(7))
        #expect(try await source.send(try KitRouteTests.put(writer, kitLocator.rawValue, Array(repeating: 9, count: 300))).status == 201)

        let database = try PostgresTestDatabase()
        let migrate = ["migrate-store", "--from", "sqlite:\(source.directory)", "--to", "postgres:\(database.url)"]
        let copied = try ServerProcess.run(migrate)
        #expect(copied.status == 0)
        #expect(copied.stdout.contains("copied 1 archive, 31 days"), "\(copied.stdout)")

        let target = try PostgresArchiveStore(url: database.url, connections: 2)
        #expect(try target.serviceStats() == sqlite.serviceStats())
        #expect(try target.bucket(writer.bucket) == sqlite.bucket(writer.bucket))
        #expect(try target.listDays(writer.bucket, after: nil, through: nil, limit: 100)
                == sqlite.listDays(writer.bucket, after: nil, through: nil, limit: 100), "every upload time kept")
        #expect(try target.day(writer.bucket, month[0]) == sqlite.day(writer.bucket, month[0]))
        #expect(try target.listEdits(writer.bucket, after: nil, limit: 10, includeAnswered: true)
                == sqlite.listEdits(writer.bucket, after: nil, limit: 10, includeAnswered: true))
        #expect(try target.outcome(writer.bucket, name: answeredName) == sqlite.outcome(writer.bucket, name: answeredName))
        #expect(try target.links(of: writer.bucket) == sqlite.links(of: writer.bucket), "the link, its files and who opened it")
        #expect(try target.kit(kitLocator) == sqlite.kit(kitLocator) && target.kit(kitLocator) != nil, "recovery kits' records move too")

        // The new service carries on: the used code stays used, the spare one admits a writer,
        // and a re-upload's time follows the migrated one.
        let service = ArchiveService(store: target, configuration: ServiceConfiguration(admission: .invite, rateLimits: nil, log: nil))
        #expect(service.respond(to: StandInWriter().claim(invite: used)).status == 403)
        #expect(service.respond(to: StandInWriter().claim(invite: spare)).status == 201)
        let before = try #require(try target.day(writer.bucket, month[5])).uploaded
        var later = writer
        later.clock = Int64(Date().timeIntervalSince1970)
        #expect(service.respond(to: try later.upload([month[5]])).status == 200)
        #expect(try target.day(writer.bucket, month[5])!.uploaded > before)
        let opened = service.respond(to: LinkTests.manifest(link, passcode: "migrated 42"))
        #expect(opened.status == 200)
        let files = try JSONParser.parse(opened.body)["files"]?.arrayValue
        #expect(files?.first?["embedded"]?.stringValue == jwe)

        // A second run finds the database in use and copies nothing.
        let again = try ServerProcess.run(migrate)
        #expect(again.status == 1)
        #expect(again.stderr.contains("already holds archives or invites; migrate-store only fills an empty one, so nothing was copied"))
        #expect(try target.serviceStats().buckets == 2)
    }
}
