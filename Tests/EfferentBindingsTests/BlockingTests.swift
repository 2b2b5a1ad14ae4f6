import EfferentSystem
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The sealer's push runs on the sealer's own thread: its jobs, its child tasks' and the default
/// actors' it calls never wait for a thread of the cooperative pool, which a busy process (a test
/// run's blocking suites, a server's requests) can keep from it for longer than any debounce.
@Suite struct BlockingTests {
    @Test func asyncWorkStartedFromAPlainThreadRunsOnThatThread() async throws {
        let (caller, ran) = await Self.onPlainThread { () -> (UInt, Result<[UInt], any Error>) in
            let caller = UInt(pthread_self())
            return (caller, Blocking.run { () async throws -> [UInt] in
                var threads = [UInt(pthread_self())]
                threads.append(await Tally().thread())
                threads += await withTaskGroup(of: UInt.self) { group in
                    for _ in 0..<3 { group.addTask { UInt(pthread_self()) } }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                // Resumed by another thread, as libcurl's answers are.
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in Thread { done.resume() }.start() }
                threads.append(UInt(pthread_self()))
                return threads
            })
        }
        let threads = try ran.get()
        #expect(threads.count == 6)
        #expect(threads.allSatisfy { $0 == caller }, "every job on the waiting thread, none on the pool")
    }

    @Test func aThrownErrorComesBack() async {
        let ran = await Self.onPlainThread { Blocking.run { () async throws -> Int in throw Refused() } }
        #expect(throws: Refused.self) { try ran.get() }
    }

    struct Refused: Error {}

    /// A default actor: without a task executor preference its methods run on the pool.
    actor Tally {
        func thread() -> UInt { UInt(pthread_self()) }
    }

    /// `work` on a thread of its own (as the sealer's), awaited without holding a pool thread.
    static func onPlainThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { done in Thread { done.resume(returning: work()) }.start() }
    }
}
