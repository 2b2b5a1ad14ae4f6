enum ServerBench { static func run() throws {} }
