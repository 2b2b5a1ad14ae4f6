import EfferentCore
import Foundation

/// The range figures of `scripts/bench server`: the service, the C floor answering the same signed
/// read and bare libmicrohttpd, each under wrk (32 connections) in turn, for several rounds. The
/// machine is shared, so the three take turns rather than running minutes apart, and each figure
/// is the median of its rounds (ratios: the median of each round's own ratio).
struct RangeRounds {
    struct Round {
        var service: Wrk
        /// Service CPU seconds per answer (utime + stime of its process).
        var serviceCPU: Double
        var floor: Wrk
        /// This process's CPU seconds per answer while the in-process floor served.
        var floorCPU: Double
        var bare: Wrk
        var underWrites: Wrk
        var uploadsDuring: Int
    }

    var rounds: [Round] = []

    /// `path` is read signed by `reader` (the service checks every signature; the floor checks
    /// the same one), the floor answers on `floorPort` and bare libmicrohttpd on `barePort`; in
    /// each round a writer also uploads `frames` to another archive while the service answers.
    static func run(server: BenchServer, reader: BenchWriter, path: String, floorPort: Int, barePort: Int,
                    frames: [[Frame.Day]], rounds count: Int = 3) throws -> RangeRounds {
        var result = RangeRounds()
        let busyWriter = BenchWriter()
        try busyWriter.claim(server.port)
        for _ in 0..<count {
            let pid = server.process.processIdentifier
            let serviceStart = CPUTime.seconds(of: pid)
            let service = try Wrk.run(url: "http://127.0.0.1:\(server.port)\(path)", threads: 2, connections: 32,
                                      headers: reader.signedRead(path).headers)
            let serviceCPU = (CPUTime.seconds(of: pid) - serviceStart) / Double(max(1, service.requests))
            let floorStart = CPUTime.seconds(of: nil)
            let floor = try Wrk.run(url: "http://127.0.0.1:\(floorPort)/range", threads: 2, connections: 32,
                                    headers: reader.signedRead(path).headers)
            let floorCPU = (CPUTime.seconds(of: nil) - floorStart) / Double(max(1, floor.requests))
            let bare = try Wrk.run(url: "http://127.0.0.1:\(barePort)/range", threads: 2, connections: 32)
            // The same readers while one writer keeps uploading month frames to another archive.
            let uploading = UploadLoop(writer: busyWriter, frames: frames, port: server.port)
            uploading.start()
            let underWrites = try Wrk.run(url: "http://127.0.0.1:\(server.port)\(path)", threads: 2, connections: 32,
                                          headers: reader.signedRead(path).headers)
            let uploads = uploading.stop()
            result.rounds.append(Round(service: service, serviceCPU: serviceCPU, floor: floor, floorCPU: floorCPU, bare: bare,
                                       underWrites: underWrites, uploadsDuring: uploads))
        }
        return result
    }

    /// The median of `value` over the rounds.
    func median(_ value: (Round) -> Double) -> Double {
        let sorted = rounds.map(value).sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// The lowest and highest of `value` over the rounds, as "a–b" with `digits` decimals.
    func spread(_ value: (Round) -> Double, digits: Int) -> String {
        let values = rounds.map(value)
        return String(format: "%.\(digits)f–%.\(digits)f", values.min() ?? 0, values.max() ?? 0)
    }

    var refused: Int { rounds.map { $0.service.non2xx + $0.underWrites.non2xx + $0.floor.non2xx }.reduce(0, +) }
}
