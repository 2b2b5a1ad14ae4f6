import EfferentSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback port whose listener never accepts and whose queue is full, so the kernel drops
/// every further SYN and a connect hangs: a black-holed address without touching the firewall.
public final class BlackHole {
    public let port: Int
    private let listener: Int32
    private let fillers: [Int32]

    public init() throws {
        let listener = LoopbackSocket.open()
        self.listener = listener
        guard LoopbackSocket.bind(listener, port: 0), LoopbackSocket.listen(listener, backlog: 0) else { throw POSIXError(.EADDRINUSE) }
        port = LoopbackSocket.localPort(listener)
        var fillers = [Int32]()
        for _ in 0..<3 {
            let filler = LoopbackSocket.open(nonBlocking: true)
            LoopbackSocket.connect(filler, port: port)
            fillers.append(filler)
        }
        self.fillers = fillers
        usleep(200_000)
    }

    deinit {
        for filler in fillers { LoopbackSocket.close(filler) }
        LoopbackSocket.close(listener)
    }
}
