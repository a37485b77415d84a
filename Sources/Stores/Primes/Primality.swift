/// Whether a number is prime, fast enough to derive `isPrime` on every state change.
///
/// Miller–Rabin with bases that make it exact for every 64-bit integer; below 2^32 four bases
/// suffice and products fit in 64 bits, so the common case costs a few hundred nanoseconds at
/// most.
public enum Primality {
  /// Trial divisors, and the Miller–Rabin bases that are exact for every 64-bit integer.
  private static let smallPrimes: [UInt64] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]
  /// Bases exact below 3,215,031,751.
  private static let smallBases: [UInt64] = [2, 3, 5, 7]

  public static func isPrime(_ n: Int) -> Bool {
    guard n >= 2 else { return false }
    let value = UInt64(n)
    for small in smallPrimes {
      if value == small { return true }
      if value % small == 0 { return false }
    }
    if value < 41 * 41 { return true }
    let bases = value < 3_215_031_751 ? smallBases : smallPrimes
    var oddPart = value - 1
    var twos = 0
    while oddPart % 2 == 0 {
      oddPart /= 2
      twos += 1
    }
    return bases.allSatisfy { isProbablePrime(value, base: $0, oddPart: oddPart, twos: twos) }
  }

  private static func isProbablePrime(_ n: UInt64, base: UInt64, oddPart: UInt64, twos: Int)
    -> Bool
  {
    var x = power(base, oddPart, modulo: n)
    if x == 1 || x == n - 1 { return true }
    for _ in 1..<max(twos, 1) {
      x = multiply(x, x, modulo: n)
      if x == n - 1 { return true }
    }
    return false
  }

  private static func power(_ base: UInt64, _ exponent: UInt64, modulo n: UInt64) -> UInt64 {
    var result: UInt64 = 1
    var base = base % n
    var exponent = exponent
    while exponent > 0 {
      if exponent & 1 == 1 { result = multiply(result, base, modulo: n) }
      base = multiply(base, base, modulo: n)
      exponent >>= 1
    }
    return result
  }

  private static func multiply(_ a: UInt64, _ b: UInt64, modulo n: UInt64) -> UInt64 {
    if n <= UInt64(UInt32.max) { return (a * b) % n }
    let product = a.multipliedFullWidth(by: b)
    return n.dividingFullWidth((product.high, product.low)).remainder
  }
}
