// Times `count` GETs of `<base>/todos/<1…100>` through the product's HTTP client, `concurrency`
// at a time, on one libuv loop as the binary runs them, and prints one JSON line:
// {"requests":N,"failures":F,"seconds":S,"cpuSeconds":C}. CPU is this process's user+system time.
import EventLoop
import Networking

#if canImport(Glibc)
  import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[2]), let concurrency = Int(arguments[3]),
  count > 0, concurrency > 0
else {
  let usage = "usage: http-bench BASE-URL COUNT CONCURRENCY\n"
  _ = usage.withCString { write(STDERR_FILENO, $0, strlen($0)) }
  exit(64)
}
let base = arguments[1]

func cpuSeconds() -> Double {
  var usage = rusage()
  getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
  let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
  let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
  return user + system
}

/// Runs the GETs: worker `w` of `concurrency` takes requests w, w + concurrency, … so the
/// workers share nothing.
func fetchAll(client: HTTPClient) async -> Int {
  await withTaskGroup(of: Int.self) { group in
    for worker in 0..<concurrency {
      group.addTask {
        var failures = 0
        for index in stride(from: worker, to: count, by: concurrency) {
          do {
            _ = try await client.get("\(base)/todos/\(index % 100 + 1)", timeout: .seconds(10))
          } catch {
            failures += 1
          }
        }
        return failures
      }
    }
    return await group.reduce(0, +)
  }
}

func measure(loop: EventLoop) async {
  let client = HTTPClient(loop: loop)
  // One request first, so connection set-up of the first transfer is not in the figure.
  _ = try? await client.get("\(base)/todos/1", timeout: .seconds(10))
  let (startTime, startCPU) = (ContinuousClock.now, cpuSeconds())
  let failures = await fetchAll(client: client)
  let elapsed = startTime.duration(to: .now)
  let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  print(
    "{\"requests\":\(count),\"failures\":\(failures),\"seconds\":\(seconds),"
      + "\"cpuSeconds\":\(cpuSeconds() - startCPU)}")
  await client.shutdown()
}

let loop = try EventLoop()
Task(executorPreference: loop.executor) { await measure(loop: loop) }
loop.run()
try loop.shutdown()
