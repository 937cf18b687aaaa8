import Foundation
import SQLite
import Testing

/// Values written through bound arguments read back identical, with their SQLite storage class.
@Suite struct ValueRoundTripTests {
    let directory: TemporaryDirectory
    let db: Database

    init() throws {
        directory = try TemporaryDirectory()
        db = try Database(path: directory.file("values.sqlite"))
        // No declared type: no column affinity, so SQLite stores exactly the storage class that was bound.
        try db.execute(sql: "CREATE TABLE value (v)")
    }

    private func roundTrip<T: DatabaseValueConvertible>(_ value: T) throws -> (T, DatabaseValue) {
        try db.execute(sql: "DELETE FROM value")
        try db.execute(sql: "INSERT INTO value (v) VALUES (?)", arguments: [value])
        let row = try #require(try db.fetchOne(sql: "SELECT v FROM value"))
        return (try row["v"], try row.databaseValue(at: 0))
    }

    @Test func integersRoundTripAsInteger() throws {
        #expect(try roundTrip(Int.max) == (Int.max, .integer(Int64.max)))
        #expect(try roundTrip(Int.min).0 == Int.min)
        #expect(try roundTrip(Int64(-42)) == (-42, .integer(-42)))
        #expect(try roundTrip(Int32.max) == (Int32.max, .integer(Int64(Int32.max))))
        #expect(try roundTrip(0).0 == 0)
    }

    @Test func doublesRoundTripAsReal() throws {
        for value in [0.1, -1.5e300, Double.leastNonzeroMagnitude, Double.infinity, 0.0] {
            #expect(try roundTrip(value) == (value, .real(value)))
        }
    }

    @Test func booleansRoundTripAsZeroAndOne() throws {
        #expect(try roundTrip(true) == (true, .integer(1)))
        #expect(try roundTrip(false) == (false, .integer(0)))
    }

    @Test func unicodeTextRoundTripsExactly() throws {
        let samples = [
            "héllo wörld", "日本語のテキスト", "emoji 👩‍👩‍👧‍👦🇫🇷", "مرحبا بالعالم", "e\u{301} combining",
            "a\u{0}b embedded NUL", String(repeating: "long ✓ ", count: 100_000),
        ]
        for text in samples {
            #expect(try roundTrip(text) == (text, .text(text)))
        }
    }

    @Test func emptyTextAndEmptyBlobAreNotNull() throws {
        #expect(try roundTrip("") == ("", .text("")))
        #expect(try roundTrip(Data()) == (Data(), .blob(Data())))
    }

    @Test func largeBlobsRoundTripAsDataAndBytes() throws {
        var bytes = [UInt8](repeating: 0, count: 3_000_000)
        for index in stride(from: 0, to: bytes.count, by: 8) {
            withUnsafeBytes(of: UInt64.random(in: .min ... .max)) { random in
                for offset in 0..<min(8, bytes.count - index) { bytes[index + offset] = random[offset] }
            }
        }
        #expect(try roundTrip(Data(bytes)) == (Data(bytes), .blob(Data(bytes))))
        #expect(try roundTrip(bytes).0 == bytes)
    }

    @Test func datesAreStoredAsIntegerMillisecondsSince1970() throws {
        let date = Date(timeIntervalSince1970: 1_714_567_890.123)
        let (back, stored) = try roundTrip(date)
        #expect(stored == .integer(1_714_567_890_123))
        #expect(abs(back.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_001)
        let shown = try db.fetchOne(String.self, sql: "SELECT strftime('%Y-%m-%dT%H:%M:%f', v / 1000.0, 'unixepoch') FROM value")
        #expect(shown == "2024-05-01T12:51:30.123")
    }

    @Test func nilIsStoredAsNullAndReadsAsNil() throws {
        let (back, stored) = try roundTrip(String?.none)
        #expect(back == nil)
        #expect(stored == .null)
        #expect(try roundTrip(Int?.some(7)).0 == 7)
    }

    @Test func nullReadAsNonOptionalNamesTheColumn() throws {
        try db.execute(sql: "INSERT INTO value (v) VALUES (NULL)")
        let row = try #require(try db.fetchOne(sql: "SELECT v AS nickname FROM value"))
        let error = #expect(throws: DatabaseError.self) { let _: String = try row["nickname"] }
        guard case .typeMismatch(let column, let expected, let found, let sql)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(column == "nickname")
        #expect(expected == "String")
        #expect(found == "NULL")
        #expect(sql == "SELECT v AS nickname FROM value")
    }

    @Test func textReadAsIntegerIsATypeMismatch() throws {
        try db.execute(sql: "INSERT INTO value (v) VALUES ('12')")
        let error = #expect(throws: DatabaseError.self) { _ = try db.fetchOne(Int.self, sql: "SELECT v FROM value") }
        guard case .typeMismatch(column: "v", expected: "Int", found: "TEXT", sql: _)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
    }

    @Test func integersThatDoNotFitTheTypeAreATypeMismatch() throws {
        try db.execute(sql: "INSERT INTO value (v) VALUES (?)", arguments: [Int64(Int32.max) + 1])
        #expect(throws: DatabaseError.self) { _ = try db.fetchOne(Int32.self, sql: "SELECT v FROM value") }
        #expect(try db.fetchOne(Int64.self, sql: "SELECT v FROM value") == Int64(Int32.max) + 1)
    }

    @Test func integralRealsReadAsIntegersAndIntegersAsDoubles() throws {
        #expect(try db.fetchOne(Int.self, sql: "SELECT 3.0") == 3)
        #expect(throws: DatabaseError.self) { _ = try db.fetchOne(Int.self, sql: "SELECT 3.5") }
        #expect(try db.fetchOne(Double.self, sql: "SELECT 3") == 3.0)
    }

    @Test func unknownColumnListsTheAvailableOnes() throws {
        let row = try #require(try db.fetchOne(sql: "SELECT 1 AS id, 'x' AS name"))
        let error = #expect(throws: DatabaseError.self) { let _: Int = try row["identifier"] }
        guard case .unknownColumn("identifier", let available, _)? = error else {
            Issue.record("expected unknownColumn, got \(String(describing: error))")
            return
        }
        #expect(available == ["id", "name"])
        #expect(try row["ID"] as Int == 1, "column names match case-insensitively, as in SQL")
    }

    @Test func aNameMatchesItsFirstExactColumnBeforeAnyOtherCase() throws {
        let row = try #require(try db.fetchOne(sql: "SELECT 1 AS a, 2 AS A, 3 AS a, 4 AS b"))
        #expect(try row["a"] as Int == 1)
        #expect(try row["A"] as Int == 2)
        #expect(try row["B"] as Int == 4)
    }

    struct Payload: Codable, Equatable {
        var title: String
        var tags: [String]
        var due: Date?
        var nested: [String: Int]
    }

    @Test func codableValuesRoundTripAsJSONText() throws {
        let payload = Payload(
            title: "Réunion 📅", tags: ["a", "b"], due: Date(timeIntervalSince1970: 1_700_000_000.5), nested: ["x": 1])
        try db.execute(sql: "INSERT INTO value (v) VALUES (?)", arguments: [try DatabaseValue.json(payload)])
        let row = try #require(try db.fetchOne(sql: "SELECT v FROM value"))
        #expect(try row.decodeJSON(Payload.self, "v") == payload)
        #expect(try db.fetchOne(String.self, sql: "SELECT json_extract(v, '$.title') FROM value") == "Réunion 📅")
        #expect(try db.fetchOne(Int64.self, sql: "SELECT json_extract(v, '$.due') FROM value") == 1_700_000_000_500)
    }

    @Test func nullJSONColumnDecodesAsNilForOptionalsOnly() throws {
        try db.execute(sql: "INSERT INTO value (v) VALUES (NULL)")
        let row = try #require(try db.fetchOne(sql: "SELECT v FROM value"))
        #expect(try row.decodeJSON(Payload?.self, "v") == nil)
        let error = #expect(throws: DatabaseError.self) { _ = try row.decodeJSON(Payload.self, "v") }
        guard case .typeMismatch(column: "v", expected: _, found: "NULL", sql: _)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
    }

    @Test func invalidJSONIsReportedWithTheColumn() throws {
        try db.execute(sql: "INSERT INTO value (v) VALUES ('{\"title\": 3}')")
        let row = try #require(try db.fetchOne(sql: "SELECT v FROM value"))
        let error = #expect(throws: DatabaseError.self) { _ = try row.decodeJSON(Payload.self, "v") }
        guard case .invalidJSON(column: "v", type: _, reason: _, sql: _)? = error else {
            Issue.record("expected invalidJSON, got \(String(describing: error))")
            return
        }
    }

    struct Note: FetchableRecord, Equatable {
        var id: Int64
        var text: String?
        init(id: Int64, text: String?) { self.id = id; self.text = text }
        init(row: Row) throws {
            id = try row["id"]
            text = try row["text"]
        }
    }

    @Test func recordsAreReadFromRows() throws {
        try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)")
        try db.execute(sql: "INSERT INTO note (id, text) VALUES (1, 'one'), (2, NULL)")
        let notes = try db.fetchAll(Note.self, sql: "SELECT * FROM note ORDER BY id")
        #expect(notes == [Note(id: 1, text: "one"), Note(id: 2, text: nil)])
        #expect(try db.fetchOne(Note.self, sql: "SELECT * FROM note WHERE id = ?", arguments: [3]) == nil)
    }
}
