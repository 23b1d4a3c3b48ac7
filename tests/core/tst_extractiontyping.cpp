// browser.observe {extract} in the core: locale-independent cell typing, row validity, the
// collector's raw answer turned into the canonical extraction, the 64 KiB ceiling, strict
// JSON, and the observation's round trip over the browser-host protocol.

#include "domain/observation/BrowserObservation.h"
#include "domain/observation/Extraction.h"
#include "domain/web/TestOverrides.h"
#include "isolation/HostProtocol.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <cmath>

using namespace veetbot;

namespace {

ExtractRequest tableRequest(int limit = 10)
{
    ExtractRequest request;
    request.revision = QStringLiteral("r");
    request.kind = ExtractRequest::Kind::Table;
    request.columns = {{QStringLiteral("sku"), ExtractColumn::Type::String, true},
                       {QStringLiteral("qty"), ExtractColumn::Type::Integer, false},
                       {QStringLiteral("price"), ExtractColumn::Type::Number, false},
                       {QStringLiteral("stock"), ExtractColumn::Type::Boolean, false}};
    request.limit = limit;
    return request;
}

QJsonValue cell(const QString &text, bool truncated = false)
{
    return QJsonObject{{QStringLiteral("text"), text}, {QStringLiteral("truncated"), truncated}};
}

QJsonObject rawRow(const QJsonArray &cells, bool spanning = false)
{
    return QJsonObject{{QStringLiteral("spanning"), spanning}, {QStringLiteral("cells"), cells}};
}

QJsonObject raw(const QJsonArray &rows, int seen = -1, bool found = true)
{
    return QJsonObject{{QStringLiteral("found"), found},
                       {QStringLiteral("scanned_nodes"), 40},
                       {QStringLiteral("scan_limit_reached"), false},
                       {QStringLiteral("row_scanned_nodes"), found ? 90 : 0},
                       {QStringLiteral("row_scan_limit_reached"), false},
                       {QStringLiteral("rows_seen"), seen < 0 ? int(rows.size()) : seen},
                       {QStringLiteral("rows"), rows}};
}

Extraction sampleExtraction()
{
    const QJsonArray rows{
        rawRow({cell("A-1"), cell("3"), cell("1234.5"), cell("true")}),
        rawRow({cell("A-2"), cell("-4"), cell("1,234.5"), cell("yes")}),
        rawRow({QJsonValue(), cell(""), cell("2.5e-3"), QJsonValue()}),
        rawRow({}, true),
    };
    return Extraction::fromCollector(tableRequest(), raw(rows, 6), QStringLiteral("ev")).value();
}

BrowserObservation observationWith(const Extraction &extraction)
{
    BrowserObservation observation;
    observation.url = QUrl(QStringLiteral("https://shop.acme-store.com/list"), QUrl::StrictMode);
    observation.title = QStringLiteral("List");
    observation.revision = newRevision();
    observation.text = QStringLiteral("SKU\tQty");
    ElementRecord button;
    button.ref = QStringLiteral("abc.0");
    button.role = QStringLiteral("button");
    button.name = QStringLiteral("Next");
    observation.elements = {button};
    observation.coverage.scannedCandidates = 1;
    observation.extraction = extraction;
    return observation;
}

} // namespace

class TestExtractionTyping : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void integers_data();
    void integers();
    void numbers_data();
    void numbers();
    void booleans_data();
    void booleans();
    void cellStatuses();
    void rowValidity();
    void fromCollectorTypesRowsAndCounts();
    void fromCollectorRejectsMalformedAnswers_data();
    void fromCollectorRejectsMalformedAnswers();
    void ceilingDropsWholeRowsWithCounts();
    void strictJsonRoundTrip();
    void strictJsonRejects_data();
    void strictJsonRejects();
    void observationRoundTripsOverTheHostProtocol();
    void evidenceRefsAreNeverElementRefs();
};

void TestExtractionTyping::integers_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<qint64>("value");
    QTest::newRow("zero") << "0" << true << qint64(0);
    QTest::newRow("plain") << "42" << true << qint64(42);
    QTest::newRow("negative") << "-7" << true << qint64(-7);
    QTest::newRow("plus") << "+7" << true << qint64(7);
    QTest::newRow("leading zeros") << "007" << true << qint64(7);
    QTest::newRow("2^53-1") << "9007199254740991" << true << qint64(9007199254740991);
    QTest::newRow("-(2^53-1)") << "-9007199254740991" << true << qint64(-9007199254740991);
    QTest::newRow("2^53") << "9007199254740992" << false << qint64(0);
    QTest::newRow("huge") << QString(300, QLatin1Char('9')) << false << qint64(0);
    QTest::newRow("grouping") << "1,234" << false << qint64(0);
    QTest::newRow("fraction") << "1.0" << false << qint64(0);
    QTest::newRow("exponent") << "1e3" << false << qint64(0);
    QTest::newRow("space") << " 1" << false << qint64(0);
    QTest::newRow("empty") << "" << false << qint64(0);
    QTest::newRow("sign only") << "-" << false << qint64(0);
    QTest::newRow("hex") << "0x10" << false << qint64(0);
    QTest::newRow("arabic-indic digits") << QString::fromUtf8("\u0661\u0662") << false << qint64(0);
    QTest::newRow("fullwidth digits") << QString::fromUtf8("\uFF11") << false << qint64(0);
}

void TestExtractionTyping::integers()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(qint64, value);
    const auto parsed = ExtractionTyping::parseInteger(text);
    QCOMPARE(parsed.has_value(), ok);
    if (ok)
        QCOMPARE(*parsed, value);
}

void TestExtractionTyping::numbers_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<double>("value");
    QTest::newRow("decimal") << "1234.5" << true << 1234.5;
    QTest::newRow("negative") << "-3.25" << true << -3.25;
    QTest::newRow("integer") << "12" << true << 12.0;
    QTest::newRow("exponent") << "1e3" << true << 1000.0;
    QTest::newRow("negative exponent") << "2.5E-3" << true << 0.0025;
    QTest::newRow("leading point") << ".5" << true << 0.5;
    QTest::newRow("trailing point") << "5." << true << 5.0;
    QTest::newRow("plus") << "+1.5" << true << 1.5;
    QTest::newRow("grouping comma") << "1,234.5" << false << 0.0;
    QTest::newRow("decimal comma") << "1,5" << false << 0.0;
    QTest::newRow("space grouping") << "1 234" << false << 0.0;
    QTest::newRow("overflow") << "1e400" << false << 0.0;
    QTest::newRow("nan") << "nan" << false << 0.0;
    QTest::newRow("inf") << "inf" << false << 0.0;
    QTest::newRow("Infinity") << "Infinity" << false << 0.0;
    QTest::newRow("hex") << "0x1p3" << false << 0.0;
    QTest::newRow("bare exponent") << "1e" << false << 0.0;
    QTest::newRow("exponent only") << "e5" << false << 0.0;
    QTest::newRow("point only") << "." << false << 0.0;
    QTest::newRow("double sign") << "--1" << false << 0.0;
    QTest::newRow("two points") << "1.2.3" << false << 0.0;
    QTest::newRow("currency") << "$5" << false << 0.0;
    QTest::newRow("trailing space") << "5 " << false << 0.0;
    QTest::newRow("empty") << "" << false << 0.0;
}

void TestExtractionTyping::numbers()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(double, value);
    const auto parsed = ExtractionTyping::parseNumber(text);
    QCOMPARE(parsed.has_value(), ok);
    if (ok) {
        QVERIFY(std::isfinite(*parsed));
        QCOMPARE(*parsed, value);
    }
}

void TestExtractionTyping::booleans_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("expected"); // -1 invalid, 0 false, 1 true
    QTest::newRow("true") << "true" << 1;
    QTest::newRow("false") << "false" << 0;
    QTest::newRow("True") << "True" << -1;
    QTest::newRow("TRUE") << "TRUE" << -1;
    QTest::newRow("1") << "1" << -1;
    QTest::newRow("yes") << "yes" << -1;
    QTest::newRow("padded") << " true" << -1;
}

void TestExtractionTyping::booleans()
{
    QFETCH(QString, text);
    QFETCH(int, expected);
    const auto parsed = ExtractionTyping::parseBoolean(text);
    QCOMPARE(parsed.has_value(), expected >= 0);
    if (parsed)
        QCOMPARE(int(*parsed), expected);
}

void TestExtractionTyping::cellStatuses()
{
    using S = ExtractionCell::Status;
    const auto missing =
        ExtractionTyping::typeCell(ExtractColumn::Type::String, std::nullopt, false);
    QCOMPARE(missing.status, S::Missing);
    QVERIFY(missing.value.isNull());
    QVERIFY(!missing.text);
    QCOMPARE(ExtractionTyping::typeCell(ExtractColumn::Type::Integer, QString(), false).status,
             S::Missing);
    const auto ok =
        ExtractionTyping::typeCell(ExtractColumn::Type::Integer, QStringLiteral("-12"), false);
    QCOMPARE(ok.status, S::Ok);
    QCOMPARE(ok.value, QJsonValue(-12));
    QVERIFY(!ok.text);
    const auto invalid =
        ExtractionTyping::typeCell(ExtractColumn::Type::Number, QStringLiteral("1,234.5"), false);
    QCOMPARE(invalid.status, S::Invalid);
    QVERIFY(invalid.value.isNull());
    QCOMPARE(invalid.text, QStringLiteral("1,234.5")); // the bounded source text is kept
    // A truncated cell is never typed, whatever its column.
    const auto truncated =
        ExtractionTyping::typeCell(ExtractColumn::Type::String, QStringLiteral("abc"), true);
    QCOMPARE(truncated.status, S::Truncated);
    QVERIFY(truncated.value.isNull());
    QCOMPARE(truncated.text, QStringLiteral("abc"));
    const auto boolean =
        ExtractionTyping::typeCell(ExtractColumn::Type::Boolean, QStringLiteral("false"), false);
    QCOMPARE(boolean.value, QJsonValue(false));
}

void TestExtractionTyping::rowValidity()
{
    const QList<ExtractColumn> columns{{QStringLiteral("a"), ExtractColumn::Type::String, true},
                                       {QStringLiteral("b"), ExtractColumn::Type::String, false}};
    const auto type = [](const std::optional<QString> &text, bool truncated = false) {
        return ExtractionTyping::typeCell(ExtractColumn::Type::String, text, truncated);
    };
    const auto integer = [](const QString &text) {
        return ExtractionTyping::typeCell(ExtractColumn::Type::Integer, text, false);
    };
    QVERIFY(ExtractionTyping::rowIsValid(columns, {type(QStringLiteral("x")), type(std::nullopt)},
                                         false));
    QVERIFY(!ExtractionTyping::rowIsValid(columns, {type(std::nullopt), type(QStringLiteral("y"))},
                                          false)); // required missing
    QVERIFY(!ExtractionTyping::rowIsValid(columns, {type(QStringLiteral("x")), integer("1.5")},
                                          false)); // invalid
    QVERIFY(!ExtractionTyping::rowIsValid(
        columns, {type(QStringLiteral("x")), type(QStringLiteral("y"), true)}, false));
    QVERIFY(!ExtractionTyping::rowIsValid(
        columns, {type(QStringLiteral("x")), type(QStringLiteral("y"))}, true)); // spanning
}

void TestExtractionTyping::fromCollectorTypesRowsAndCounts()
{
    const Extraction extraction = sampleExtraction();
    QVERIFY(extraction.found);
    QCOMPARE(extraction.rows.size(), 4);
    QCOMPARE(extraction.coverage.rowsSeen, 6);
    QCOMPARE(extraction.coverage.rowsOmittedByLimit, 2);
    QVERIFY(extraction.coverage.limitReached);
    QCOMPARE(extraction.coverage.rowsOmittedByCeiling, 0);

    const ExtractionRow &first = extraction.rows.at(0);
    QCOMPARE(first.ref, QStringLiteral("ev.0"));
    QVERIFY(first.valid);
    QCOMPARE(first.cells.at(0).value, QJsonValue(QStringLiteral("A-1")));
    QCOMPARE(first.cells.at(1).value, QJsonValue(3));
    QCOMPARE(first.cells.at(2).value, QJsonValue(1234.5));
    QCOMPARE(first.cells.at(3).value, QJsonValue(true));

    const ExtractionRow &second = extraction.rows.at(1);
    QVERIFY(!second.valid);
    QCOMPARE(second.cells.at(1).value, QJsonValue(-4));
    QCOMPARE(second.cells.at(2).status, ExtractionCell::Status::Invalid);
    QCOMPARE(second.cells.at(3).status, ExtractionCell::Status::Invalid);

    const ExtractionRow &third = extraction.rows.at(2);
    QVERIFY(!third.valid); // the required sku is missing
    QCOMPARE(third.cells.at(0).status, ExtractionCell::Status::Missing);
    QCOMPARE(third.cells.at(1).status, ExtractionCell::Status::Missing);
    QCOMPARE(third.cells.at(2).value, QJsonValue(0.0025));

    const ExtractionRow &fourth = extraction.rows.at(3);
    QVERIFY(fourth.spanning);
    QVERIFY(!fourth.valid);
    QCOMPARE(fourth.cells.size(), 4);
    for (const ExtractionCell &c : fourth.cells)
        QCOMPARE(c.status, ExtractionCell::Status::Invalid);
    QCOMPARE(fourth.ref, QStringLiteral("ev.3"));

    // Not found: no rows, zero row counters.
    const auto none =
        Extraction::fromCollector(tableRequest(), raw({}, 0, false), QStringLiteral("ev"));
    QVERIFY(none.ok());
    QVERIFY(!none->found);
    QVERIFY(none->rows.isEmpty());
}

void TestExtractionTyping::fromCollectorRejectsMalformedAnswers_data()
{
    QTest::addColumn<QJsonValue>("answer");
    const QJsonArray good{cell("A"), cell("1"), cell("1"), cell("true")};
    QTest::newRow("not an object") << QJsonValue(QStringLiteral("x"));
    QTest::newRow("missing") << QJsonValue();
    QJsonObject unknown = raw({rawRow(good)});
    unknown.insert(QStringLiteral("html"), QStringLiteral("<b>"));
    QTest::newRow("unknown key") << QJsonValue(unknown);
    QTest::newRow("too few cells") << QJsonValue(raw({rawRow({cell("A")})}));
    QTest::newRow("spanning with cells") << QJsonValue(raw({rawRow(good, true)}));
    QTest::newRow("cell too long") << QJsonValue(
        raw({rawRow({cell(QString(257, QLatin1Char('x'))), cell("1"), cell("1"), cell("true")})}));
    QTest::newRow("lone surrogate") << QJsonValue(
        raw({rawRow({cell(QString(QChar(0xD800))), cell("1"), cell("1"), cell("true")})}));
    QTest::newRow("cell not an object")
        << QJsonValue(raw({rawRow({QJsonValue(5), cell("1"), cell("1"), cell("true")})}));
    QJsonArray many;
    for (int i = 0; i < 11; ++i)
        many.append(rawRow(good));
    QTest::newRow("more rows than the limit") << QJsonValue(raw(many));
    QTest::newRow("fewer seen than returned") << QJsonValue(raw({rawRow(good)}, 0));
    QTest::newRow("rows without a collection") << QJsonValue(raw({rawRow(good)}, 1, false));
    QJsonObject scanned = raw({});
    scanned.insert(QStringLiteral("scanned_nodes"), 8193);
    QTest::newRow("scan beyond its bound") << QJsonValue(scanned);
}

void TestExtractionTyping::fromCollectorRejectsMalformedAnswers()
{
    QFETCH(QJsonValue, answer);
    const auto result = Extraction::fromCollector(tableRequest(), answer, QStringLiteral("ev"));
    QVERIFY(!result.ok());
    QCOMPARE(result.error().code, QStringLiteral("tool.browser.output_invalid"));
}

void TestExtractionTyping::ceilingDropsWholeRowsWithCounts()
{
    ExtractRequest request = tableRequest(50);
    request.columns.clear();
    for (int c = 0; c < 8; ++c)
        request.columns.append({QStringLiteral("c%1").arg(c), ExtractColumn::Type::String, false});
    // 50 rows of 8 cells of 256 units, some escape-heavy: far beyond 64 KiB.
    QJsonArray rows;
    for (int r = 0; r < 50; ++r) {
        QJsonArray cells;
        for (int c = 0; c < 8; ++c) {
            const QChar fill = (r + c) % 3 == 0 ? QChar(0x01) : QChar(0x20AC);
            cells.append(cell(QString(256, fill)));
        }
        rows.append(rawRow(cells));
    }
    const auto extraction = Extraction::fromCollector(request, raw(rows, 70), QStringLiteral("ev"));
    QVERIFY(extraction.ok());
    QVERIFY(extraction->canonicalSize() <= ExtractionBounds::kMaxCeilingBytes);
    QVERIFY(extraction->rows.size() > 0);
    QVERIFY(extraction->rows.size() < 50);
    QCOMPARE(extraction->coverage.rowsOmittedByCeiling, 50 - int(extraction->rows.size()));
    QCOMPARE(extraction->coverage.rowsOmittedByLimit, 20);
    // Whole rows: every kept row has all of its cells, and one more would not have fit.
    for (const ExtractionRow &row : extraction->rows) {
        QCOMPARE(row.cells.size(), 8);
        for (const ExtractionCell &c : row.cells)
            QCOMPARE(c.value.toString().size(), 256);
    }
    const auto full =
        Extraction::fromCollector(request, raw(QJsonArray{rows.at(0)}, 1), QStringLiteral("ev"));
    QVERIFY(full.ok());
    Extraction oneMore = *extraction;
    oneMore.rows.append(extraction->rows.last());
    oneMore.rows.last().ref = QStringLiteral("ev.extra");
    oneMore.coverage.rowsOmittedByCeiling -= 1;
    QVERIFY(oneMore.canonicalSize() > ExtractionBounds::kMaxCeilingBytes);
    // And it validates as canonical.
    QVERIFY(Extraction::fromJson(extraction->toJson()).ok());
}

void TestExtractionTyping::strictJsonRoundTrip()
{
    const Extraction extraction = sampleExtraction();
    const auto parsed = Extraction::fromJson(extraction.toJson());
    QVERIFY(parsed.ok());
    QCOMPARE(*parsed, extraction);
}

void TestExtractionTyping::strictJsonRejects_data()
{
    QTest::addColumn<QJsonObject>("json");
    const QJsonObject good = sampleExtraction().toJson();
    const auto withRow = [&good](int r, const std::function<void(QJsonObject &)> &edit) {
        QJsonObject json = good;
        QJsonArray rows = json.value(QStringLiteral("rows")).toArray();
        QJsonObject row = rows.at(r).toObject();
        edit(row);
        rows[r] = row;
        json.insert(QStringLiteral("rows"), rows);
        return json;
    };
    const auto withCell = [&withRow](int r, int c, const std::function<void(QJsonObject &)> &edit) {
        return withRow(r, [&](QJsonObject &row) {
            QJsonArray cells = row.value(QStringLiteral("cells")).toArray();
            QJsonObject object = cells.at(c).toObject();
            edit(object);
            cells[c] = object;
            row.insert(QStringLiteral("cells"), cells);
        });
    };
    QJsonObject unknown = good;
    unknown.insert(QStringLiteral("html"), true);
    QTest::newRow("unknown key") << unknown;
    QJsonObject noCoverage = good;
    noCoverage.remove(QStringLiteral("coverage"));
    QTest::newRow("missing coverage") << noCoverage;
    QTest::newRow("wrong value type") << withCell(
        0, 1, [](QJsonObject &c) { c.insert(QStringLiteral("value"), QStringLiteral("3")); });
    QTest::newRow("fractional integer")
        << withCell(0, 1, [](QJsonObject &c) { c.insert(QStringLiteral("value"), 3.5); });
    QTest::newRow("inexact integer") << withCell(
        0, 1, [](QJsonObject &c) { c.insert(QStringLiteral("value"), 9007199254740992.0); });
    QTest::newRow("text on an ok cell") << withCell(
        0, 0, [](QJsonObject &c) { c.insert(QStringLiteral("text"), QStringLiteral("A-1")); });
    QTest::newRow("value on a missing cell") << withCell(
        2, 0, [](QJsonObject &c) { c.insert(QStringLiteral("value"), QStringLiteral("x")); });
    QTest::newRow("unknown status") << withCell(
        0, 0, [](QJsonObject &c) { c.insert(QStringLiteral("status"), QStringLiteral("maybe")); });
    QTest::newRow("validity that does not follow")
        << withRow(1, [](QJsonObject &row) { row.insert(QStringLiteral("valid"), true); });
    QTest::newRow("duplicate ref") << withRow(
        1, [](QJsonObject &row) { row.insert(QStringLiteral("ref"), QStringLiteral("ev.0")); });
    QTest::newRow("spanning row with a read cell") << withCell(3, 0, [](QJsonObject &c) {
        c.insert(QStringLiteral("status"), QStringLiteral("missing"));
    });
    QJsonObject counts = good;
    QJsonObject coverage = counts.value(QStringLiteral("coverage")).toObject();
    coverage.insert(QStringLiteral("rows_seen"), 99);
    counts.insert(QStringLiteral("coverage"), coverage);
    QTest::newRow("counts that do not add up") << counts;
    QJsonObject index = good;
    index.insert(QStringLiteral("index"), 16);
    QTest::newRow("index out of bounds") << index;
}

void TestExtractionTyping::strictJsonRejects()
{
    QFETCH(QJsonObject, json);
    const auto result = Extraction::fromJson(json);
    QVERIFY(!result.ok());
    QCOMPARE(result.error().code, QStringLiteral("tool.browser.output_invalid"));
}

void TestExtractionTyping::observationRoundTripsOverTheHostProtocol()
{
    const BrowserObservation observation = observationWith(sampleExtraction());
    const auto parsed = BrowserObservation::fromJson(observation.toJson(), TestOverrides());
    QVERIFY(parsed.ok());
    QCOMPARE(*parsed, observation);
    // Without an extraction the observation is unchanged.
    BrowserObservation plain = observation;
    plain.extraction.reset();
    QVERIFY(!plain.toJson().contains(QStringLiteral("extraction")));

    const QByteArray line = HostProtocol::encodeResult(7, observation);
    const auto response = HostProtocol::decodeResponse(line, TestOverrides());
    QVERIFY(response.has_value());
    QCOMPARE(response->id, quint64(7));
    QVERIFY(response->result.ok());
    QCOMPARE(*response->result, observation);

    // The extract request itself crosses as the observe mode.
    HostProtocol::Request request;
    request.id = 8;
    request.op = QStringLiteral("observe");
    ExtractRequest extract = tableRequest(5);
    extract.revision = observation.revision;
    request.observe = ObserveRequest::extract(extract);
    const auto decoded = HostProtocol::decodeRequest(HostProtocol::encodeRequest(request));
    QVERIFY(decoded.has_value());
    QCOMPARE(decoded->observe, request.observe);

    // A tampered extraction from the host is refused like any invalid output.
    QJsonObject json = observation.toJson();
    QJsonObject tampered = json.value(QStringLiteral("extraction")).toObject();
    tampered.insert(QStringLiteral("found"), QStringLiteral("yes"));
    json.insert(QStringLiteral("extraction"), tampered);
    const QByteArray bad =
        QJsonDocument(QJsonObject{{QStringLiteral("id"), 9}, {QStringLiteral("observation"), json}})
            .toJson(QJsonDocument::Compact);
    const auto refused = HostProtocol::decodeResponse(bad, TestOverrides());
    QVERIFY(!refused || !refused->result.ok());
}

void TestExtractionTyping::evidenceRefsAreNeverElementRefs()
{
    Extraction extraction = sampleExtraction();
    extraction.rows[0].ref = QStringLiteral("abc.0"); // the element's ref
    const BrowserObservation observation = observationWith(extraction);
    const auto parsed = BrowserObservation::fromJson(observation.toJson(), TestOverrides());
    QVERIFY(!parsed.ok());
    QCOMPARE(parsed.error().code, QStringLiteral("tool.browser.output_invalid"));
}

QTEST_GUILESS_MAIN(TestExtractionTyping)
#include "tst_extractiontyping.moc"
