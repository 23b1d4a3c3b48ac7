// The model projection in extraction mode: requested rows come right after the revision and
// before controls, location, title and prose; smaller budgets keep a prefix of whole canonical
// rows and count the rest; otherwise the whole extraction is omitted explicitly. Unit rules,
// then generated observations at budgets from 256 bytes to 24 KiB checked by an oracle (valid
// JSON, within budget, whole rows, counts, priority, one more row would not have fit).

#include "domain/observation/BrowserObservation.h"
#include "domain/observation/Extraction.h"
#include "domain/web/TestOverrides.h"
#include "tools/ModelProjection.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>

using namespace veetbot;

namespace {

QByteArray compact(const QJsonValue &value)
{
    if (value.isObject())
        return QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact);
    if (value.isArray())
        return QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact);
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return wrapped.mid(1, wrapped.size() - 2);
}

QString randomText(QRandomGenerator &random, int maxUnits)
{
    static const QList<QString> pieces{QStringLiteral("a"),    QStringLiteral("Kettle"),
                                       QStringLiteral("\""),   QStringLiteral("\\"),
                                       QString(QChar(0x01)),   QStringLiteral("€"),
                                       QStringLiteral("😀"),    QStringLiteral(" "),
                                       QStringLiteral("12.5"), QStringLiteral("\t")};
    QString text;
    const int target = int(random.bounded(maxUnits + 1));
    while (text.size() < target) {
        const QString &piece = pieces.at(int(random.bounded(pieces.size())));
        if (text.size() + piece.size() > maxUnits)
            break;
        text += piece;
    }
    return text;
}

BrowserObservation baseObservation(QRandomGenerator &random, int elements, int textUnits)
{
    BrowserObservation observation;
    observation.url =
        QUrl(QStringLiteral("https://shop.acme-store.com/orders?page=2"), QUrl::StrictMode);
    observation.title = randomText(random, 200);
    observation.revision = newRevision();
    observation.readiness = Readiness::DomQuiet;
    observation.text = randomText(random, textUnits);
    for (int i = 0; i < elements; ++i) {
        ElementRecord element;
        element.ref = QStringLiteral("el.%1").arg(i);
        element.role = QStringLiteral("button");
        element.name = randomText(random, 300);
        observation.elements.append(element);
    }
    observation.coverage.scannedCandidates = elements;
    return observation;
}

Extraction randomExtraction(QRandomGenerator &random, int rowCount)
{
    ExtractRequest request;
    request.revision = QStringLiteral("r");
    request.kind = ExtractRequest::Kind::Table;
    request.index = int(random.bounded(16));
    request.limit = 50;
    const int columns = 1 + int(random.bounded(8));
    for (int c = 0; c < columns; ++c) {
        const auto type = ExtractColumn::Type(random.bounded(4));
        request.columns.append({QStringLiteral("col%1").arg(c), type, random.bounded(3) == 0});
    }
    static const QList<QString> typed{QStringLiteral("42"), QStringLiteral("-1.5e3"),
                                      QStringLiteral("true"), QStringLiteral("1,234.5"), QString()};
    QJsonArray rows;
    for (int r = 0; r < rowCount; ++r) {
        const bool spanning = random.bounded(10) == 0;
        QJsonArray cells;
        for (int c = 0; !spanning && c < columns; ++c) {
            if (random.bounded(6) == 0) {
                cells.append(QJsonValue());
                continue;
            }
            const QString text = random.bounded(2) ? typed.at(int(random.bounded(typed.size())))
                                                   : randomText(random, 256);
            cells.append(QJsonObject{{QStringLiteral("text"), text},
                                     {QStringLiteral("truncated"), random.bounded(12) == 0}});
        }
        rows.append(
            QJsonObject{{QStringLiteral("spanning"), spanning}, {QStringLiteral("cells"), cells}});
    }
    const QJsonObject raw{{QStringLiteral("found"), true},
                          {QStringLiteral("scanned_nodes"), 100},
                          {QStringLiteral("scan_limit_reached"), false},
                          {QStringLiteral("row_scanned_nodes"), 4096},
                          {QStringLiteral("row_scan_limit_reached"), true},
                          {QStringLiteral("rows_seen"), rowCount + int(random.bounded(20))},
                          {QStringLiteral("rows"), rows}};
    return Extraction::fromCollector(request, raw, QStringLiteral("ev")).value();
}

// `"extraction":{...}` with no rows: the smallest non-omitted extraction view, built
// independently of the projection's own code.
qsizetype zeroRowMemberSize(const Extraction &extraction)
{
    const QJsonObject canonical = extraction.toJson();
    QByteArray out = R"("extraction":{"kind":)" + compact(canonical.value(QLatin1String("kind"))) +
                     R"(,"index":)" + compact(canonical.value(QLatin1String("index"))) +
                     R"(,"found":)" + compact(canonical.value(QLatin1String("found"))) +
                     R"(,"columns":)" + compact(canonical.value(QLatin1String("columns"))) +
                     R"(,"rows":[],)";
    if (!extraction.rows.isEmpty())
        out += R"("omitted_rows":)" + QByteArray::number(extraction.rows.size()) + ',';
    out += R"("coverage":)" + compact(canonical.value(QLatin1String("coverage"))) + '}';
    return out.size();
}

qsizetype omittedRowsMemberSize(qsizetype count)
{
    return count > 0
               ? qsizetype(sizeof(R"("omitted_rows":,)") - 1) + QByteArray::number(count).size()
               : 0;
}

const QByteArray kMarker =
    QByteArrayLiteral(R"("extraction":{"omitted":"whole_extraction","reason":"budget"})");

// The oracle. Returns an empty string when the projection is right, else what is wrong.
QString check(const BrowserObservation &observation, int budget, const QByteArray &bytes)
{
    const qsizetype limit = qMax(budget, ModelProjection::kMinBudgetBytes);
    if (bytes.size() > limit)
        return QStringLiteral("over budget");
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return QStringLiteral("not valid JSON");
    const QJsonObject view = document.object().value(QLatin1String("observation")).toObject();
    if (view.value(QLatin1String("omitted")) == QLatin1String("whole_observation"))
        return QString();
    if (view.value(QLatin1String("revision")).toString() != observation.revision)
        return QStringLiteral("revision changed");
    const Extraction &extraction = *observation.extraction;
    const QJsonObject member = view.value(QLatin1String("extraction")).toObject();
    if (member.isEmpty())
        return QStringLiteral("no extraction member");
    // Rows precede controls, location, title and prose, in the bytes too.
    const qsizetype at = bytes.indexOf(R"("extraction":)");
    const qsizetype elementsAt = bytes.indexOf(R"("elements":)");
    if (at < 0 || elementsAt < 0 || at > elementsAt)
        return QStringLiteral("extraction not before the controls");
    const bool anyOptional = !view.value(QLatin1String("elements")).toArray().isEmpty() ||
                             view.contains(QLatin1String("url")) ||
                             view.contains(QLatin1String("title")) ||
                             view.contains(QLatin1String("text"));
    if (member.value(QLatin1String("omitted")) == QLatin1String("whole_extraction")) {
        if (member.size() != 2 || member.value(QLatin1String("reason")) != QLatin1String("budget"))
            return QStringLiteral("bad omission marker");
        if (anyOptional)
            return QStringLiteral("optional content while the extraction is omitted");
        if (bytes.size() - kMarker.size() + zeroRowMemberSize(extraction) <= limit)
            return QStringLiteral("the extraction metadata would have fit");
        return QString();
    }
    const QJsonObject canonical = extraction.toJson();
    for (const char *key : {"kind", "index", "found", "columns", "coverage"}) {
        if (member.value(QLatin1String(key)) != canonical.value(QLatin1String(key)))
            return QStringLiteral("metadata differs: %1").arg(QLatin1String(key));
    }
    const QJsonArray rows = member.value(QLatin1String("rows")).toArray();
    const QJsonArray canonicalRows = canonical.value(QLatin1String("rows")).toArray();
    if (rows.size() > canonicalRows.size())
        return QStringLiteral("too many rows");
    for (qsizetype i = 0; i < rows.size(); ++i) {
        if (rows.at(i) != canonicalRows.at(i))
            return QStringLiteral("row %1 is not the canonical row").arg(i);
    }
    const qsizetype omitted = canonicalRows.size() - rows.size();
    if (omitted > 0 ? member.value(QLatin1String("omitted_rows")).toInteger() != omitted
                    : member.contains(QLatin1String("omitted_rows")))
        return QStringLiteral("omitted row count wrong");
    if (omitted > 0) {
        if (anyOptional)
            return QStringLiteral("optional content while rows were dropped");
        // One more whole row would not have fit.
        const qsizetype next = bytes.size() + compact(canonicalRows.at(rows.size())).size() +
                               (rows.isEmpty() ? 0 : 1) + omittedRowsMemberSize(omitted - 1) -
                               omittedRowsMemberSize(omitted);
        if (next <= limit)
            return QStringLiteral("one more row would have fit");
    }
    return QString();
}

} // namespace

class TestExtractionProjection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void rowsPrecedeControlsLocationTitleAndProse();
    void smallerBudgetsDropWholeRowsWithCounts();
    void wholeExtractionOmittedExplicitly();
    void withoutExtractionNothingChanges();
    void generatedObservations();
};

void TestExtractionProjection::rowsPrecedeControlsLocationTitleAndProse()
{
    QRandomGenerator random(1);
    BrowserObservation observation = baseObservation(random, 20, 4000);
    observation.extraction = randomExtraction(random, 5);
    const auto projection = ModelProjection::build(observation, 16384);
    QVERIFY2(check(observation, 16384, projection.bytes).isEmpty(),
             qPrintable(check(observation, 16384, projection.bytes)));
    QCOMPARE(projection.exposedRows, 5);
    // All rows shown before any control is admitted.
    if (projection.exposedElements > 0)
        QCOMPARE(projection.exposedRows, int(observation.extraction->rows.size()));
    QVERIFY(projection.bytes.indexOf("\"extraction\":") <
            projection.bytes.indexOf("\"elements\":"));
}

void TestExtractionProjection::smallerBudgetsDropWholeRowsWithCounts()
{
    QRandomGenerator random(2);
    BrowserObservation observation = baseObservation(random, 3, 100);
    observation.extraction = randomExtraction(random, 40);
    int previous = int(observation.extraction->rows.size()) + 1;
    for (int budget = 24 * 1024; budget >= 256; budget -= 512) {
        const auto projection = ModelProjection::build(observation, budget);
        const QString problem = check(observation, budget, projection.bytes);
        QVERIFY2(problem.isEmpty(),
                 qPrintable(QStringLiteral("%1 at %2").arg(problem).arg(budget)));
        if (!projection.wholeObservationOmitted) {
            QVERIFY(projection.exposedRows <= previous); // monotonic in the budget
            previous = projection.exposedRows;
        }
    }
}

void TestExtractionProjection::wholeExtractionOmittedExplicitly()
{
    QRandomGenerator random(3);
    BrowserObservation observation = baseObservation(random, 0, 0);
    observation.title.clear();
    Extraction extraction = randomExtraction(random, 2);
    // Long column names make the metadata itself larger than a small budget.
    for (int c = 0; c < extraction.columns.size(); ++c)
        extraction.columns[c].name = QString(64, QChar(u'a' + c));
    observation.extraction = extraction;
    const int budget = 600;
    const auto projection = ModelProjection::build(observation, budget);
    QVERIFY2(check(observation, budget, projection.bytes).isEmpty(),
             qPrintable(check(observation, budget, projection.bytes)));
    if (zeroRowMemberSize(extraction) > budget) {
        QVERIFY(projection.extractionOmitted);
        QVERIFY(projection.bytes.contains(kMarker));
        QCOMPARE(projection.exposedRows, 0);
    }
}

void TestExtractionProjection::withoutExtractionNothingChanges()
{
    QRandomGenerator random(4);
    const BrowserObservation observation = baseObservation(random, 10, 2000);
    const auto projection = ModelProjection::build(observation, 4096);
    QVERIFY(!projection.bytes.contains("\"extraction\""));
    QCOMPARE(projection.exposedRows, 0);
    QVERIFY(!projection.extractionOmitted);
}

void TestExtractionProjection::generatedObservations()
{
    QRandomGenerator random(20240161);
    int omittedExtractions = 0;
    int partialRows = 0;
    int allRows = 0;
    // 200 observations by default; 1,000 under the `full` label (VEETBOT_TEST_FULL=1).
    const int observations = qEnvironmentVariableIsSet("VEETBOT_TEST_FULL") ? 1000 : 200;
    for (int i = 0; i < observations; ++i) {
        BrowserObservation observation =
            baseObservation(random, int(random.bounded(40)), int(random.bounded(6000)));
        observation.extraction = randomExtraction(random, int(random.bounded(51)));
        QVERIFY(BrowserObservation::fromJson(observation.toJson(), TestOverrides()).ok());
        for (const int budget : {256, 1024, 2048, 4096, 16384, int(random.bounded(256, 24576))}) {
            const auto projection = ModelProjection::build(observation, budget);
            const QString problem = check(observation, budget, projection.bytes);
            QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("%1 (observation %2, budget %3)")
                                                       .arg(problem)
                                                       .arg(i)
                                                       .arg(budget)));
            QCOMPARE(ModelProjection::build(observation, budget).bytes, projection.bytes);
            if (projection.wholeObservationOmitted)
                continue;
            if (projection.extractionOmitted)
                ++omittedExtractions;
            else if (projection.exposedRows < observation.extraction->rows.size())
                ++partialRows;
            else
                ++allRows;
        }
    }
    // The generator reaches every branch.
    QVERIFY(omittedExtractions > 0);
    QVERIFY(partialRows > 0);
    QVERIFY(allRows > 0);
}

QTEST_GUILESS_MAIN(TestExtractionProjection)
#include "tst_extractionprojection.moc"
