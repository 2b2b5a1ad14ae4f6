import EfferentCore

/// The recovery-kit extension's two calls (documents/protocol.md, "Recovery kits"): keep a sealed
/// record on the service, and fetch one by its locator.
extension ArchiveClient {
    /// What the service did with a record it kept.
    public struct KitAnswer: Sendable, Equatable {
        /// The locator held this archive's record already (a rotation's record, replaced).
        public let replaced: Bool
        /// Older records of this archive dropped to stay within the service's ceiling.
        public let dropped: Int
    }

    /// `PUT /kit/<locator>`, signed by the writer key for this client's bucket.
    public func putKit(_ locator: KitLocator, sealed: [UInt8], writer: Ed25519PrivateKey) async throws(ArchiveError) -> KitAnswer {
        let bucket = self.bucket
        let answer = try await send("PUT", "/kit/\(locator.rawValue)", body: sealed, contentType: "application/octet-stream",
                                    extra: [("x-efferent-bucket", bucket.rawValue)]) { now in
            (SignedHeaders(signing: SignedMessage.kit(bucket: bucket, locator: locator, timestamp: now, body: sealed), with: writer,
                           role: .writer, timestamp: now), [])
        }
        guard let json = try? JSONParser.parse(answer.body), case let .bool(replaced)? = json["replaced"],
              let dropped = json["dropped"]?.integerValue else {
            throw .unexpectedAnswer("a kit answer without replaced and dropped")
        }
        return KitAnswer(replaced: replaced, dropped: Int(dropped))
    }

    /// Whether the archive answers only signed reads (its owner registered a read key): an
    /// unsigned listing is then refused with 401 (§7). A reading key that does not derive the
    /// bucket (after a rotation) is proven by a signed read only where this holds.
    public func readsAreClosed() async throws(ArchiveError) -> Bool {
        do throws(ArchiveError) {
            _ = try await exchange(ClientRequest(method: "GET", target: base + "/days?limit=1"))
            return false
        } catch {
            guard error.status == 401 else { throw error }
            return true
        }
    }

    /// `GET /kit/<locator>`: the sealed record and the archive it was kept for, or nil when the
    /// service keeps none there.
    public func kit(_ locator: KitLocator) async throws(ArchiveError) -> (sealed: [UInt8], bucket: BucketID)? {
        do throws(ArchiveError) {
            let answer = try await exchange(ClientRequest(method: "GET", target: "/kit/\(locator.rawValue)", maxAnswerBytes: 4096))
            guard let text = answer.headers["x-efferent-bucket"], let bucket = try? BucketID(text) else {
                throw .unexpectedAnswer("a kit answer without the archive it belongs to")
            }
            return (answer.body, bucket)
        } catch where error.status == 404 {
            return nil
        }
    }
}
