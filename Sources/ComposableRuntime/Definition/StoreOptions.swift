/// The options a store adds to `run`: a struct whose properties hold their defaults, and the
/// command-line name of each.
///
/// ```swift
/// public struct Options: StoreOptions {
///   public var baseURL = "https://example.com"
///   public var pageSize = 20
///   public init() {}
///   public static let arguments: [StoreOption<Self>] = [
///     StoreOption("todos-url", \.baseURL, help: "Base URL of the todos API."),
///     StoreOption("page-size", \.pageSize, help: "Todos per page.") { $0 >= 1 ? nil : "must be at least 1" },
///   ]
/// }
/// ```
/// `run --todos-url http://127.0.0.1:8080 --page-size 50` then sets both. Every option takes a
/// value, written `--name value` or `--name=value`. Several stores may declare the same name:
/// the value given sets it in each.
public protocol StoreOptions: Sendable {
  /// The defaults.
  init()
  /// The options, each with its command-line name and the property it sets.
  static var arguments: [StoreOption<Self>] { get }
}

/// For a store that adds no options.
public struct NoOptions: StoreOptions {
  public init() {}
  /// None.
  public static var arguments: [StoreOption<Self>] { [] }
}

/// One option of a store: its name, its help, and the property it sets.
public struct StoreOption<Options>: Sendable {
  /// Without the leading dashes.
  public let name: String
  /// What the option sets, for `--help`.
  public let help: String
  /// The placeholder `--help` shows for its value: `<url>`, `<n>`.
  public let valueName: String
  /// The default as the help shows it; nil when there is none.
  let defaultText: @Sendable (Options) -> String?
  let set: @Sendable (inout Options, String) throws(StoreOptionError) -> Void

  /// `validate` returns why a parsed value is refused (`"must be at least 1"`), or nil.
  public init<Value: StoreOptionValue>(
    _ name: String, _ property: WritableKeyPath<Options, Value> & Sendable, help: String,
    valueName: String? = nil, validate: (@Sendable (Value) -> String?)? = nil
  ) {
    self.name = name
    self.help = help
    let shownValueName = valueName ?? Value.valueName
    self.valueName = shownValueName
    defaultText = { $0[keyPath: property].argumentDescription }
    set = { options, text throws(StoreOptionError) in
      guard let value = Value(argument: text) else {
        throw StoreOptionError("--\(name): \"\(text)\" is not a valid \(shownValueName)")
      }
      if let reason = validate?(value) {
        throw StoreOptionError("--\(name) \(reason)")
      }
      options[keyPath: property] = value
    }
  }
}

/// Why a store's options could not be read.
public struct StoreOptionError: Error, CustomStringConvertible, Equatable {
  public let description: String
  /// A failure that `description` explains.
  public init(_ description: String) { self.description = description }
}

/// A type an option's value can be read as.
public protocol StoreOptionValue: Sendable {
  /// The value `argument` stands for; nil when it stands for none.
  init?(argument: String)
  /// `<seconds>`, `<n>`: the placeholder in the help.
  static var valueName: String { get }
  /// The value as the help shows a default; nil for none.
  var argumentDescription: String? { get }
}

/// An option whose value is any text.
extension String: StoreOptionValue {
  /// The argument as it is.
  public init?(argument: String) { self = argument }
  public static var valueName: String { "text" }
  public var argumentDescription: String? { self }
}

/// An option whose value is a decimal integer.
extension Int: StoreOptionValue {
  /// A decimal integer; nil for anything else or out of range.
  public init?(argument: String) { self.init(argument, radix: 10) }
  public static var valueName: String { "n" }
  public var argumentDescription: String? { String(self) }
}

/// An option whose value is a decimal integer, not negative.
extension UInt64: StoreOptionValue {
  /// A decimal integer; nil for anything else or out of range.
  public init?(argument: String) { self.init(argument, radix: 10) }
  public static var valueName: String { "n" }
  public var argumentDescription: String? { String(self) }
}

/// An option whose value is a finite number.
extension Double: StoreOptionValue {
  /// A finite number; nil for anything else.
  public init?(argument: String) {
    guard let value = Double(argument), value.isFinite else { return nil }
    self = value
  }
  public static var valueName: String { "number" }
  public var argumentDescription: String? { String(self) }
}

/// An option whose value is `true` or `false`.
extension Bool: StoreOptionValue {
  /// `true` or `false`; nil for anything else.
  public init?(argument: String) {
    switch argument {
    case "true": self = true
    case "false": self = false
    default: return nil
    }
  }
  public static var valueName: String { "true|false" }
  public var argumentDescription: String? { String(self) }
}

/// An option with no default value: nil unless given.
extension Optional: StoreOptionValue where Wrapped: StoreOptionValue {
  /// The wrapped type's value: given, an optional option is never nil.
  public init?(argument: String) {
    guard let value = Wrapped(argument: argument) else { return nil }
    self = .some(value)
  }
  public static var valueName: String { Wrapped.valueName }
  public var argumentDescription: String? { self?.argumentDescription }
}
