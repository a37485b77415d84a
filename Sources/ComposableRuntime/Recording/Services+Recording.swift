import JSON
import Networking

extension Services {
  /// The same services, each answer of the network also written to `log`: HTTP responses and
  /// failures, WebSocket events, messages received and sent.
  func recordingAnswers(to log: AnswerLog) -> Services {
    var services = self
    services.http = http.recording(to: log)
    services.webSocket = webSocket.recording(to: log)
    services.answerLog = log
    return services
  }

  /// `live()`'s answer for `key`, written into the recording under `run --record` (with
  /// `name`, one of the definition's ``StoreDefinition/dependencies``), so that
  /// `replay --to-scenario` scripts the same answer: `{"nthPrimes":{"7":17}}`. Without a
  /// recording, `live()` alone.
  func recordingAnswer<Answer: Encodable & Sendable>(
    _ name: String, key: String, _ live: @Sendable () async throws -> Answer
  ) async throws -> Answer {
    guard let log = answerLog else { return try await live() }
    let after = await log.position
    do {
      let answer = try await live()
      let json = (try? JSONValueEncoder().encode(answer)) ?? .null
      await log.record(name, after: after, ["key": .string(key), "answer": json])
      return answer
    } catch is CancellationError {
      await log.record(name, after: after, ["key": .string(key), "cancelled": true])
      throw CancellationError()
    }
  }
}

extension HTTPService {
  fileprivate func recording(to log: AnswerLog) -> HTTPService {
    HTTPService(timeout: timeout) { [fetch] request, timeout in
      let after = await log.position
      var answer: JSONObject = ["url": .string(request.url)]
      if request.method != .get { answer["method"] = .string(request.method.rawValue) }
      if let body = request.body {
        answer["requestBody"] = .string(String(decoding: body, as: UTF8.self))
      }
      do {
        let response = try await fetch(request, timeout)
        answer["status"] = .int(response.status)
        answer["body"] = .string(String(decoding: response.body, as: UTF8.self))
        await log.record("http", after: after, answer)
        return response
      } catch let error as HTTPError {
        if case .status(let status, let body) = error.kind {
          answer["status"] = .int(status)
          answer["body"] = .string(String(decoding: body, as: UTF8.self))
        } else {
          answer["failure"] = .string(error.kind.name ?? "connectionFailed")
        }
        answer["message"] = .string(error.message)
        await log.record("http", after: after, answer)
        throw error
      } catch {
        // Cancelled: the scenario's answer must come no sooner than the cancellation did.
        answer["cancelled"] = true
        await log.record("http", after: after, answer)
        throw error
      }
    }
  }
}

extension WebSocketService {
  fileprivate func recording(to log: AnswerLog) -> WebSocketService {
    WebSocketService(
      open: { [open] id, url, protocols in
        relay(await open(id, url, protocols)) { event in
          switch event {
          case .didOpen(let chosen):
            await log.record(
              "websocket", ["didOpen": ["protocol": chosen.map(JSONValue.string) ?? .null]])
          case .didClose(let code, let reason):
            await log.record(
              "websocket", ["didClose": ["code": .int(code), "reason": .string(reason)]])
          }
          return event
        }
      },
      receive: { [receive] id in
        relay(await receive(id)) { result in
          switch result {
          case .success(let message):
            await log.record("websocket", ["message": message.wire])
          case .failure(let reason):
            await log.record("websocket", ["receiveFailure": .string(reason)])
          }
          return result
        }
      },
      send: { [send] id, message in
        try await send(id, message)
        await log.record("websocket", ["sent": message.wire])
      },
      sendPing: sendPing)
  }
}

extension SocketMessage {
  /// `{"text":…}` or `{"binary":"<base64>"}`, as a scenario's peer steps give it.
  fileprivate var wire: JSONValue { (try? JSONValueEncoder().encode(self)) ?? .null }
}
