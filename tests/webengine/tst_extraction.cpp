// browser.observe {extract} in real Chromium through WebEngineProvider (offscreen, traffic through
// the egress proxy), and once through `veetbot observe --extract` and the isolated browser host:
// typed table columns, lists, forms that never expose entered or selected values, hidden rows and
// cells, index among visible collections, spanning cells, bounds on a 10,000-row table with huge
// cells, the 64 KiB ceiling, Unicode cuts, stale and foreign revisions refused before any capture,
// evidence refs that are no anchors.

#include "BrowserEnvironment.h"
#include "BrowserTestHarness.h"
#include "EventWait.h"
#include "WebEngineProvider.h"

#include <QApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTest>
#include <QWebEngineLoadingInfo>
#include <QWebEnginePage>

using namespace veetbot;
using namespace veetbot::testing;

namespace {

const char kTypedPage[] = R"(<!doctype html><title>Typed</title><body>
<table id=t>
<thead><tr><th>SKU</th><th>Qty</th><th>Price</th><th>Stock</th></tr></thead>
<tbody>
<tr><td>A-1</td><td>3</td><td>1234.5</td><td>true</td></tr>
<tr><td>A-2</td><td>-4</td><td>1,234.5</td><td>yes</td></tr>
<tr><td>A-3</td><td>+7</td><td>-2.5e3</td><td>false</td></tr>
<tr><td></td><td>5</td></tr>
<tr style="display:none"><td>HIDDEN-ROW-CANARY</td><td>1</td><td>1</td><td>true</td></tr>
<tr><td>A-5<span hidden>HIDDEN-CELL-CANARY</span><span aria-hidden=true>ARIA-CANARY</span></td>
    <td>9007199254740992</td><td>  12  </td><td>TRUE</td></tr>
<tr><td>A-6<input value="INPUT-CANARY"></td><td style="display:none">999</td><td>8</td><td>1e2</td></tr>
<tr><th>Total</th><td colspan=2>SPAN-CANARY</td><td>true</td></tr>
<tr><td rowspan=2>A-8</td><td>1</td><td>1</td><td>true</td></tr>
<tr><td>2</td><td>2</td><td>false</td></tr>
<tr><td>A-10</td><td>10</td><td>.5</td><td>false</td></tr>
</tbody></table>
<button>Next page</button><p>Some prose.</p></body>)";

const char kIndexPage[] = R"(<!doctype html><title>Index</title><body>
<table hidden><tr><td>HIDDEN-TABLE-CANARY</td></tr></table>
<table style="display:none"><tr><td>NONE-TABLE-CANARY</td></tr></table>
<table role=presentation><tr><td>layout</td></tr></table>
<table><tr><td>first</td></tr></table>
<div aria-hidden=true><table><tr><td>ARIA-TABLE-CANARY</td></tr></table></div>
<div role=grid><div role=row><div role=columnheader>H</div></div>
  <div role=row><div role=gridcell>second</div></div></div>
<table><tr><td>third</td></tr></table>
</body>)";

const char kListPage[] = R"(<!doctype html><title>Lists</title><body>
<ul style="display:none"><li>NONE-LIST-CANARY</li></ul>
<ul><li>Apples</li><li hidden>HIDDEN-ITEM-CANARY</li><li> Pears <b>ripe</b></li>
    <li><span aria-hidden=true>ARIA-CANARY</span></li></ul>
<ol><li>10</li><li>x</li><li>-3</li></ol>
<div role=list><div role=listitem>one</div><div role=listitem>two</div></div>
</body>)";

const char kFormPage[] = R"(<!doctype html><title>Form</title><body>
<form id=f>
  <label for=name>Name</label><input id=name required value="VALUE-CANARY">
  <label><input type=checkbox checked required> Gift wrap</label>
  <label for=colour>Colour</label>
  <select id=colour><option>OPTION-A-CANARY</option><option selected>SELECTED-CANARY</option></select>
  <label for=note>Note</label><textarea id=note>TEXTAREA-CANARY</textarea>
  <input type=hidden value="HIDDEN-INPUT-CANARY">
  <input type=password aria-label="Password" value="PASSWORD-CANARY">
  <div contenteditable aria-label="Editor">EDITABLE-CANARY</div>
  <div hidden><input aria-label="HIDDEN-CONTROL-CANARY"></div>
  <button disabled>Send</button>
</form>
<script>
document.getElementById('name').value = 'TYPED-CANARY';
document.getElementById('note').value = 'TYPED-NOTE-CANARY';
</script></body>)";

// 10,000 rows: the first 60 with eight cells of exactly 256 UTF-16 units (two UTF-8 bytes
// each, well beyond the 64 KiB ceiling together), row 0 with a 100,000-unit cell and a cell
// nested 300 elements deep.
const char kBigPage[] =
    R"(<!doctype html><title>Big</title><body><table id=t><tbody></tbody></table>
<script>
const body = document.querySelector('#t tbody');
const wide = 'é'.repeat(256);
let html = '';
for (let r = 0; r < 10000; r++) {
  if (r === 0) {
    html += '<tr><td>' + 'x'.repeat(100000) + '</td><td>' + '<span>'.repeat(300) + 'deep' +
            '</span>'.repeat(300) + '</td><td>1</td><td>2</td><td>3</td><td>4</td><td>5</td><td>6</td></tr>';
  } else if (r < 60) {
    html += '<tr>' + ('<td>' + wide + '</td>').repeat(8) + '</tr>';
  } else {
    html += '<tr><td>r' + r + '</td><td>' + r + '</td></tr>';
  }
}
body.innerHTML = html;
</script></body>)";

const char kUnicodePage[] = R"(<!doctype html><title>Unicode</title><body><table>
<tr><td id=cut></td><td>Grüße 😀 日本</td></tr></table>
<script>document.getElementById('cut').textContent = 'a'.repeat(255) + '😀' + 'tail';</script>
</body>)";

QString codeOf(const Result<BrowserObservation> &result)
{
    return result.ok() ? QStringLiteral("ok") : result.error().code;
}

ExtractColumn column(const char *name, ExtractColumn::Type type, bool required = false)
{
    return ExtractColumn{QString::fromLatin1(name), type, required};
}

ExtractRequest request(ExtractRequest::Kind kind, int index, QList<ExtractColumn> columns,
                       int limit, const QString &revision)
{
    ExtractRequest extract;
    extract.kind = kind;
    extract.index = index;
    extract.columns = std::move(columns);
    extract.limit = limit;
    extract.revision = revision;
    return extract;
}

QList<ExtractColumn> typedColumns()
{
    return {column("sku", ExtractColumn::Type::String, true),
            column("qty", ExtractColumn::Type::Integer),
            column("price", ExtractColumn::Type::Number),
            column("stock", ExtractColumn::Type::Boolean)};
}

using Status = ExtractionCell::Status;

} // namespace

class TestExtraction : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void typedTableColumns();
    void indexCountsVisibleCollectionsOnly();
    void listsExposeItemText();
    void formsNeverExposeValues();
    void boundsHoldOnAHugeTable();
    void unicodeIsNeverSplit();
    void staleAndForeignRevisionsAreRefusedBeforeCapture();
    void evidenceRefsAreNotAnchors();
    void missingCollectionIsReportedNotFound();
    void reloadedDocumentIsPageChanged();
    void cliExtractsThroughTheIsolatedHost();

private:
    // Navigates to path and extracts with the navigation's revision.
    Result<BrowserObservation> extractAt(const QString &path, ExtractRequest extract);
    QString collectorState();
    void runInPage(const QString &source);

    BrowserTestHarness m_harness;
    std::unique_ptr<WebEngineProvider> m_provider;
};

void TestExtraction::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    QVERIFY(m_harness.routeThroughEgressProxy());
    m_harness.page(QStringLiteral("/typed"), kTypedPage);
    m_harness.page(QStringLiteral("/index"), kIndexPage);
    m_harness.page(QStringLiteral("/lists"), kListPage);
    m_harness.page(QStringLiteral("/form"), kFormPage);
    m_harness.page(QStringLiteral("/big"), kBigPage);
    m_harness.page(QStringLiteral("/unicode"), kUnicodePage);
    m_provider = std::make_unique<WebEngineProvider>(
        m_harness.policy({QStringLiteral("shop.test")}), m_harness.overrides());
    QVERIFY(m_provider->capabilities().extract);
    // A browser that cannot start is a failure, never a skip.
    const auto first = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/index")));
    QVERIFY2(first.ok(), qPrintable(codeOf(first)));
}

void TestExtraction::cleanupTestCase()
{
    m_provider.reset();
}

Result<BrowserObservation> TestExtraction::extractAt(const QString &path, ExtractRequest extract)
{
    const auto navigated =
        BrowserTestHarness::navigate(*m_provider, m_harness.url(QStringLiteral("shop.test"), path));
    if (!navigated)
        return navigated.error();
    extract.revision = navigated->revision;
    return BrowserTestHarness::observe(*m_provider, ObserveRequest::extract(extract));
}

QString TestExtraction::collectorState()
{
    // Shared with the callback: after a wait that timed out it may still run.
    auto state = std::make_shared<std::optional<std::optional<QJsonObject>>>();
    m_provider->runCollectorScript(
        Collector::stateCall(), [state](std::optional<QJsonObject> r) { *state = std::move(r); });
    if (!testing::runEventsUntil([state] { return state->has_value(); }, 10000) || !**state)
        return QStringLiteral("no answer");
    return QString::fromUtf8(QJsonDocument(***state).toJson(QJsonDocument::Compact));
}

void TestExtraction::runInPage(const QString &source)
{
    bool done = false;
    m_provider->view()->page()->runJavaScript(source, [&done](const QVariant &) { done = true; });
    QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
}

void TestExtraction::typedTableColumns()
{
    const auto result = extractAt(QStringLiteral("/typed"),
                                  request(ExtractRequest::Kind::Table, 0, typedColumns(), 50, {}));
    QVERIFY2(result.ok(), qPrintable(codeOf(result)));
    QVERIFY(result->extraction);
    const Extraction &x = *result->extraction;
    QVERIFY(x.found);
    // A successful read is a normal capture too: controls and prose with it.
    QCOMPARE(result->elements.size(), 2); // the input in a cell and the button
    QCOMPARE(m_provider->currentRevision(), result->revision);

    // Header row and the display:none row are not rows; eleven body rows are.
    QCOMPARE(x.coverage.rowsSeen, 10);
    QCOMPARE(x.rows.size(), 10);
    QVERIFY(!x.coverage.limitReached);
    const auto cell = [&x](int r, int c) { return x.rows.at(r).cells.at(c); };

    // A-1: every type.
    QVERIFY(x.rows.at(0).valid);
    QCOMPARE(cell(0, 0).value, QJsonValue(QStringLiteral("A-1")));
    QCOMPARE(cell(0, 1).value, QJsonValue(3));
    QCOMPARE(cell(0, 2).value, QJsonValue(1234.5));
    QCOMPARE(cell(0, 3).value, QJsonValue(true));
    // A-2: negative integer; grouping comma and "yes" are invalid with their source text.
    QVERIFY(!x.rows.at(1).valid);
    QCOMPARE(cell(1, 1).value, QJsonValue(-4));
    QCOMPARE(cell(1, 2).status, Status::Invalid);
    QCOMPARE(cell(1, 2).text, QStringLiteral("1,234.5"));
    QCOMPARE(cell(1, 3).status, Status::Invalid);
    // A-3: plus sign, exponent, false.
    QVERIFY(x.rows.at(2).valid);
    QCOMPARE(cell(2, 1).value, QJsonValue(7));
    QCOMPARE(cell(2, 2).value, QJsonValue(-2500.0));
    QCOMPARE(cell(2, 3).value, QJsonValue(false));
    // Empty required SKU and absent cells: missing; the row is invalid.
    QVERIFY(!x.rows.at(3).valid);
    QCOMPARE(cell(3, 0).status, Status::Missing);
    QCOMPARE(cell(3, 1).value, QJsonValue(5));
    QCOMPARE(cell(3, 2).status, Status::Missing);
    QCOMPARE(cell(3, 3).status, Status::Missing);
    // A-5: hidden parts of a cell are no text; 2^53 is not exact; whitespace collapses; TRUE
    // is no boolean.
    QCOMPARE(cell(4, 0).value, QJsonValue(QStringLiteral("A-5")));
    QCOMPARE(cell(4, 1).status, Status::Invalid);
    QCOMPARE(cell(4, 2).value, QJsonValue(12.0));
    QCOMPARE(cell(4, 3).status, Status::Invalid);
    // A-6: an input's value is no text; a display:none cell takes no position.
    QCOMPARE(cell(5, 0).value, QJsonValue(QStringLiteral("A-6")));
    QCOMPARE(cell(5, 1).value, QJsonValue(8));
    QCOMPARE(cell(5, 2).value, QJsonValue(100.0));
    QCOMPARE(cell(5, 3).status, Status::Missing);
    // colspan: unsupported and said so; rowspan: both rows it covers.
    for (const int r : {6, 7, 8}) {
        QVERIFY2(x.rows.at(r).spanning, qPrintable(QString::number(r)));
        QVERIFY(!x.rows.at(r).valid);
        for (const ExtractionCell &c : x.rows.at(r).cells)
            QCOMPARE(c.status, Status::Invalid);
    }
    QVERIFY(x.rows.at(9).valid);
    QCOMPARE(cell(9, 2).value, QJsonValue(0.5));

    // One evidence ref per row, none an element ref.
    QSet<QString> refs;
    for (const ExtractionRow &row : x.rows)
        refs.insert(row.ref);
    QCOMPARE(refs.size(), x.rows.size());
    for (const ElementRecord &element : result->elements)
        QVERIFY(!refs.contains(element.ref));

    const QByteArray json = QJsonDocument(result->toJson()).toJson(QJsonDocument::Compact);
    for (const char *canary :
         {"HIDDEN-ROW-CANARY", "HIDDEN-CELL-CANARY", "ARIA-CANARY", "INPUT-CANARY"})
        QVERIFY2(!json.contains(canary), canary);
    // A spanning row is never read (its text is ordinary prose of the page).
    QVERIFY(!QJsonDocument(x.toJson()).toJson().contains("SPAN-CANARY"));

    // The limit: two rows, the rest counted.
    const auto limited = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::extract(request(ExtractRequest::Kind::Table, 0, typedColumns(),
                                                     2, result->revision)));
    QVERIFY2(limited.ok(), qPrintable(codeOf(limited)));
    QCOMPARE(limited->extraction->rows.size(), 2);
    QCOMPARE(limited->extraction->coverage.rowsSeen, 10);
    QCOMPARE(limited->extraction->coverage.rowsOmittedByLimit, 8);
    QVERIFY(limited->extraction->coverage.limitReached);
    QVERIFY(limited->revision != result->revision);
}

void TestExtraction::indexCountsVisibleCollectionsOnly()
{
    const QList<ExtractColumn> columns{column("v", ExtractColumn::Type::String)};
    QStringList firstCells;
    for (int index = 0; index < 3; ++index) {
        const auto result = extractAt(QStringLiteral("/index"),
                                      request(ExtractRequest::Kind::Table, index, columns, 5, {}));
        QVERIFY2(result.ok(), qPrintable(codeOf(result)));
        QVERIFY(result->extraction->found);
        QVERIFY(!result->extraction->rows.isEmpty());
        firstCells << result->extraction->rows.first().cells.first().value.toString();
        QVERIFY(result->extraction->coverage.scannedNodes > 0);
        QVERIFY(!result->extraction->coverage.scanLimitReached);
    }
    // Hidden, display:none, presentational and ARIA-hidden tables are not counted; a role=grid
    // is a table (its header row excluded).
    QCOMPARE(firstCells, (QStringList{QStringLiteral("first"), QStringLiteral("second"),
                                      QStringLiteral("third")}));
}

void TestExtraction::listsExposeItemText()
{
    const QList<ExtractColumn> columns{column("item", ExtractColumn::Type::String, true),
                                       column("extra", ExtractColumn::Type::String)};
    const auto result = extractAt(QStringLiteral("/lists"),
                                  request(ExtractRequest::Kind::List, 0, columns, 10, {}));
    QVERIFY2(result.ok(), qPrintable(codeOf(result)));
    const Extraction &x = *result->extraction;
    QCOMPARE(x.rows.size(), 3);
    QCOMPARE(x.rows.at(0).cells.at(0).value, QJsonValue(QStringLiteral("Apples")));
    QCOMPARE(x.rows.at(1).cells.at(0).value, QJsonValue(QStringLiteral("Pears ripe")));
    // Column 0 is the item's text; other columns have no cell.
    QCOMPARE(x.rows.at(0).cells.at(1).status, Status::Missing);
    QVERIFY(x.rows.at(0).valid);
    // An item whose only content is ARIA-hidden: required and missing.
    QCOMPARE(x.rows.at(2).cells.at(0).status, Status::Missing);
    QVERIFY(!x.rows.at(2).valid);
    const QByteArray json = QJsonDocument(result->toJson()).toJson(QJsonDocument::Compact);
    for (const char *canary : {"NONE-LIST-CANARY", "HIDDEN-ITEM-CANARY", "ARIA-CANARY"})
        QVERIFY2(!json.contains(canary), canary);

    // The second visible list, typed as integers.
    const auto numbers = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::extract(request(ExtractRequest::Kind::List, 1,
                                                     {column("n", ExtractColumn::Type::Integer)},
                                                     10, result->revision)));
    QVERIFY2(numbers.ok(), qPrintable(codeOf(numbers)));
    const Extraction &n = *numbers->extraction;
    QCOMPARE(n.rows.size(), 3);
    QCOMPARE(n.rows.at(0).cells.at(0).value, QJsonValue(10));
    QCOMPARE(n.rows.at(1).cells.at(0).status, Status::Invalid);
    QCOMPARE(n.rows.at(2).cells.at(0).value, QJsonValue(-3));

    // role=list with role=listitem children.
    const auto aria = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::extract(request(ExtractRequest::Kind::List, 2,
                                                     {column("t", ExtractColumn::Type::String)}, 10,
                                                     numbers->revision)));
    QVERIFY2(aria.ok(), qPrintable(codeOf(aria)));
    QCOMPARE(aria->extraction->rows.size(), 2);
    QCOMPARE(aria->extraction->rows.at(1).cells.at(0).value, QJsonValue(QStringLiteral("two")));
}

void TestExtraction::formsNeverExposeValues()
{
    const QList<ExtractColumn> columns{column("label", ExtractColumn::Type::String),
                                       column("role", ExtractColumn::Type::String, true),
                                       column("disabled", ExtractColumn::Type::Boolean),
                                       column("checked", ExtractColumn::Type::Boolean),
                                       column("required", ExtractColumn::Type::Boolean),
                                       column("value", ExtractColumn::Type::String)};
    const auto result =
        extractAt(QStringLiteral("/form"), request(ExtractRequest::Kind::Form, 0, columns, 20, {}));
    QVERIFY2(result.ok(), qPrintable(codeOf(result)));
    const Extraction &x = *result->extraction;
    QVERIFY(x.found);
    // name, checkbox, select, textarea, password, editor, button; the hidden input and the
    // control inside a hidden subtree are not rows.
    QCOMPARE(x.rows.size(), 7);
    const auto text = [&x](int r, int c) { return x.rows.at(r).cells.at(c).value; };
    QCOMPARE(text(0, 0), QJsonValue(QStringLiteral("Name")));
    QCOMPARE(text(0, 1), QJsonValue(QStringLiteral("textbox")));
    QCOMPARE(text(0, 2), QJsonValue(false));
    QCOMPARE(x.rows.at(0).cells.at(3).status, Status::Missing); // not checkable
    QCOMPARE(text(0, 4), QJsonValue(true));
    QCOMPARE(text(1, 0), QJsonValue(QStringLiteral("Gift wrap")));
    QCOMPARE(text(1, 1), QJsonValue(QStringLiteral("checkbox")));
    QCOMPARE(text(1, 3), QJsonValue(true));
    QCOMPARE(text(2, 0), QJsonValue(QStringLiteral("Colour")));
    QCOMPARE(text(2, 1), QJsonValue(QStringLiteral("combobox")));
    QCOMPARE(text(3, 0), QJsonValue(QStringLiteral("Note")));
    QCOMPARE(text(6, 0), QJsonValue(QStringLiteral("Send")));
    QCOMPARE(text(6, 2), QJsonValue(true));
    // There is no value column: position 5 never has a cell.
    for (const ExtractionRow &row : x.rows)
        QCOMPARE(row.cells.at(5).status, Status::Missing);

    const QByteArray json = QJsonDocument(result->toJson()).toJson(QJsonDocument::Compact);
    for (const char *canary :
         {"VALUE-CANARY", "TYPED-CANARY", "TYPED-NOTE-CANARY", "OPTION-A-CANARY", "SELECTED-CANARY",
          "TEXTAREA-CANARY", "HIDDEN-INPUT-CANARY", "PASSWORD-CANARY", "EDITABLE-CANARY",
          "HIDDEN-CONTROL-CANARY"})
        QVERIFY2(!json.contains(canary), canary);
}

void TestExtraction::boundsHoldOnAHugeTable()
{
    QList<ExtractColumn> columns;
    for (int c = 0; c < 8; ++c)
        columns.append(
            column(qPrintable(QStringLiteral("c%1").arg(c)), ExtractColumn::Type::String));
    const auto result =
        extractAt(QStringLiteral("/big"), request(ExtractRequest::Kind::Table, 0, columns, 50, {}));
    QVERIFY2(result.ok(), qPrintable(codeOf(result)));
    const Extraction &x = *result->extraction;
    QVERIFY(x.found);
    // Row discovery stopped at its bound long before 10,000 rows.
    QVERIFY(x.coverage.rowScanLimitReached);
    QCOMPARE(x.coverage.rowScannedNodes, ExtractionBounds::kMaxRowNodes);
    QVERIFY(x.coverage.rowsSeen > 50);
    QVERIFY(x.coverage.rowsSeen < 4096);
    QVERIFY(x.coverage.limitReached);
    // The ceiling dropped whole rows from the end, counted.
    QVERIFY(x.canonicalSize() <= ExtractionBounds::kMaxCeilingBytes);
    QVERIFY(x.coverage.rowsOmittedByCeiling > 0);
    QCOMPARE(x.rows.size() + x.coverage.rowsOmittedByCeiling + x.coverage.rowsOmittedByLimit,
             qsizetype(x.coverage.rowsSeen));
    // The 100,000-unit cell and the 300-deep cell are truncated, never typed.
    QCOMPARE(x.rows.at(0).cells.at(0).status, Status::Truncated);
    QCOMPARE(x.rows.at(0).cells.at(0).text->size(), ExtractionBounds::kMaxCellUnits);
    QCOMPARE(x.rows.at(0).cells.at(1).status, Status::Truncated);
    QVERIFY(!x.rows.at(0).valid);
    // 256 units exactly are kept whole.
    QCOMPARE(x.rows.at(1).cells.at(7).status, Status::Ok);
    QCOMPARE(x.rows.at(1).cells.at(7).value.toString(), QString(256, QChar(0xE9)));
    QVERIFY(x.rows.at(1).valid);
    // The page still answers.
    const auto again = BrowserTestHarness::observe(*m_provider);
    QVERIFY2(again.ok(), qPrintable(codeOf(again)));
}

void TestExtraction::unicodeIsNeverSplit()
{
    const auto result =
        extractAt(QStringLiteral("/unicode"), request(ExtractRequest::Kind::Table, 0,
                                                      {column("a", ExtractColumn::Type::String),
                                                       column("b", ExtractColumn::Type::String)},
                                                      5, {}));
    QVERIFY2(result.ok(), qPrintable(codeOf(result)));
    const ExtractionRow &row = result->extraction->rows.at(0);
    QCOMPARE(row.cells.at(0).status, Status::Truncated);
    // 255 units, then a pair that would end at unit 257: the cut comes before it.
    QCOMPARE(*row.cells.at(0).text, QString(255, QLatin1Char('a')));
    QCOMPARE(row.cells.at(1).value, QJsonValue(QString::fromUtf8("Grüße 😀 日本")));
}

void TestExtraction::staleAndForeignRevisionsAreRefusedBeforeCapture()
{
    const auto navigated = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/typed")));
    QVERIFY2(navigated.ok(), qPrintable(codeOf(navigated)));
    const auto current = BrowserTestHarness::observe(*m_provider);
    QVERIFY2(current.ok(), qPrintable(codeOf(current)));
    const QString stateBefore = collectorState();
    QVERIFY(stateBefore.contains(QStringLiteral("\"pending\":0")));

    for (const QString &revision : QStringList{navigated->revision, QString(24, QLatin1Char('x')),
                                               QString(current->revision + QLatin1Char('x'))}) {
        const auto refused = BrowserTestHarness::observe(
            *m_provider, ObserveRequest::extract(
                             request(ExtractRequest::Kind::Table, 0, typedColumns(), 5, revision)));
        QCOMPARE(codeOf(refused), QStringLiteral("tool.browser.page_changed"));
        // Nothing was captured: the revision, its handles and the collector state stay.
        QCOMPARE(m_provider->currentRevision(), current->revision);
        QCOMPARE(collectorState(), stateBefore);
    }
    // The current revision still works, for an extraction and for a continuation.
    const auto extracted = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::extract(request(ExtractRequest::Kind::Table, 0, typedColumns(),
                                                     5, current->revision)));
    QVERIFY2(extracted.ok(), qPrintable(codeOf(extracted)));
    QCOMPARE(m_provider->currentRevision(), extracted->revision);
    // The extraction replaced the revision: the old one is stale now.
    const auto stale = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::extract(request(ExtractRequest::Kind::Table, 0, typedColumns(),
                                                     5, current->revision)));
    QCOMPARE(codeOf(stale), QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(m_provider->currentRevision(), extracted->revision);
}

void TestExtraction::evidenceRefsAreNotAnchors()
{
    const auto result = extractAt(QStringLiteral("/typed"),
                                  request(ExtractRequest::Kind::Table, 0, typedColumns(), 5, {}));
    QVERIFY2(result.ok(), qPrintable(codeOf(result)));
    QVERIFY(!result->extraction->rows.isEmpty());
    const QString stateBefore = collectorState();
    for (const ExtractionRow &row : result->extraction->rows) {
        const auto after =
            BrowserTestHarness::observe(*m_provider, ObserveRequest::after(row.ref).value());
        QCOMPARE(codeOf(after), QStringLiteral("tool.browser.page_changed"));
        QCOMPARE(m_provider->currentRevision(), result->revision);
        QCOMPARE(collectorState(), stateBefore);
    }
    // Element refs of the same revision are still anchors.
    QVERIFY(!result->elements.isEmpty());
    const auto after = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::after(result->elements.first().ref).value());
    QVERIFY2(after.ok(), qPrintable(codeOf(after)));
    QVERIFY(!after->extraction); // an ordinary window carries no extraction
}

void TestExtraction::missingCollectionIsReportedNotFound()
{
    const auto result = extractAt(QStringLiteral("/typed"),
                                  request(ExtractRequest::Kind::Table, 15, typedColumns(), 5, {}));
    QVERIFY2(result.ok(), qPrintable(codeOf(result)));
    QVERIFY(!result->extraction->found);
    QVERIFY(result->extraction->rows.isEmpty());
    QCOMPARE(result->extraction->coverage.rowsSeen, 0);
    QVERIFY(!result->extraction->coverage.scanLimitReached); // the whole document was scanned
    const auto form = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::extract(request(ExtractRequest::Kind::Form, 0,
                                                     {column("l", ExtractColumn::Type::String)}, 5,
                                                     result->revision)));
    QVERIFY2(form.ok(), qPrintable(codeOf(form)));
    QVERIFY(!form->extraction->found);
}

void TestExtraction::reloadedDocumentIsPageChanged()
{
    const auto navigated = BrowserTestHarness::navigate(
        *m_provider, m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/lists")));
    QVERIFY2(navigated.ok(), qPrintable(codeOf(navigated)));
    // The provider hears of the load's end through loadingChanged; this slot is connected after
    // the provider's own, so once it has seen the end, the provider has too.
    auto ended = std::make_shared<bool>(false);
    const QMetaObject::Connection watching =
        connect(m_provider->view()->page(), &QWebEnginePage::loadingChanged, this,
                [ended](const QWebEngineLoadingInfo &info) {
                    if (info.status() != QWebEngineLoadingInfo::LoadStartedStatus)
                        *ended = true;
                });
    runInPage(QStringLiteral("location.reload()"));
    const bool reloaded = runEventsUntil([ended] { return *ended; }, 20000);
    disconnect(watching);
    QVERIFY(reloaded);
    // The new document's collector has no committed capture.
    QVERIFY(collectorState().contains(QStringLiteral("\"current\":null")));
    const auto refused = BrowserTestHarness::observe(
        *m_provider, ObserveRequest::extract(request(ExtractRequest::Kind::List, 0,
                                                     {column("t", ExtractColumn::Type::String)}, 5,
                                                     navigated->revision)));
    QCOMPARE(codeOf(refused), QStringLiteral("tool.browser.page_changed"));
}

void TestExtraction::cliExtractsThroughTheIsolatedHost()
{
    const auto runCli = [this](const QStringList &arguments) {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("VEETBOT_TEST_RESOLVE"), m_harness.overrides().resolveSpec());
        env.insert(QStringLiteral("VEETBOT_TEST_CA"), m_harness.caPath());
        process.setProcessEnvironment(env);
        process.start(QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot"),
                      QStringList{QStringLiteral("observe")} + arguments);
        if (!QTest::qWaitFor([&process] { return process.state() == QProcess::NotRunning; },
                             90000)) {
            process.kill();
            process.waitForFinished();
            return std::make_pair(-1, QByteArray());
        }
        const int code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        return std::make_pair(code, process.readAllStandardOutput());
    };
    const QString extract =
        QStringLiteral(R"({"kind":"form","index":0,"columns":[{"name":"label","type":"string"},)"
                       R"({"name":"role","type":"string","required":true}],"limit":10})");
    const QStringList base{QStringLiteral("--allow-origin"),
                           m_harness.origin(QStringLiteral("shop.test")),
                           QStringLiteral("--extract"), extract};
    const QString url =
        m_harness.url(QStringLiteral("shop.test"), QStringLiteral("/form")).toString();

    const auto canonical = runCli(base + QStringList{url});
    QCOMPARE(canonical.first, 0);
    const QJsonObject json = QJsonDocument::fromJson(canonical.second).object();
    // The observation crossed the host protocol and validated again on this side.
    const auto parsed = BrowserObservation::fromJson(json, m_harness.overrides());
    QVERIFY(parsed.ok());
    QVERIFY(parsed->extraction);
    QCOMPARE(parsed->extraction->rows.size(), 7);
    QCOMPARE(parsed->extraction->rows.at(0).cells.at(0).value, QJsonValue(QStringLiteral("Name")));
    QVERIFY(!canonical.second.contains("TYPED-CANARY"));
    QVERIFY(!canonical.second.contains("SELECTED-CANARY"));

    // With a budget: the projection, rows before controls.
    const auto projected =
        runCli(base + QStringList{QStringLiteral("--budget"), QStringLiteral("4096"), url});
    QCOMPARE(projected.first, 0);
    const QByteArray bytes = projected.second.trimmed();
    QVERIFY(bytes.size() <= 4096);
    QVERIFY(QJsonDocument::fromJson(bytes).isObject());
    QVERIFY(bytes.indexOf("\"extraction\":") >= 0);
    QVERIFY(bytes.indexOf("\"extraction\":") < bytes.indexOf("\"elements\":"));

    // A revision in the extract object, or a malformed one, is a usage error.
    const auto withRevision = runCli(
        {QStringLiteral("--allow-origin"), m_harness.origin(QStringLiteral("shop.test")),
         QStringLiteral("--extract"),
         QStringLiteral(
             R"({"revision":"x","kind":"list","index":0,"columns":[{"name":"a","type":"string"}],"limit":1})"),
         url});
    QCOMPARE(withRevision.first, 2);
    const auto malformed =
        runCli({QStringLiteral("--allow-origin"), m_harness.origin(QStringLiteral("shop.test")),
                QStringLiteral("--extract"), QStringLiteral(R"({"kind":"x"})"), url});
    QCOMPARE(malformed.first, 2);
}

int main(int argc, char **argv)
{
    BrowserEnvironment::configureProcess();
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    TestExtraction test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_extraction.moc"
