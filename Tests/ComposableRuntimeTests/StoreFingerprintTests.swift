import ComposableRuntime
import JSON
@_spi(Hosting) import Protocol
import XCTest

/// A recording's fingerprint of a store: what replay compares to tell what changed since.
final class StoreFingerprintTests: XCTestCase {
  private func descriptor(
    actions: [ActionDescriptor] = [
      ActionDescriptor("bump", sentBy: .host, "Adds one."),
      ActionDescriptor(
        "set", sentBy: .host, "Sets the count.", payload: [.init("value", ["type": "integer"])]),
      ActionDescriptor("loaded", sentBy: .effect, "The saved count."),
    ],
    state: JSONValue = ["properties": ["count": ["type": "integer"], "label": ["type": "string"]]]
  ) -> StoreDescriptor {
    StoreDescriptor(name: "tally", summary: "", actions: actions, stateSchema: state)
  }

  func testTheSameStoresHaveTheSameFingerprintAndItSurvivesTheHeader() throws {
    let fingerprint = StoreFingerprint(descriptor())
    XCTAssertEqual(StoreFingerprint(descriptor()), fingerprint)
    XCTAssertEqual(StoreFingerprint(json: fingerprint.json), fingerprint)
    XCTAssertEqual(fingerprint.differences(from: StoreFingerprint(descriptor())), [])
    XCTAssertEqual(fingerprint.actions.keys.sorted(), ["bump", "loaded", "set"])
    XCTAssertEqual(fingerprint.state.keys.sorted(), ["count", "label"])
    XCTAssertNil(StoreFingerprint(json: ["actions": ["bump": 1], "state": [:]]))
  }

  func testARewordedSummaryIsNoChange() {
    let reworded = descriptor(actions: [
      ActionDescriptor("bump", sentBy: .host, "Adds one to the count."),
      ActionDescriptor(
        "set", sentBy: .host, "Sets the count.", payload: [.init("value", ["type": "integer"])]),
      ActionDescriptor("loaded", sentBy: .effect, "The saved count."),
    ])
    XCTAssertEqual(StoreFingerprint(descriptor()).differences(from: StoreFingerprint(reworded)), [])
  }

  func testEveryChangeOfAnActionOrAStateFieldIsNamed() {
    let changed = descriptor(
      actions: [
        ActionDescriptor("bump", sentBy: .effect, "Adds one."),
        ActionDescriptor(
          "set", sentBy: .host, "Sets the count.",
          payload: [.init("value", ["type": "integer"], required: false)]),
        ActionDescriptor("reset", sentBy: .host, "Back to zero."),
      ],
      state: ["properties": ["count": ["type": "number"], "note": ["type": "string"]]])
    XCTAssertEqual(
      StoreFingerprint(descriptor()).differences(from: StoreFingerprint(changed)),
      [
        "action bump changed", "action loaded is gone", "action reset is new",
        "action set changed", "state field count changed", "state field label is gone",
        "state field note is new",
      ])
  }
}
