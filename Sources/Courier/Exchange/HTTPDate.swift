import Foundation

/// Reads the dates servers send in `Date`, `Expires`, `Last-Modified`, `Retry-After` and a cookie's `Expires`: IMF
/// dates (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
/// (`Sun Nov  6 08:49:37 1994`), all in GMT (RFC 9110 §5.6.7).
///
/// Hand-written with RFC 6265 §5.1.1's cookie-date algorithm, which reads all three (and the variants servers send
/// for cookies): `DateFormatter` cost four formatters per date and, in swift-corelibs-foundation, leaked memory with
/// each parse (LeakSanitizer, in the `FuzzSetCookie` target), on a path every cached response and cookie takes.
enum HTTPDate {
    /// The date, or `nil` when `text` has no complete, existing date and time (a year before 1601 included).
    static func parse(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?, month: Int?, year: Int?
        for token in text.utf8.split(whereSeparator: isDelimiter) {
            if time == nil, let found = Self.time(in: token) {
                time = found
            } else if day == nil, let found = Self.leadingNumber(in: token, digits: 1...2) {
                day = found
            } else if month == nil, let found = Self.month(in: token) {
                month = found
            } else if year == nil, let found = Self.leadingNumber(in: token, digits: 2...4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard year >= 1601, (1...daysIn(month: month, year: year)).contains(day),
              time.hour <= 23, time.minute <= 59, time.second <= 59 else { return nil }
        let seconds = daysSince1970(year: year, month: month, day: day) * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// RFC 6265's delimiters: tab, and every printable character but digits, letters and `:`.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x20...0x2F, 0x3B...0x40, 0x5B...0x60, 0x7B...0x7E: true
        default: false
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// The number of `digits` digits a token starts with, when no further digit follows them.
    private static func leadingNumber(in token: Substring.UTF8View.SubSequence, digits: ClosedRange<Int>) -> Int? {
        let leading = token.prefix(while: isDigit)
        guard digits.contains(leading.count) else { return nil }
        return leading.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// `hh:mm:ss`, each part one or two digits, at the start of a token (anything but a digit may follow).
    private static func time(in token: Substring.UTF8View.SubSequence) -> (hour: Int, minute: Int, second: Int)? {
        var parts: [Int] = []
        var rest = token[...]
        for index in 0..<3 {
            let digits = rest.prefix(while: isDigit)
            guard (1...2).contains(digits.count) else { return nil }
            parts.append(digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) })
            rest = rest.dropFirst(digits.count)
            if index < 2 {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                rest = rest.dropFirst()
            } else if let next = rest.first, isDigit(next) {
                return nil
            }
        }
        return (parts[0], parts[1], parts[2])
    }

    private static let months: [[UInt8]] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].map { Array($0.utf8) }

    /// The month (1…12) a token's first three letters name, case-insensitively.
    private static func month(in token: Substring.UTF8View.SubSequence) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = token.prefix(3).map { $0 | 0x20 }   // ASCII letters to lower case
        return months.firstIndex(of: prefix).map { $0 + 1 }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
