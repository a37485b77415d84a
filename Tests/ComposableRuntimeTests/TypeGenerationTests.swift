import ComposableRuntime
import XCTest

/// A store whose state has one of each schema the translator reads: a nullable number, a string
/// enum, a nullable object, an array of objects, a map; and actions with and without payload,
/// from a host and from effects.
private let counter = StoreDescriptor(
  name: "counter", summary: "Counts.",
  actions: [
    ActionDescriptor("reset", sentBy: .host, "Sets count to 0."),
    ActionDescriptor(
      "limit.changed", sentBy: .host, "Sets the limit.",
      payload: [.init("value", Schema.nullable(Schema.integer))]),
    ActionDescriptor("tick", sentBy: .effect, ""),
  ],
  stateSchema: Schema.object([
    "count": Schema.integer,
    "limit": Schema.nullable(Schema.integer),
    "mode": ["enum": ["idle", "busy"]],
    "alert": Schema.nullable(Schema.object(["message": Schema.string])),
    "history": Schema.array(of: Schema.object(["at": ["type": "number"]])),
    "labels": ["type": "object", "additionalProperties": Schema.string],
  ]))

/// What the languages cannot say plainly: member names that are no Python identifier, a schema
/// the translator does not read, optional and documented members, two paths meeting in one name,
/// and a store without actions.
private let odd = StoreDescriptor(
  name: "odd-store", summary: "Odd.", actions: [],
  stateSchema: [
    "type": "object",
    "properties": [
      "from": Schema.integer,
      "a-b": ["$ref": "#/$defs/elsewhere"],
      "note": ["type": "string", "description": "Shown\nbelow."],
      "x_y": Schema.object(["a": Schema.integer]),
      "xY": Schema.object([:]),
    ],
    "required": ["from", "x_y", "xY"],
    "additionalProperties": false,
  ])

final class TypeGenerationTests: XCTestCase {
  func testAStoreBecomesItsStateItsActionsAndTheirUnions() {
    XCTAssertEqual(
      TypeModule(stores: [counter]),
      TypeModule(
        [
          TypeDeclaration(
            "StoreName", documentation: "The name of every store.", .alias(.literal(["counter"]))),
          TypeDeclaration("CounterStateAlert", .record([TypeField("message", .string)])),
          TypeDeclaration("CounterStateHistoryItem", .record([TypeField("at", .number)])),
          TypeDeclaration(
            "CounterState", documentation: "The state of counter: Counts.",
            .record([
              TypeField("count", .integer),
              TypeField("limit", .union([.integer, .null])),
              TypeField("mode", .literal(["idle", "busy"])),
              TypeField("alert", .union([.reference("CounterStateAlert"), .null])),
              TypeField("history", .array(.reference("CounterStateHistoryItem"))),
              TypeField("labels", .map(.string)),
            ])),
          TypeDeclaration(
            "CounterResetAction", documentation: "Sets count to 0. Sent by a host.",
            .record([TypeField("type", .literal(["reset"]))])),
          TypeDeclaration(
            "CounterLimitChangedAction", documentation: "Sets the limit. Sent by a host.",
            .record([
              TypeField("type", .literal(["limit.changed"])),
              TypeField("value", .union([.integer, .null])),
            ])),
          TypeDeclaration(
            "CounterTickAction", documentation: "Sent by its effects.",
            .record([TypeField("type", .literal(["tick"]))])),
          TypeDeclaration(
            "CounterAction", documentation: "Every action of counter.",
            .alias(
              .union([
                .reference("CounterResetAction"), .reference("CounterLimitChangedAction"),
                .reference("CounterTickAction"),
              ]))),
          TypeDeclaration(
            "CounterHostAction", documentation: "The actions of counter a host sends.",
            .alias(
              .union([.reference("CounterResetAction"), .reference("CounterLimitChangedAction")]))),
          TypeDeclaration(
            "CounterActionType", documentation: "The type of every action of counter.",
            .alias(.literal(["reset", "limit.changed", "tick"]))),
          TypeDeclaration(
            "StoreStates", documentation: "Each store's state, by its name.",
            .record([TypeField("counter", .reference("CounterState"))])),
          TypeDeclaration(
            "StoreHostActions", documentation: "The actions a host sends each store, by its name.",
            .record([TypeField("counter", .reference("CounterHostAction"))])),
        ],
        stores: [
          StoreTypes(
            name: "counter", state: "CounterState", action: "CounterAction",
            hostAction: "CounterHostAction", line: "CounterLine")
        ]))
  }

  func testATypeMetInSeveralPlacesIsDeclaredOnce() {
    let failure = Schema.object(["message": Schema.string])
    let store = StoreDescriptor(
      name: "lists", summary: "",
      actions: [
        ActionDescriptor(
          "failed", sentBy: .effect, "", payload: [.init("value", failure)])
      ],
      stateSchema: Schema.object([
        "first": Schema.nullable(failure),
        "second": Schema.nullable(failure),
        "other": Schema.object(["message": ["type": "string", "description": "Differs."]]),
      ]))
    XCTAssertEqual(
      Array(TypeModule(stores: [store]).declarations.prefix(4)),
      [
        TypeDeclaration(
          "StoreName", documentation: "The name of every store.", .alias(.literal(["lists"]))),
        TypeDeclaration("ListsStateFirst", .record([TypeField("message", .string)])),
        TypeDeclaration(
          "ListsStateOther",
          .record([TypeField("message", .string, documentation: "Differs.")])),
        TypeDeclaration(
          "ListsState", documentation: "The state of lists.",
          .record([
            TypeField("first", .union([.reference("ListsStateFirst"), .null])),
            TypeField("second", .union([.reference("ListsStateFirst"), .null])),
            TypeField("other", .reference("ListsStateOther")),
          ])),
      ])
    XCTAssertEqual(
      TypeModule(stores: [store]).declarations[4],
      TypeDeclaration(
        "ListsFailedAction", documentation: "Sent by its effects.",
        .record([
          TypeField("type", .literal(["failed"])),
          TypeField("value", .reference("ListsStateFirst")),
        ])))
  }

  func testASchemasTitleNamesItsTypeWhereverItIsMet() {
    let message: JSONValue = [
      "title": "text message", "type": "object", "properties": ["text": Schema.string],
      "required": ["text"], "additionalProperties": false,
    ]
    let store = StoreDescriptor(
      name: "chat", summary: "", actions: [],
      stateSchema: Schema.object([
        "last": Schema.nullable(message), "all": Schema.array(of: message),
        "either": ["oneOf": [Schema.string, message]],
      ]))
    XCTAssertEqual(
      Array(TypeModule(stores: [store]).declarations.prefix(3)),
      [
        TypeDeclaration(
          "StoreName", documentation: "The name of every store.", .alias(.literal(["chat"]))),
        TypeDeclaration("TextMessage", .record([TypeField("text", .string)])),
        TypeDeclaration(
          "ChatState", documentation: "The state of chat.",
          .record([
            TypeField("last", .union([.reference("TextMessage"), .null])),
            TypeField("all", .array(.reference("TextMessage"))),
            TypeField("either", .union([.string, .reference("TextMessage")])),
          ])),
      ])
  }

  func testWhatNoTypeSaysBecomesUnknownWithItsReasonAndNamesStayUnique() {
    XCTAssertEqual(
      TypeModule(stores: [odd]).declarations.dropFirst().prefix(4),
      [
        TypeDeclaration("OddStoreStateXY", .record([TypeField("a", .integer)])),
        TypeDeclaration("OddStoreStateXY2", .record([])),
        TypeDeclaration(
          "OddStoreState", documentation: "The state of odd-store: Odd.",
          .record([
            TypeField("from", .integer),
            TypeField("a-b", .unknown(reason: "$ref is not translated"), required: false),
            TypeField("note", .string, required: false, documentation: "Shown\nbelow."),
            TypeField("x_y", .reference("OddStoreStateXY")),
            TypeField("xY", .reference("OddStoreStateXY2")),
          ])),
        TypeDeclaration(
          "OddStoreAction", documentation: "Every action of odd-store.", .alias(.union([]))),
      ])
  }

  func testSchemasBeyondTheStoresOwnAreReadOrNamedUnknown() {
    let state: JSONValue = Schema.object([
      "either": [
        "oneOf": [Schema.object(["a": Schema.integer]), Schema.object(["b": Schema.string])]
      ],
      "listed": ["type": ["string", "null"]],
      "maybe": ["enum": ["on", nil]],
      "anything": [:],
      "numbers": ["enum": [1, 2]],
      "open": ["type": "object"],
      "mixed": [
        "type": "object", "properties": ["a": Schema.integer],
        "additionalProperties": Schema.string,
      ],
      "untyped": ["type": "array"],
    ])
    let module = TypeModule(stores: [
      StoreDescriptor(name: "s", summary: "", actions: [], stateSchema: state)
    ])
    XCTAssertEqual(
      module.declarations[1...3],
      [
        TypeDeclaration("SStateEitherOption1", .record([TypeField("a", .integer)])),
        TypeDeclaration("SStateEitherOption2", .record([TypeField("b", .string)])),
        TypeDeclaration(
          "SState", documentation: "The state of s.",
          .record([
            TypeField(
              "either",
              .union([.reference("SStateEitherOption1"), .reference("SStateEitherOption2")])),
            TypeField("listed", .union([.string, .null])),
            TypeField("maybe", .union([.literal(["on"]), .null])),
            TypeField("anything", .unknown(reason: "any JSON value")),
            TypeField("numbers", .unknown(reason: "an enum or const of values other than strings")),
            TypeField("open", .map(.unknown(reason: "any JSON value"))),
            TypeField(
              "mixed", .unknown(reason: "an object with both properties and additionalProperties")),
            TypeField("untyped", .array(.unknown(reason: "an array whose items have no schema"))),
          ])),
      ])
  }

  /// An element action's `action` field holds the child's actions in their wire form: its
  /// cases become records named after their types, beside their bare types.
  func testANestedActionFieldIsAUnionOfTheChildsActions() {
    let rowActions: JSONValue = [
      "oneOf": [
        ["enum": ["toggled"]],
        [
          "type": "object", "properties": ["type": ["const": "toggled"]], "required": ["type"],
          "additionalProperties": false,
        ],
        [
          "type": "object",
          "properties": ["type": ["const": "renamed"], "title": Schema.string],
          "required": ["type", "title"], "additionalProperties": false,
        ],
      ]
    ]
    let module = TypeModule(stores: [
      StoreDescriptor(
        name: "list", summary: "",
        actions: [
          ActionDescriptor(
            "rows.element", sentBy: .host, "",
            payload: [.init("id", Schema.integer), .init("action", rowActions)])
        ], stateSchema: Schema.object([:]))
    ])
    XCTAssertEqual(
      module.declarations[2...4],
      [
        TypeDeclaration(
          "ListRowsElementActionActionToggled",
          .record([TypeField("type", .literal(["toggled"]))])),
        TypeDeclaration(
          "ListRowsElementActionActionRenamed",
          .record([TypeField("type", .literal(["renamed"])), TypeField("title", .string)])),
        TypeDeclaration(
          "ListRowsElementAction", documentation: "Sent by a host.",
          .record([
            TypeField("type", .literal(["rows.element"])),
            TypeField("id", .integer),
            TypeField(
              "action",
              .union([
                .literal(["toggled"]), .reference("ListRowsElementActionActionToggled"),
                .reference("ListRowsElementActionActionRenamed"),
              ])),
          ])),
      ])
  }

  func testPython() {
    XCTAssertEqual(
      PythonTypePrinter.source(
        of: TypeModule(stores: [counter]), generatedBy: "counter-actor types --language python"),
      """
      # Generated by `counter-actor types --language python` from the stores' schemas: do not edit.
      # Python 3.11 or later; mypy --strict reads them. `store(client, name)` needs the Python
      # client (clients/python), whose `Client` and `AsyncClient` it types.

      from typing import Any, Literal, TypeAlias, TypedDict, overload

      from composable_actor import AsyncClient, Client
      from composable_actor.typed import AsyncStore, Store, StoreLine
      from composable_actor.typed import store as untyped_store


      # The name of every store.
      StoreName: TypeAlias = Literal["counter"]


      class CounterStateAlert(TypedDict):
          message: str


      class CounterStateHistoryItem(TypedDict):
          at: float


      # The state of counter: Counts.
      class CounterState(TypedDict):
          count: int
          limit: int | None
          mode: Literal["idle", "busy"]
          alert: CounterStateAlert | None
          history: list[CounterStateHistoryItem]
          labels: dict[str, str]


      # Sets count to 0. Sent by a host.
      class CounterResetAction(TypedDict):
          type: Literal["reset"]


      # Sets the limit. Sent by a host.
      class CounterLimitChangedAction(TypedDict):
          type: Literal["limit.changed"]
          value: int | None


      # Sent by its effects.
      class CounterTickAction(TypedDict):
          type: Literal["tick"]


      # Every action of counter.
      CounterAction: TypeAlias = CounterResetAction | CounterLimitChangedAction | CounterTickAction


      # The actions of counter a host sends.
      CounterHostAction: TypeAlias = CounterResetAction | CounterLimitChangedAction


      # The type of every action of counter.
      CounterActionType: TypeAlias = Literal["reset", "limit.changed", "tick"]


      # Each store's state, by its name.
      class StoreStates(TypedDict):
          counter: CounterState


      # The actions a host sends each store, by its name.
      class StoreHostActions(TypedDict):
          counter: CounterHostAction


      # A line about counter: narrow it by its "type".
      CounterLine: TypeAlias = StoreLine[Literal["counter"], CounterAction, CounterState]


      @overload
      def store(client: Client, name: Literal["counter"]) -> Store[
          Literal["counter"], CounterAction, CounterHostAction, CounterState
      ]: ...


      @overload
      def store(client: AsyncClient, name: Literal["counter"]) -> AsyncStore[
          Literal["counter"], CounterAction, CounterHostAction, CounterState
      ]: ...


      def store(
          client: Client | AsyncClient, name: StoreName
      ) -> Store[Any, Any, Any, Any] | AsyncStore[Any, Any, Any, Any]:
          \"""The typed view of the store `name` of `client`: its `send` takes the actions a host
          sends that store, its `state` and `snapshot` return its state, its lines are its
          `…Line`.\"""
          return untyped_store(client, name)

      """)
  }

  func testPythonOfNamesThatAreNoIdentifiersAnyAndNever() {
    XCTAssertEqual(
      PythonTypePrinter.source(
        of: TypeModule(stores: [odd]), generatedBy: "odd types --language python"),
      """
      # Generated by `odd types --language python` from the stores' schemas: do not edit.
      # Python 3.11 or later; mypy --strict reads them. `store(client, name)` needs the Python
      # client (clients/python), whose `Client` and `AsyncClient` it types.

      from typing import Any, Literal, Never, NotRequired, TypeAlias, TypedDict, overload

      from composable_actor import AsyncClient, Client
      from composable_actor.typed import AsyncStore, Store, StoreLine
      from composable_actor.typed import store as untyped_store


      # The name of every store.
      StoreName: TypeAlias = Literal["odd-store"]


      class OddStoreStateXY(TypedDict):
          a: int


      class OddStoreStateXY2(TypedDict):
          pass


      # The state of odd-store: Odd.
      OddStoreState = TypedDict(
          "OddStoreState",
          {
              "from": int,
              "a-b": NotRequired[Any],  # Any: $ref is not translated
              # Shown
              # below.
              "note": NotRequired[str],
              "x_y": OddStoreStateXY,
              "xY": OddStoreStateXY2,
          },
      )


      # Every action of odd-store.
      OddStoreAction: TypeAlias = Never


      # The actions of odd-store a host sends.
      OddStoreHostAction: TypeAlias = Never


      # The type of every action of odd-store.
      OddStoreActionType: TypeAlias = Never


      # Each store's state, by its name.
      StoreStates = TypedDict(
          "StoreStates",
          {
              "odd-store": OddStoreState,
          },
      )


      # The actions a host sends each store, by its name.
      StoreHostActions = TypedDict(
          "StoreHostActions",
          {
              "odd-store": OddStoreHostAction,
          },
      )


      # A line about odd-store: narrow it by its "type".
      OddStoreLine: TypeAlias = StoreLine[Literal["odd-store"], OddStoreAction, OddStoreState]


      @overload
      def store(client: Client, name: Literal["odd-store"]) -> Store[
          Literal["odd-store"], OddStoreAction, OddStoreHostAction, OddStoreState
      ]: ...


      @overload
      def store(client: AsyncClient, name: Literal["odd-store"]) -> AsyncStore[
          Literal["odd-store"], OddStoreAction, OddStoreHostAction, OddStoreState
      ]: ...


      def store(
          client: Client | AsyncClient, name: StoreName
      ) -> Store[Any, Any, Any, Any] | AsyncStore[Any, Any, Any, Any]:
          \"""The typed view of the store `name` of `client`: its `send` takes the actions a host
          sends that store, its `state` and `snapshot` return its state, its lines are its
          `…Line`.\"""
          return untyped_store(client, name)

      """)
  }

  func testTypeScript() {
    XCTAssertEqual(
      TypeScriptTypePrinter.source(
        of: TypeModule(stores: [counter]), generatedBy: "counter-actor types --language typescript"),
      """
      // Generated by `counter-actor types --language typescript` from the stores' schemas: do not edit.

      /** The name of every store. */
      export type StoreName = "counter";

      export interface CounterStateAlert {
        message: string;
      }

      export interface CounterStateHistoryItem {
        at: number;
      }

      /** The state of counter: Counts. */
      export interface CounterState {
        count: number;
        limit: number | null;
        mode: "idle" | "busy";
        alert: CounterStateAlert | null;
        history: CounterStateHistoryItem[];
        labels: Record<string, string>;
      }

      /** Sets count to 0. Sent by a host. */
      export interface CounterResetAction {
        type: "reset";
      }

      /** Sets the limit. Sent by a host. */
      export interface CounterLimitChangedAction {
        type: "limit.changed";
        value: number | null;
      }

      /** Sent by its effects. */
      export interface CounterTickAction {
        type: "tick";
      }

      /** Every action of counter. */
      export type CounterAction = CounterResetAction | CounterLimitChangedAction | CounterTickAction;

      /** The actions of counter a host sends. */
      export type CounterHostAction = CounterResetAction | CounterLimitChangedAction;

      /** The type of every action of counter. */
      export type CounterActionType = "reset" | "limit.changed" | "tick";

      /** Each store's state, by its name. */
      export interface StoreStates {
        counter: CounterState;
      }

      /** The actions a host sends each store, by its name. */
      export interface StoreHostActions {
        counter: CounterHostAction;
      }

      /** Each store's types, by its name: `typed<Stores>(client)` of the Node client reads them. */
      export interface Stores {
        counter: { action: CounterAction; hostAction: CounterHostAction; state: CounterState };
      }

      """)
  }

  func testTypeScriptOfNamesThatAreNoIdentifiersUnknownAndNever() {
    XCTAssertEqual(
      TypeScriptTypePrinter.source(
        of: TypeModule(stores: [odd]), generatedBy: "odd types --language typescript"),
      """
      // Generated by `odd types --language typescript` from the stores' schemas: do not edit.

      /** The name of every store. */
      export type StoreName = "odd-store";

      export interface OddStoreStateXY {
        a: number;
      }

      export interface OddStoreStateXY2 {}

      /** The state of odd-store: Odd. */
      export interface OddStoreState {
        from: number;
        "a-b"?: unknown; // unknown: $ref is not translated
        /**
         * Shown
         * below.
         */
        note?: string;
        x_y: OddStoreStateXY;
        xY: OddStoreStateXY2;
      }

      /** Every action of odd-store. */
      export type OddStoreAction = never;

      /** The actions of odd-store a host sends. */
      export type OddStoreHostAction = never;

      /** The type of every action of odd-store. */
      export type OddStoreActionType = never;

      /** Each store's state, by its name. */
      export interface StoreStates {
        "odd-store": OddStoreState;
      }

      /** The actions a host sends each store, by its name. */
      export interface StoreHostActions {
        "odd-store": OddStoreHostAction;
      }

      /** Each store's types, by its name: `typed<Stores>(client)` of the Node client reads them. */
      export interface Stores {
        "odd-store": { action: OddStoreAction; hostAction: OddStoreHostAction; state: OddStoreState };
      }

      """)
  }

  func testStringsAreQuotedForBothLanguagesAndLongUnionsBroken() {
    let types = (1...8).map { "mode.number\($0)" } + ["say \"hi\"\\\n"]
    let store = StoreDescriptor(
      name: "s", summary: "", actions: types.map { ActionDescriptor($0, sentBy: .effect, "") },
      stateSchema: Schema.integer)
    let module = TypeModule(stores: [store])
    XCTAssertEqual(
      module.declarations[1],
      TypeDeclaration("SState", documentation: "The state of s.", .alias(.integer)))
    let python = PythonTypePrinter.source(of: module, generatedBy: "s types --language python")
    XCTAssertTrue(
      python.contains(
        """
        SActionType: TypeAlias = Literal[
            "mode.number1",
        """), python)
    XCTAssertTrue(python.contains("    \"say \\\"hi\\\"\\\\\\u000a\",\n]\n"), python)
    XCTAssertTrue(
      python.contains("SAction: TypeAlias = (\n    SModeNumber1Action\n    | SModeNumber2Action\n"),
      python)
    let typeScript = TypeScriptTypePrinter.source(
      of: module, generatedBy: "s types --language typescript")
    XCTAssertTrue(
      typeScript.contains("export type SAction =\n  | SModeNumber1Action\n"), typeScript)
    XCTAssertTrue(typeScript.contains("  | SSayHiAction;\n"), typeScript)
    XCTAssertTrue(typeScript.contains("  | \"say \\\"hi\\\"\\\\\\u000a\";\n"), typeScript)
  }
}
