import Benchmark
import Courier
import Foundation

/// Courier's micro and macro benchmarks (package-benchmark). Each request benchmark runs one
/// request per iteration; thresholds for their p90s are kept in `Thresholds/`, and
/// `swift package benchmark thresholds check` fails when a figure regresses past them.
/// Names have no spaces or slashes: the threshold files are written with those replaced by `_`
/// but looked up with the name as it is (package-benchmark 1.38.1).
let benchmarks: @Sendable () -> Void = {
    // CPU time is sampled too coarsely for one small request; allocations and wall clock are not.
    // (Throughput is wall clock inverted, and its p90 is the slow tail: noise on a shared machine.)
    let requestMetrics: [BenchmarkMetric] = [.mallocCountTotal, .wallClock]
    // Allocations are the stable signal (a regression of 10 % fails); times on a shared machine
    // are not, so they only fail past a doubling.
    let tolerances: [BenchmarkMetric: BenchmarkThresholds] = [
        .mallocCountTotal: .init(relative: [.p90: 10]),
        .wallClock: .init(relative: [.p90: 100]),
    ]
    let quick = ProcessInfo.processInfo.environment["COURIER_BENCH_SMOKE"] != nil
    let smallDuration: Duration = quick ? .milliseconds(300) : .seconds(3)
    let largeDuration: Duration = quick ? .milliseconds(300) : .seconds(10)

    let small = Benchmark.Configuration(
        metrics: requestMetrics, warmupIterations: quick ? 5 : 100, scalingFactor: .one,
        maxDuration: smallDuration, maxIterations: quick ? 20 : 5_000, thresholds: tolerances,
        teardown: { await fixture.shutdown() }
    )
    let large = Benchmark.Configuration(
        metrics: [.cpuTotal, .wallClock, .peakMemoryResident, .mallocCountTotal], warmupIterations: 1,
        scalingFactor: .one, maxDuration: largeDuration, maxIterations: quick ? 1 : 10,
        thresholds: [.mallocCountTotal: .init(relative: [.p90: 25]), .cpuTotal: .init(relative: [.p90: 100]),
                     .wallClock: .init(relative: [.p90: 100]), .peakMemoryResident: .init(relative: [.p90: 50])],
        teardown: { await fixture.shutdown() }
    )

    func requestBenchmark(_ name: String, _ configuration: Benchmark.Configuration,
                          _ body: @escaping @Sendable (BenchFixture.Endpoints) async throws -> Int) {
        Benchmark(name, configuration: configuration) { benchmark in
            let endpoints = try await fixture.endpoints()
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(try await body(endpoints))
            }
        }
    }

    // Small GETs, one per iteration, body kept in memory.
    requestBenchmark("GET_200B_HTTPSessionManager", small) { try await Requests.sessionGET($0.small) }
    requestBenchmark("GET_200B_async_API", small) { try await Requests.asyncGET($0.small) }
    requestBenchmark("GET_200B_HTTPRequestOperationManager", small) { try await Requests.operationGET($0.small) }
    requestBenchmark("GET_200B_raw_AsyncHTTPClient", small) { try await Requests.clientGET($0.small) }

    // Transfers (64 MiB by default), one per iteration.
    requestBenchmark("Download_discarded_Courier", large) { try await Requests.sessionDownloadDiscarding($0.large) }
    requestBenchmark("Download_discarded_raw_AsyncHTTPClient", large) { try await Requests.clientDownloadDiscarding($0.large) }
    requestBenchmark("Download_to_file_Courier", large) { try await Requests.sessionDownloadToFile($0.large) }
    requestBenchmark("Download_to_file_AsyncHTTPClient_FileDownloadDelegate", large) {
        try await Requests.clientDownloadToFile($0.large)
    }
    requestBenchmark("Upload_from_file_Courier", large) { endpoints in
        try await Requests.sessionUpload(try fixture.uploadFile(), to: endpoints.upload)
    }
    requestBenchmark("Upload_multipart_part_from_file_Courier", large) { endpoints in
        try await Requests.sessionMultipartUpload(try fixture.uploadFile(), to: endpoints.multipartUpload)
    }

    // JSON response serialization of a 10 MB document, against Foundation directly.
    let json = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal], warmupIterations: 1, scalingFactor: .one,
        maxDuration: quick ? .milliseconds(300) : .seconds(5), maxIterations: quick ? 1 : 30,
        thresholds: [.mallocCountTotal: .init(relative: [.p90: 10]), .cpuTotal: .init(relative: [.p90: 100]),
                     .wallClock: .init(relative: [.p90: 100])]
    )
    Benchmark("JSON_10MB_JSONResponseSerializer", configuration: json) { benchmark in
        let data = JSONDocument.data
        let response = JSONDocument.response
        let serializer = JSONResponseSerializer()
        benchmark.startMeasurement()
        blackHole(try serializer.responseObject(for: response, data: data))
    }
    Benchmark("JSON_10MB_JSONSerialization", configuration: json) { benchmark in
        let data = JSONDocument.data
        benchmark.startMeasurement()
        blackHole(try JSONSerialization.jsonObject(with: data, options: []))
    }
    Benchmark("JSON_10MB_JSONDecoder", configuration: json) { benchmark in
        let data = JSONDocument.data
        let decoder = JSONDecoder()
        benchmark.startMeasurement()
        blackHole(try decoder.decode([JSONDocument.Record].self, from: data))
    }
}
