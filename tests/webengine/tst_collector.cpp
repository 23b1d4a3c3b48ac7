// Real-Chromium tests of resources/collector/collector.js: the in-page observation collector
// installed in private world 73. Each page carries canary strings that must never appear in
// anything the collector returns (hidden text, scripts, values, editable content, attribute
// text, closed shadow roots, frames), except a select's selected option in the facts sidecar.
// A test that cannot start Chromium fails; none skips.

#include "BrowserEnvironment.h"
#include "Collector.h"
#include "EventWait.h"
#include <QApplication>

#include "domain/observation/BrowserObservation.h"
#include "domain/observation/CaptureAssembly.h"
#include "domain/web/TestOverrides.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QWebEnginePage>
#include <QWebEngineProfile>
#include <QWebEngineScript>
#include <QWebEngineScriptCollection>
#include <QWebEngineSettings>
#include <QWebEngineView>

#include <memory>

using namespace veetbot;

namespace {

constexpr quint32 kCollectorWorld = 73;
const QUrl kShopUrl(QStringLiteral("https://shop.test/"));
const QString kFailed = QStringLiteral(R"({"ok":false,"error":"collector_failed"})");

QString html(const char *utf8)
{
    return QString::fromUtf8(utf8);
}

// The first of `canaries` that occurs in `haystack`, or an empty string.
QString firstLeak(const QString &haystack, const QStringList &canaries)
{
    for (const QString &canary : canaries) {
        if (haystack.contains(canary))
            return canary;
    }
    return {};
}

// The capture answer with each select's selected option taken out of the facts sidecar: the
// one place a select's option may appear (the approval view and the action classifier read
// it; the observation never carries it).
QString withoutSelectedOptions(const QJsonObject &answer)
{
    QJsonObject copy = answer;
    QJsonArray facts = copy.value(QStringLiteral("facts")).toArray();
    for (qsizetype i = 0; i < facts.size(); ++i) {
        QJsonObject record = facts.at(i).toObject();
        record.insert(QStringLiteral("option"), QString());
        facts.replace(i, record);
    }
    copy.insert(QStringLiteral("facts"), facts);
    return QString::fromUtf8(QJsonDocument(copy).toJson(QJsonDocument::Compact));
}

// The selected options the facts sidecar recorded, in element order.
QStringList selectedOptions(const QJsonObject &answer)
{
    QStringList options;
    for (const QJsonValue &record : answer.value(QStringLiteral("facts")).toArray()) {
        const QString option = record[QStringLiteral("option")].toString();
        if (!option.isEmpty())
            options.append(option);
    }
    return options;
}

// Every canary string in the page source, found by its prefix.
QStringList canariesIn(const QString &page)
{
    QStringList found;
    qsizetype at = 0;
    while ((at = page.indexOf(QLatin1String("CANARY_"), at)) >= 0) {
        qsizetype end = at;
        while (end < page.size() && (page.at(end).isLetterOrNumber() || page.at(end) == u'_'))
            ++end;
        found.append(page.mid(at, end - at));
        at = end;
    }
    found.removeDuplicates();
    return found;
}

bool hasLoneSurrogate(const QString &text)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text.at(i).isHighSurrogate()) {
            if (i + 1 >= text.size() || !text.at(i + 1).isLowSurrogate())
                return true;
            ++i;
        } else if (text.at(i).isLowSurrogate()) {
            return true;
        }
    }
    return false;
}

// A loopback HTTP/1.1 server answering every GET with a tiny GIF, for resource-timing tests.
class GifServer : public QObject
{
public:
    GifServer()
    {
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    QByteArray &buffer = m_buffers[socket];
                    buffer += socket->readAll();
                    if (!buffer.contains("\r\n\r\n"))
                        return;
                    ++m_requests;
                    static const QByteArray gif = QByteArray::fromBase64(
                        "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7");
                    socket->write("HTTP/1.1 200 OK\r\nContent-Type: image/gif\r\n"
                                  "Cache-Control: no-store\r\nConnection: close\r\n"
                                  "Content-Length: " +
                                  QByteArray::number(gif.size()) + "\r\n\r\n" + gif);
                    socket->disconnectFromHost();
                    m_buffers.remove(socket);
                });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    bool listen() { return m_server.listen(QHostAddress::LocalHost, 0); }
    QString base() const
    {
        return QStringLiteral("http://127.0.0.1:%1/").arg(m_server.serverPort());
    }
    int requests() const { return m_requests; }

private:
    QTcpServer m_server;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    int m_requests = 0;
};

} // namespace

class tst_Collector : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void cleanupTestCase();

    void hiddenAndNonProseTextNeverAppears();
    void valuesAndEditableContentNeverAppear();
    void shadowContentAppearsOnce();
    void blockInlineAndTableBoundaries();
    void unicodeIsNeverSplit();
    void titleIsCollapsedAndBounded();
    void largePageStaysWithinBounds();
    void hostileDepthAndSizeFinish();
    void monkeyPatchedBuiltinsHaveNoEffect();
    void rolesAndNames();
    void labelsAreElementLabels();
    void states();
    void visibilityFollowsPlaywright();
    void candidateWindowAndCoverage();
    void continuationWindows();
    void anchorMustStayPut();
    void continuationsResumeUnchangedWork();
    void candidatePositionsStopAt65536();
    void commitDiscardAndState();
    void stateIsDroppedOnNavigation();
    void failuresCarryNoPageText();
    void settleProbeReportsQuietAndReadyState();
    void settleProbeCountsResourceEntries();

private:
    bool load(const QString &page, const QUrl &base = kShopUrl);
    // Runs `js` in `world`; returns the value, or an invalid QVariant after a timeout.
    QVariant run(const QString &js, quint32 world, int timeoutMs = 30000);
    QString call(const QString &js) { return run(js, kCollectorWorld).toString(); }
    QJsonObject callObject(const QString &js)
    {
        return QJsonDocument::fromJson(call(js).toUtf8()).object();
    }
    // capture() as raw JSON text.
    QString captureRaw(const QString &captureId = QStringLiteral("cap"),
                       const QString &refPrefix = QStringLiteral("r1"));
    // capture(), checked to be ok and to pass the C++ validator. Empty object on failure.
    QJsonObject capture(const QString &captureId = QStringLiteral("cap"),
                        const QString &refPrefix = QStringLiteral("r1"), QString *raw = nullptr);
    // A continuation capture with extra options ({current, after} or {current, start}); the
    // raw JSON text.
    QString continueRaw(const QString &captureId, const QString &refPrefix,
                        const QJsonObject &window);
    QJsonObject continueCapture(const QString &captureId, const QString &refPrefix,
                                const QJsonObject &window);
    static bool validates(const QJsonObject &captured);

    QWebEngineProfile *m_profile = nullptr;
    QWebEngineView *m_view = nullptr;
    QWebEnginePage *m_page = nullptr;
    int m_renderTerminations = 0;
    // The readable text of every capture taken, by capture id: a continuation of an unchanged
    // page answers text_unchanged, and the provider's part (putting back the text of the
    // capture it continues) is done here.
    QHash<QString, CaptureAssembly::CapturedText> m_texts;
};

bool tst_Collector::load(const QString &page, const QUrl &base)
{
    QSignalSpy finished(m_page, &QWebEnginePage::loadFinished);
    m_page->setHtml(page, base);
    if (!veetbot::testing::runEventsUntil([&] { return finished.size() > 0; }, 30000))
        return false;
    return finished.first().first().toBool();
}

QVariant tst_Collector::run(const QString &js, quint32 world, int timeoutMs)
{
    struct Outcome
    {
        bool done = false;
        QVariant value;
    };
    auto outcome = std::make_shared<Outcome>();
    m_page->runJavaScript(js, world, [outcome](const QVariant &value) {
        outcome->value = value;
        outcome->done = true;
    });
    if (!veetbot::testing::runEventsUntil([&] { return outcome->done; }, timeoutMs))
        return {};
    return outcome->value;
}

QString tst_Collector::captureRaw(const QString &captureId, const QString &refPrefix)
{
    const QString opts =
        QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("captureId"), captureId},
                                                    {QStringLiteral("refPrefix"), refPrefix}})
                              .toJson(QJsonDocument::Compact));
    return call(QStringLiteral("__veetbot.capture(") + opts + u')');
}

QString tst_Collector::continueRaw(const QString &captureId, const QString &refPrefix,
                                   const QJsonObject &window)
{
    QJsonObject opts = window;
    opts.insert(QStringLiteral("captureId"), captureId);
    opts.insert(QStringLiteral("refPrefix"), refPrefix);
    return call(QStringLiteral("__veetbot.capture(") +
                QString::fromUtf8(QJsonDocument(opts).toJson(QJsonDocument::Compact)) + u')');
}

QJsonObject tst_Collector::continueCapture(const QString &captureId, const QString &refPrefix,
                                           const QJsonObject &window)
{
    const QString text = continueRaw(captureId, refPrefix, window);
    QJsonObject object = QJsonDocument::fromJson(text.toUtf8()).object();
    if (!object.value(QStringLiteral("ok")).toBool()) {
        qWarning("continuation failed: %s", qPrintable(text.left(200)));
        return {};
    }
    const QString continued = window.value(QStringLiteral("current")).toString();
    if (!CaptureAssembly::restoreUnchangedText(object, m_texts.contains(continued)
                                                           ? std::optional(m_texts.value(continued))
                                                           : std::nullopt)) {
        qWarning("continuation claims unchanged text it cannot have");
        return {};
    }
    m_texts.insert(captureId, CaptureAssembly::capturedText(object));
    if (!validates(object)) {
        qWarning("continuation output rejected by BrowserObservation::fromJson");
        return {};
    }
    return object;
}

QJsonObject tst_Collector::capture(const QString &captureId, const QString &refPrefix, QString *raw)
{
    const QString text = captureRaw(captureId, refPrefix);
    if (raw)
        *raw = text;
    const QJsonObject object = QJsonDocument::fromJson(text.toUtf8()).object();
    if (!object.value(QStringLiteral("ok")).toBool()) {
        qWarning("capture failed: %s", qPrintable(text.left(200)));
        return {};
    }
    m_texts.insert(captureId, CaptureAssembly::capturedText(object));
    if (!validates(object)) {
        qWarning("capture output rejected by BrowserObservation::fromJson");
        return {};
    }
    return object;
}

bool tst_Collector::validates(const QJsonObject &captured)
{
    const Result<TestOverrides> overrides =
        TestOverrides::parseResolve(QStringLiteral("shop.test=127.0.0.1"));
    if (!overrides)
        return false;
    QJsonObject observation = captured;
    observation.remove(QStringLiteral("ok"));
    // The approval sidecar (act.js) is parallel to the elements; the provider keeps it out of
    // the observation. Raw-output canary checks still cover it.
    const QJsonValue facts = observation.take(QStringLiteral("facts"));
    if (!facts.isArray() ||
        facts.toArray().size() != observation.value(QStringLiteral("elements")).toArray().size())
        return false;
    // Likewise the page's private evidence: a count, never an address.
    const QJsonValue frames = observation.take(QStringLiteral("challenge_frames"));
    if (!frames.isDouble() || frames.toDouble() != 0)
        return false;
    // The provider replaces the collector's next candidate position with an opaque cursor.
    QJsonObject coverage = observation.value(QStringLiteral("coverage")).toObject();
    if (!coverage.contains(QStringLiteral("next_position")))
        return false;
    const QJsonValue next = coverage.take(QStringLiteral("next_position"));
    if (!next.isNull() && !next.isDouble())
        return false;
    coverage.insert(QStringLiteral("next_cursor"),
                    next.isNull() ? QJsonValue(QJsonValue::Null) : QJsonValue(QString(32, u'c')));
    observation.insert(QStringLiteral("coverage"), coverage);
    observation.insert(QStringLiteral("url"), kShopUrl.toString());
    observation.insert(QStringLiteral("revision"), newRevision());
    return BrowserObservation::fromJson(observation, overrides.value()).ok();
}

void tst_Collector::initTestCase()
{
    const QString collector = Collector::source(); // collector.js and its modules
    QVERIFY(collector.contains(QLatin1String("__veetbot")));
    // The collector never materializes a subtree's text or markup: it reads text node by node
    // within its bounds.
    for (const char *api : {"innerText", "outerText", "innerHTML", "outerHTML", "textContent"})
        QVERIFY2(!collector.contains(QLatin1String(api)), api);

    m_profile = new QWebEngineProfile(); // no storage name: off the record
    QVERIFY(m_profile->isOffTheRecord());
    m_view = new QWebEngineView();
    m_page = new QWebEnginePage(m_profile, m_view);
    m_view->setPage(m_page);
    // No favicon requests: pages are loaded with setHtml and there is no network.
    m_page->settings()->setAttribute(QWebEngineSettings::AutoLoadIconsForPage, false);
    QObject::connect(m_page, &QWebEnginePage::renderProcessTerminated, this,
                     [this](QWebEnginePage::RenderProcessTerminationStatus status, int code) {
                         qWarning("render process terminated: status %d code %d", int(status),
                                  code);
                         ++m_renderTerminations;
                     });
    m_view->resize(1280, 800);
    m_view->show();

    QWebEngineScript script;
    script.setName(QStringLiteral("veetbot-collector"));
    script.setSourceCode(collector);
    script.setWorldId(kCollectorWorld);
    script.setInjectionPoint(QWebEngineScript::DocumentCreation);
    script.setRunsOnSubFrames(false);
    m_page->scripts().insert(script);

    // Chromium must start: a failure here fails the whole test case.
    QVERIFY2(load(html("<!doctype html><p>start</p>")), "Chromium did not load a page");
    const QJsonObject state = callObject(QStringLiteral("__veetbot.state()"));
    QVERIFY2(state.value(QStringLiteral("ok")).toBool(), "collector not installed");
    // The collector lives only in its own world.
    QCOMPARE(
        run(QStringLiteral("typeof globalThis.__veetbot"), QWebEngineScript::MainWorld).toString(),
        QStringLiteral("undefined"));
}

void tst_Collector::cleanup()
{
    // Nothing the collector does may take the renderer down (a crash while the next document
    // replaces an inspected one is caught by that next load).
    QCOMPARE(m_renderTerminations, 0);
    m_renderTerminations = 0;
}

void tst_Collector::cleanupTestCase()
{
    delete m_view; // deletes the page before its profile
    m_view = nullptr;
    m_page = nullptr;
    delete m_profile;
    m_profile = nullptr;
}

void tst_Collector::hiddenAndNonProseTextNeverAppears()
{
    const QString page = html(R"(<!doctype html><html><head><title>Hidden page</title>
<style>.x::before { content: "CANARY_CSS_CONTENT"; } /* CANARY_STYLE */</style>
<script>var s = "CANARY_SCRIPT";</script></head><body>
<p>VISIBLE_ONE</p>
<div style="display:none">CANARY_DISPLAY_NONE <button>CANARY_BUTTON_NONE</button></div>
<div style="visibility:hidden">CANARY_VISIBILITY_HIDDEN
  <span style="visibility:visible">VISIBLE_INSIDE_HIDDEN</span></div>
<div hidden>CANARY_HIDDEN_ATTR</div>
<div aria-hidden="true">CANARY_ARIA_HIDDEN <button>CANARY_ARIA_HIDDEN_BUTTON</button></div>
<div inert>CANARY_INERT</div>
<template><p>CANARY_TEMPLATE</p><button>CANARY_TEMPLATE_BUTTON</button></template>
<noscript>CANARY_NOSCRIPT</noscript>
<details><summary>SUMMARY_TEXT</summary>CANARY_CLOSED_DETAILS
  <button>CANARY_CLOSED_DETAILS_BUTTON</button></details>
<details open><summary>OPEN_SUMMARY</summary>OPEN_DETAILS_TEXT</details>
<div style="height:0;overflow:hidden">CANARY_COLLAPSED_PANEL</div>
<svg width="50" height="20"><text y="10">CANARY_SVG_TEXT</text><title>CANARY_SVG_TITLE</title></svg>
<iframe srcdoc="<p>CANARY_IFRAME</p>"></iframe>
<object data="data:text/plain,x">CANARY_OBJECT</object>
<p title="CANARY_TITLE_ATTR" data-note="CANARY_DATA_ATTR">VISIBLE_TWO<img alt="CANARY_IMG_ALT"
  src="data:,"></p>
<dialog>CANARY_DIALOG</dialog>
<p class="x">VISIBLE_THREE</p>
<script>document.write('<p>VISIBLE_WRITTEN</p>');</script>
</body></html>)");
    QVERIFY(load(page));
    QString raw;
    const QJsonObject result = capture(QStringLiteral("c"), QStringLiteral("r"), &raw);
    QVERIFY(!result.isEmpty());
    const QString leak = firstLeak(raw, canariesIn(page));
    QVERIFY2(leak.isEmpty(), qPrintable(QStringLiteral("leaked ") + leak));

    const QString text = result.value(QStringLiteral("text")).toString();
    for (const char *expected :
         {"VISIBLE_ONE", "VISIBLE_INSIDE_HIDDEN", "SUMMARY_TEXT", "OPEN_SUMMARY",
          "OPEN_DETAILS_TEXT", "VISIBLE_TWO", "VISIBLE_THREE", "VISIBLE_WRITTEN"})
        QVERIFY2(text.contains(QLatin1String(expected)), expected);
    QCOMPARE(result.value(QStringLiteral("title")).toString(), QStringLiteral("Hidden page"));

    // The ARIA-hidden button is rendered, so it keeps its slot (Playwright's rule), but its
    // name is not read; then the two summaries.
    const QJsonArray elements = result.value(QStringLiteral("elements")).toArray();
    QCOMPARE(elements.size(), 3);
    QCOMPARE(elements.at(0)[QStringLiteral("role")].toString(), QStringLiteral("button"));
    QCOMPARE(elements.at(0)[QStringLiteral("name")].toString(), QString());
    QCOMPARE(elements.at(1)[QStringLiteral("name")].toString(), QStringLiteral("SUMMARY_TEXT"));
    QCOMPARE(elements.at(2)[QStringLiteral("name")].toString(), QStringLiteral("OPEN_SUMMARY"));

    const QJsonObject coverage = result.value(QStringLiteral("text_coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("version")).toInt(), 1);
    QCOMPARE(coverage.value(QStringLiteral("scope")).toString(),
             QStringLiteral("main_document_open_shadow_roots"));
    QVERIFY(!coverage.value(QStringLiteral("node_limit_reached")).toBool());
    QVERIFY(!coverage.value(QStringLiteral("text_limit_reached")).toBool());
    QCOMPARE(coverage.value(QStringLiteral("omitted_text_bytes")).toInt(), 0);
    QVERIFY(coverage.value(QStringLiteral("scanned_nodes")).toInt() > 20);
}

void tst_Collector::valuesAndEditableContentNeverAppear()
{
    const QString page = html(R"(<!doctype html><body>
<p>Form page</p>
<label>Email <input type="email" value="CANARY_INPUT_VALUE"></label>
<input id="q" placeholder="Search here" value="CANARY_SEARCH_VALUE">
<textarea aria-label="Notes">CANARY_TEXTAREA</textarea>
<select aria-label="Size"><option>CANARY_OPTION_A</option><option selected>CANARY_OPTION_B</option></select>
<div contenteditable>CANARY_CONTENTEDITABLE</div>
<div contenteditable="true"><p>CANARY_CONTENTEDITABLE_NESTED</p></div>
<div contenteditable="plaintext-only">CANARY_PLAINTEXT_ONLY</div>
<div role="textbox" tabindex="0">CANARY_ROLE_TEXTBOX</div>
<div role="searchbox" tabindex="0">CANARY_ROLE_SEARCHBOX</div>
<div role="combobox" tabindex="0">CANARY_ROLE_COMBOBOX</div>
<div role="spinbutton" tabindex="0">CANARY_ROLE_SPINBUTTON</div>
<label for="pw">Password</label><input id="pw" type="password" value="CANARY_PASSWORD_ATTR">
<input id="pw2" type="password" placeholder="Confirm password">
<input type="text" aria-label="Plain" data-secret="CANARY_DATA_SECRET" value="CANARY_TEXT_VALUE">
<label>Wrapped <input value="CANARY_WRAPPED_VALUE"> <select><option>CANARY_LABEL_SELECT</option></select> tail</label>
<span id="ref-input-label">Referenced</span>
<input id="src" value="CANARY_LABELLEDBY_VALUE"><button aria-labelledby="src">Go</button>
<input id="dst" aria-labelledby="ref-input-label src">
<input type="hidden" value="CANARY_HIDDEN_INPUT">
<output>SHOWN_OUTPUT</output>
<script>
  document.getElementById('q').value = 'CANARY_TYPED_VALUE';
  document.getElementById('pw').value = 'CANARY_PASSWORD_TYPED';
  document.getElementById('pw2').value = 'CANARY_PASSWORD_TWO';
</script>
</body>)");
    QVERIFY(load(page));
    // Type into the text field the way a user would, too.
    run(QStringLiteral("document.getElementById('dst').value = 'CANARY_DST_VALUE'; 1"),
        QWebEngineScript::MainWorld);
    QString raw;
    const QJsonObject result = capture(QStringLiteral("c"), QStringLiteral("r"), &raw);
    QVERIFY(!result.isEmpty());
    QStringList canaries = canariesIn(page);
    canaries << QStringLiteral("CANARY_DST_VALUE");
    const QString leak = firstLeak(withoutSelectedOptions(result), canaries);
    QVERIFY2(leak.isEmpty(), qPrintable(QStringLiteral("leaked ") + leak));
    QVERIFY(raw.contains(QLatin1String("CANARY_OPTION_B"))); // the answer is what was checked
    QCOMPARE(selectedOptions(result), (QStringList{QStringLiteral("CANARY_OPTION_B"),
                                                   QStringLiteral("CANARY_LABEL_SELECT")}));

    const QString text = result.value(QStringLiteral("text")).toString();
    QVERIFY(text.contains(QLatin1String("Form page")));
    QVERIFY(text.contains(QLatin1String("Email")));
    QVERIFY(text.contains(QLatin1String("Wrapped")));
    QVERIFY(text.contains(QLatin1String("SHOWN_OUTPUT")));

    QHash<QString, QString> roleByName;
    for (const QJsonValue &v : result.value(QStringLiteral("elements")).toArray())
        roleByName.insert(v[QStringLiteral("name")].toString(),
                          v[QStringLiteral("role")].toString());
    QCOMPARE(roleByName.value(QStringLiteral("Email")), QStringLiteral("textbox"));
    QCOMPARE(roleByName.value(QStringLiteral("Search here")), QStringLiteral("textbox"));
    QCOMPARE(roleByName.value(QStringLiteral("Password")), QStringLiteral("textbox"));
    QCOMPARE(roleByName.value(QStringLiteral("Confirm password")), QStringLiteral("textbox"));
    QCOMPARE(roleByName.value(QStringLiteral("Wrapped tail")), QStringLiteral("textbox"));
    QCOMPARE(roleByName.value(QStringLiteral("Referenced")), QStringLiteral("textbox"));
    QCOMPARE(roleByName.value(QStringLiteral("Go")), QStringLiteral("button"));
    QCOMPARE(roleByName.value(QStringLiteral("Notes")), QStringLiteral("textbox"));
    QCOMPARE(roleByName.value(QStringLiteral("Size")), QStringLiteral("combobox"));
}

void tst_Collector::shadowContentAppearsOnce()
{
    const QString page = html(R"(<!doctype html><body>
<p>BEFORE</p>
<div id="host"><span>LIGHT_SLOTTED</span><span slot="missing">CANARY_UNSLOTTED</span><span
  slot="hid">CANARY_HIDDEN_SLOT</span>LOOSE_SLOTTED_TEXT</div>
<div id="outer"><b>FORWARDED_TEXT</b></div>
<div id="fallback"></div>
<p>AFTER</p>
<script>
  const root = document.getElementById('host').attachShadow({mode: 'open'});
  root.innerHTML = '<p>SHADOW_TEXT</p><slot></slot><button>SHADOW_BUTTON</button>'
    + '<div style="display:none"><slot name="hid"></slot></div>'
    + '<div aria-hidden="true">CANARY_SHADOW_ARIA_HIDDEN</div>';
  const closed = document.createElement('div');
  closed.attachShadow({mode: 'closed'}).innerHTML = '<p>CANARY_CLOSED_SHADOW</p><button>CANARY_CLOSED_BUTTON</button>';
  document.body.appendChild(closed);
  const outer = document.getElementById('outer').attachShadow({mode: 'open'});
  outer.innerHTML = '<div id="inner"><slot></slot></div>';
  outer.getElementById('inner').attachShadow({mode: 'open'}).innerHTML =
    '<i>INNER_SHADOW</i><slot></slot>';
  document.getElementById('fallback').attachShadow({mode: 'open'}).innerHTML =
    '<slot>FALLBACK_TEXT</slot>';
</script>
</body>)");
    QVERIFY(load(page));
    QString raw;
    const QJsonObject result = capture(QStringLiteral("c"), QStringLiteral("r"), &raw);
    QVERIFY(!result.isEmpty());
    const QString leak = firstLeak(raw, canariesIn(page));
    QVERIFY2(leak.isEmpty(), qPrintable(QStringLiteral("leaked ") + leak));

    const QString text = result.value(QStringLiteral("text")).toString();
    for (const char *once :
         {"BEFORE", "SHADOW_TEXT", "SHADOW_BUTTON", "LIGHT_SLOTTED", "LOOSE_SLOTTED_TEXT",
          "FORWARDED_TEXT", "INNER_SHADOW", "FALLBACK_TEXT", "AFTER"})
        QVERIFY2(text.count(QLatin1String(once)) == 1, once);
    // Shadow children before light children.
    QVERIFY(text.indexOf(QLatin1String("SHADOW_TEXT")) <
            text.indexOf(QLatin1String("LIGHT_SLOTTED")));
    QVERIFY(text.indexOf(QLatin1String("INNER_SHADOW")) <
            text.indexOf(QLatin1String("FORWARDED_TEXT")));

    const QJsonArray elements = result.value(QStringLiteral("elements")).toArray();
    QCOMPARE(elements.size(), 1);
    QCOMPARE(elements.at(0)[QStringLiteral("name")].toString(), QStringLiteral("SHADOW_BUTTON"));
}

void tst_Collector::blockInlineAndTableBoundaries()
{
    const QString page = html(
        "<!doctype html><body><div>Block one</div><div>Block two</div>"
        "<p>in<b>line</b>text and <i>more</i></p>"
        "<p>line1<br>line2<br><br><br><br>line3</p>"
        "<table><tr><td>c11</td><td>c12</td></tr><tr><td>c21</td><td><b>c</b>22</td></tr></table>"
        "<p>   lots    of\n   whitespace   </p>"
        "<pre>pre line1\npre   line2</pre>"
        "<span>ad</span><span>jacent</span> <span>spaced</span>"
        "<ul><li>one</li><li>two</li></ul>"
        "<div><span>x</span><div>nested</div><span>y</span></div>"
        "</body>");
    QVERIFY(load(page));
    const QJsonObject result = capture();
    QVERIFY(!result.isEmpty());
    QCOMPARE(result.value(QStringLiteral("text")).toString(),
             QStringLiteral("Block one\nBlock two\ninlinetext and more\nline1\nline2\n\nline3\n"
                            "c11\tc12\nc21\tc22\nlots of whitespace\npre line1\npre line2\n"
                            "adjacent spaced\none\ntwo\nx\nnested\ny"));
}

void tst_Collector::unicodeIsNeverSplit()
{
    // 70,000 emoji: 140,000 UTF-16 units (under the unit bound), 280,000 UTF-8 bytes (over
    // the 256 KiB byte bound). The cut must fall between code points and be counted.
    QVERIFY(load(html("<!doctype html><body><p id=p></p><script>"
                      "document.getElementById('p').textContent = '\\u{1F600}'.repeat(70000);"
                      "</script></body>")));
    QJsonObject result = capture();
    QVERIFY(!result.isEmpty());
    QString text = result.value(QStringLiteral("text")).toString();
    QVERIFY(!hasLoneSurrogate(text));
    QCOMPARE(text.toUtf8().size(), 256 * 1024);
    QJsonObject coverage = result.value(QStringLiteral("text_coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("scanned_text_units")).toInt(), 140000);
    QVERIFY(!coverage.value(QStringLiteral("text_limit_reached")).toBool());
    QCOMPARE(coverage.value(QStringLiteral("omitted_text_bytes")).toInt(), 280000 - 256 * 1024);

    // The unit bound falls inside a surrogate pair; lone surrogates from the page become
    // U+FFFD; multi-byte text is kept intact.
    QVERIFY(load(html("<!doctype html><body><p>caf\xc3\xa9 \xe2\x82\xac <span id=s></span></p>"
                      "<p id=p></p><script>"
                      "document.getElementById('s').textContent = 'A\\uD800B\\uDC00C';"
                      "document.getElementById('p').textContent ="
                      "  'a'.repeat(262144 - 12 - 1) + '\\u{1F600}';"
                      "</script></body>")));
    result = capture();
    QVERIFY(!result.isEmpty());
    text = result.value(QStringLiteral("text")).toString();
    QVERIFY(!hasLoneSurrogate(text));
    QVERIFY(text.startsWith(QString::fromUtf8("caf\xc3\xa9 \xe2\x82\xac A\xef\xbf\xbd"
                                              "B"
                                              "\xef\xbf\xbd"
                                              "C\naaa")));
    QVERIFY(text.endsWith(QLatin1String("aaaa")));
    coverage = result.value(QStringLiteral("text_coverage")).toObject();
    QVERIFY(coverage.value(QStringLiteral("text_limit_reached")).toBool());
    QCOMPARE(coverage.value(QStringLiteral("scanned_text_units")).toInt(), 262144);
}

void tst_Collector::titleIsCollapsedAndBounded()
{
    QVERIFY(load(html("<!doctype html><title>\n  Shop \t  title  </title><p>x</p>")));
    QJsonObject result = capture();
    QVERIFY(!result.isEmpty());
    QCOMPARE(result.value(QStringLiteral("title")).toString(), QStringLiteral("Shop title"));

    // 1,023 units then an emoji: the cut at 1,024 must not keep half of it.
    QVERIFY(load(html("<!doctype html><body><script>"
                      "document.title = 't'.repeat(1023) + '\\u{1F600}' + 'x'.repeat(5000);"
                      "</script></body>")));
    result = capture();
    QVERIFY(!result.isEmpty());
    const QString title = result.value(QStringLiteral("title")).toString();
    QCOMPARE(title.size(), 1023);
    QVERIFY(!hasLoneSurrogate(title));
}

void tst_Collector::largePageStaysWithinBounds()
{
    // 1 MiB of prose (two-byte characters) in 512 paragraphs, then 5,000 controls, every one
    // with a long name.
    QVERIFY(load(
        html("<!doctype html><body><script>"
             "const f = document.createDocumentFragment();"
             "const prose = '\\u00e9'.repeat(1023) + ' ';"
             "for (let i = 0; i < 512; i++) {"
             "  const p = document.createElement('p'); p.textContent = prose; f.appendChild(p); }"
             "for (let i = 0; i < 5000; i++) {"
             "  const b = document.createElement('button');"
             "  b.textContent = 'Button ' + i + ' ' + 'n'.repeat(3000); f.appendChild(b); }"
             "document.body.appendChild(f);"
             "</script></body>")));
    QElapsedTimer timer;
    timer.start();
    QString raw;
    const QJsonObject result = capture(QStringLiteral("c"), QStringLiteral("r"), &raw);
    QVERIFY(!result.isEmpty());
    qInfo("large page capture: %lld ms, %lld bytes", timer.elapsed(), qint64(raw.toUtf8().size()));
    QVERIFY(timer.elapsed() < 20000);

    const QString text = result.value(QStringLiteral("text")).toString();
    QVERIFY(text.toUtf8().size() <= 256 * 1024);
    QVERIFY(text.toUtf8().size() > 256 * 1024 - 4);
    const QJsonObject textCoverage = result.value(QStringLiteral("text_coverage")).toObject();
    QVERIFY(textCoverage.value(QStringLiteral("text_limit_reached")).toBool());
    QCOMPARE(textCoverage.value(QStringLiteral("scanned_text_units")).toInt(), 262144);
    QVERIFY(textCoverage.value(QStringLiteral("omitted_text_bytes")).toInt() > 200000);

    const QJsonArray elements = result.value(QStringLiteral("elements")).toArray();
    QCOMPARE(elements.size(), 256);
    for (int i = 0; i < elements.size(); ++i) {
        const QJsonObject element = elements.at(i).toObject();
        QCOMPARE(element.value(QStringLiteral("ref")).toString(), QStringLiteral("r.%1").arg(i));
        QCOMPARE(element.value(QStringLiteral("name")).toString().size(), 1024);
        QVERIFY(element.value(QStringLiteral("name"))
                    .toString()
                    .startsWith(QStringLiteral("Button %1 n").arg(i)));
    }
    const QJsonObject coverage = result.value(QStringLiteral("coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("candidate_offset")).toInt(), 0);
    QCOMPARE(coverage.value(QStringLiteral("scanned_candidates")).toInt(), 256);
    // 4,744 more candidates: the next window starts right after the 256th control.
    QCOMPARE(coverage.value(QStringLiteral("next_position")).toInt(-1), 256);
    QVERIFY(!coverage.value(QStringLiteral("scan_limit_reached")).toBool());
}

void tst_Collector::hostileDepthAndSizeFinish()
{
    // 100,000 nested elements. The HTML parser caps nesting at 512 levels and every
    // appendChild on a deep chain costs O(depth) in Blink, so the chain grows 500 levels per
    // innerHTML. Chromium 102 itself crashes laying out a few thousand rendered levels, so
    // the 100,000-deep chain is display:none and a 2,000-deep rendered chain sits beside it.
    const QString page =
        html("<!doctype html><body><p>top</p><div id=hidden style='display:none'></div>"
             "<div id=shown></div><p>bottom</p>"
             "<button aria-labelledby=deeplabel>By content</button><input id=labelled title=Titled>"
             "<script>"
             "function grow(root, depth, leaf) {"
             "  let cur = root; let reached = 0; const chunk = '<div>'.repeat(500);"
             "  while (reached < depth) {"
             "    cur.innerHTML = chunk;"
             "    while (cur.firstElementChild) { cur = cur.firstElementChild; reached++; } }"
             "  cur.innerHTML = leaf; return reached; }"
             "window.hiddenDepth = grow(document.getElementById('hidden'), 100000,"
             "  '<button>CANARY_DEEP_HIDDEN</button><span id=deeplabel>CANARY_DEEP_LABEL</span>'"
             "  + '<label for=labelled>CANARY_DEEP_FOR_LABEL</label>');"
             "window.shownDepth = grow(document.getElementById('shown'), 2000,"
             "  'deep end <button>Deep button</button>');"
             "</script></body>");
    QVERIFY(load(page));
    QCOMPARE(run(QStringLiteral("window.hiddenDepth + ' ' + window.shownDepth"),
                 QWebEngineScript::MainWorld)
                 .toString(),
             QStringLiteral("100000 2000"));
    QElapsedTimer timer;
    timer.start();
    QString raw;
    QJsonObject result = capture(QStringLiteral("c"), QStringLiteral("r"), &raw);
    QVERIFY(!result.isEmpty());
    qInfo("deep page capture: %lld ms", timer.elapsed());
    QVERIFY(timer.elapsed() < 20000);
    const QString leak = firstLeak(raw, canariesIn(page));
    QVERIFY2(leak.isEmpty(), qPrintable(QStringLiteral("leaked ") + leak));
    QCOMPARE(result.value(QStringLiteral("text")).toString(),
             QStringLiteral("top\ndeep end Deep button\nbottom\nBy content"));
    QStringList names;
    for (const QJsonValue &v : result.value(QStringLiteral("elements")).toArray())
        names << v[QStringLiteral("name")].toString();
    // Labels deep inside the hidden chain are not rendered: they give no name.
    QCOMPARE(names, (QStringList{QStringLiteral("Deep button"), QStringLiteral("By content"),
                                 QStringLiteral("Titled")}));
    QCOMPARE(result.value(QStringLiteral("coverage"))[QStringLiteral("scanned_candidates")].toInt(),
             4);
    QJsonObject coverage = result.value(QStringLiteral("text_coverage")).toObject();
    QVERIFY(!coverage.value(QStringLiteral("node_limit_reached")).toBool());

    // Leaving the page must not crash the renderer either: reading a style deep inside a
    // display:none subtree makes Chromium 102 crash when that document is torn down.
    QVERIFY(load(html("<!doctype html><p>after the deep page</p>")));
    QCOMPARE(m_renderTerminations, 0);

    // 100,000 sibling nodes.
    QVERIFY(load(html("<!doctype html><body><script>"
                      "const f = document.createDocumentFragment();"
                      "for (let i = 0; i < 50000; i++) {"
                      "  const s = document.createElement('span'); s.textContent = 'w' + i + ' ';"
                      "  f.appendChild(s); }"
                      "document.body.appendChild(f);"
                      "</script></body>")));
    timer.restart();
    result = capture();
    QVERIFY(!result.isEmpty());
    qInfo("wide page capture: %lld ms", timer.elapsed());
    QVERIFY(timer.elapsed() < 20000);
    coverage = result.value(QStringLiteral("text_coverage")).toObject();
    QVERIFY(coverage.value(QStringLiteral("node_limit_reached")).toBool());
    QCOMPARE(coverage.value(QStringLiteral("scanned_nodes")).toInt(), 8192);
    QVERIFY(!coverage.value(QStringLiteral("text_limit_reached")).toBool());
}

void tst_Collector::monkeyPatchedBuiltinsHaveNoEffect()
{
    const QString page = html(R"(<!doctype html><head><title>Real title</title></head><body>
<p>Patched page text</p><button>Patched button</button>
<div style="display:none">CANARY_PATCHED_HIDDEN</div>
<script>
  Array.prototype.push = function () { throw new Error('push'); };
  Array.prototype.join = function () { return 'CANARY_JOIN'; };
  JSON.stringify = function () { return '"CANARY_STRINGIFY"'; };
  String.prototype.replace = function () { return 'CANARY_REPLACE'; };
  Map.prototype.set = function () { throw new Error('set'); };
  Element.prototype.getBoundingClientRect = function () { return {width: 0, height: 0}; };
  Element.prototype.matches = function () { return false; };
  window.getComputedStyle = function () { return {display: 'none', visibility: 'hidden'}; };
  Object.defineProperty(Document.prototype, 'title', {get() { return 'CANARY_TITLE_GETTER'; }});
  Object.defineProperty(Node.prototype, 'firstChild', {get() { return null; }});
  globalThis.__veetbot = {capture() { return 'CANARY_FAKE'; }};
</script></body>)");
    QVERIFY(load(page));
    QString raw;
    const QJsonObject result = capture(QStringLiteral("c"), QStringLiteral("r"), &raw);
    QVERIFY(!result.isEmpty());
    const QString leak = firstLeak(raw, canariesIn(page));
    QVERIFY2(leak.isEmpty(), qPrintable(QStringLiteral("leaked ") + leak));
    QCOMPARE(result.value(QStringLiteral("title")).toString(), QStringLiteral("Real title"));
    QVERIFY(result.value(QStringLiteral("text"))
                .toString()
                .contains(QLatin1String("Patched page text")));
    const QJsonArray elements = result.value(QStringLiteral("elements")).toArray();
    QCOMPARE(elements.size(), 1);
    QCOMPARE(elements.at(0)[QStringLiteral("name")].toString(), QStringLiteral("Patched button"));
}

void tst_Collector::rolesAndNames()
{
    const QString page = html(R"(<!doctype html><body>
<span id="l1">Labelled</span> <span id="l2">By</span>
<button aria-labelledby="l1 missing l2" aria-label="Not used">Content</button>
<button aria-label="  Aria
   Label ">x</button>
<label for="e1">For label</label><input id="e1" title="t">
<label>Wrap <input id="e2" value="CANARY_WRAP_VALUE"> text</label>
<input type="image" alt="Image alt" src="data:," style="width:20px;height:20px">
<input type="submit"><input type="reset"><input type="button" value="Go on">
<input type="submit" value="Send it">
<a href="/t" title="Title name" style="display:inline-block;width:10px;height:10px"></a>
<input placeholder="Placeholder name">
<a href="/y">Link <b>text</b><span style="display:none">CANARY_LINK_HIDDEN</span></a>
<a href="/z"><img alt="Cart icon" src="data:," style="width:10px;height:10px"></a>
<button><svg aria-label="Close" width="10" height="10"></svg></button>
<input type="search" aria-label="Find">
<input list="dl" aria-label="With list"><datalist id="dl"><option>CANARY_DATALIST</option></datalist>
<input type="number" aria-label="Count"><input type="range" aria-label="Volume">
<input type="checkbox" aria-label="Agree"><input type="radio" aria-label="Pick">
<input type="file" aria-label="Upload"><input type="password" aria-label="Secret">
<select aria-label="One"><option>CANARY_SELECT_OPTION</option></select>
<select multiple aria-label="Many"><option>a</option></select>
<textarea aria-label="Message"></textarea>
<details><summary>More info</summary>hidden body</details>
<div contenteditable aria-label="Editor">CANARY_EDITOR_CONTENT</div>
<div tabindex="0">Generic div</div>
<div role="bogus button link" tabindex="0">Explicit role</div>
<button role="presentation">Presentational</button>
<div role="slider" tabindex="0" aria-label="Custom slider" style="width:50px;height:10px"></div>
<div role="link" tabindex="0">Custom link</div>
<li tabindex="0">List item</li>
<a>No href, not a candidate</a>
<span role="button" tabindex="0">Emoji &#x1F600; name</span>
</body>)");
    QVERIFY(load(page));
    QString raw;
    const QJsonObject result = capture(QStringLiteral("c"), QStringLiteral("r"), &raw);
    QVERIFY(!result.isEmpty());
    const QString leak = firstLeak(withoutSelectedOptions(result), canariesIn(page));
    QVERIFY2(leak.isEmpty(), qPrintable(QStringLiteral("leaked ") + leak));
    QCOMPARE(selectedOptions(result), (QStringList{QStringLiteral("CANARY_SELECT_OPTION")}));

    QStringList actual;
    for (const QJsonValue &v : result.value(QStringLiteral("elements")).toArray())
        actual << v[QStringLiteral("role")].toString() + u'|' +
                      v[QStringLiteral("name")].toString();
    const QStringList expected = {
        QStringLiteral("button|Labelled By"),
        QStringLiteral("button|Aria Label"),
        QStringLiteral("textbox|For label"),
        QStringLiteral("textbox|Wrap text"),
        QStringLiteral("button|Image alt"),
        QStringLiteral("button|Submit"),
        QStringLiteral("button|Reset"),
        QStringLiteral("button|Go on"),
        QStringLiteral("button|Send it"),
        QStringLiteral("link|Title name"),
        QStringLiteral("textbox|Placeholder name"),
        QStringLiteral("link|Link text"),
        QStringLiteral("link|Cart icon"),
        QStringLiteral("button|Close"),
        QStringLiteral("searchbox|Find"),
        QStringLiteral("combobox|With list"),
        QStringLiteral("spinbutton|Count"),
        QStringLiteral("slider|Volume"),
        QStringLiteral("checkbox|Agree"),
        QStringLiteral("radio|Pick"),
        QStringLiteral("button|Upload"),
        QStringLiteral("textbox|Secret"),
        QStringLiteral("combobox|One"),
        QStringLiteral("listbox|Many"),
        QStringLiteral("textbox|Message"),
        QStringLiteral("button|More info"),
        QStringLiteral("textbox|Editor"),
        QStringLiteral("generic|Generic div"),
        QStringLiteral("button|Explicit role"),
        QStringLiteral("button|Presentational"),
        QStringLiteral("slider|Custom slider"),
        QStringLiteral("link|Custom link"),
        QStringLiteral("listitem|List item"),
        QStringLiteral("button|Emoji ") + QString::fromUtf8("\xf0\x9f\x98\x80") +
            QStringLiteral(" name"),
    };
    QCOMPARE(actual, expected);
}

// Native labels are what element.labels lists (the collector does not call it: Chromium
// visits the whole tree for it, for every control), in tree order, at most 8.
void tst_Collector::labelsAreElementLabels()
{
    QVERIFY(load(html(R"(<!doctype html><body>
<label for=a>A1</label><label for=a>A2</label><input id=a>
<label>W1 <input id=b></label><label for=b>B2</label>
<label for=c>Outer <label>Inner <input id=c></label></label>
<label for=d>Elsewhere <input id=e title="E title"></label><input id=d>
<input id=f title=F1><input id=f title=F2><label for=f>F</label>
<label>Hh <span><input id=h></span><input id=i title="I title"></label>
<button id=j>Content</button><label for=j>J label</label>
<label for=k>K</label><select id=k><option>x</option></select>
<label for=s>Doc S</label><div id=host></div>
<input id=m><span id=ms></span>
<label for=n>Not labelable</label><div id=n tabindex=0>N content</div>
<script>
  const root = document.getElementById('host').attachShadow({mode: 'open'});
  root.innerHTML = '<label for=s>Shadow S</label><input id=s>';
  const ms = document.getElementById('ms');
  for (let i = 0; i < 10; i++) ms.insertAdjacentHTML('beforeend', '<label for=m>M' + i + '</label>');
</script></body>)")));
    const QJsonObject result = capture();
    QVERIFY(!result.isEmpty());
    QStringList names;
    for (const QJsonValue &v : result.value(QStringLiteral("elements")).toArray())
        names << v[QStringLiteral("name")].toString();
    QCOMPARE(names, (QStringList{
                        QStringLiteral("A1 A2"),
                        QStringLiteral("W1 B2"),
                        QStringLiteral("Outer Inner Inner"),
                        QStringLiteral("E title"),
                        QStringLiteral("Elsewhere"),
                        QStringLiteral("F"),
                        QStringLiteral("F2"),
                        QStringLiteral("Hh"),
                        QStringLiteral("I title"),
                        QStringLiteral("J label"),
                        QStringLiteral("K"),
                        QStringLiteral("Shadow S"),
                        QStringLiteral("M0 M1 M2 M3 M4 M5 M6 M7"),
                        QStringLiteral("N content"),
                    }));
    // The same label counts as element.labels gives them, control by control.
    const QString counts =
        run(QStringLiteral(
                "JSON.stringify([...document.querySelectorAll('input,button,select,#n'),"
                " ...document.getElementById('host').shadowRoot.querySelectorAll('input')]"
                ".map(e => e.labels ? e.labels.length : -1))"),
            QWebEngineScript::MainWorld)
            .toString();
    QCOMPARE(counts, QStringLiteral("[2,2,2,0,1,1,0,1,0,1,1,10,-1,1]"));
}

void tst_Collector::states()
{
    const QString page = html(R"(<!doctype html><body>
<button disabled>Dis</button>
<fieldset disabled><button>InFieldset</button></fieldset>
<button aria-disabled="true">AriaDis</button>
<div aria-disabled="true"><a href="/x">InAriaDisabled</a></div>
<input type="checkbox" checked aria-label="Checked">
<input type="checkbox" id="mix" aria-label="Mixed">
<input type="checkbox" aria-label="Unchecked">
<div role="checkbox" aria-checked="mixed" tabindex="0">AriaMixed</div>
<div role="switch" aria-checked="true" tabindex="0">Switch</div>
<div role="radio" aria-checked="mixed" tabindex="0">RadioMixed</div>
<input type="radio" name="g" aria-label="Radio">
<div role="tablist"><div role="tab" aria-selected="true" tabindex="0">TabA</div><div role="tab" tabindex="0">TabB</div></div>
<div role="option" aria-selected="true" tabindex="0">Opt</div>
<button aria-expanded="false">Menu</button>
<button aria-expanded="true">OpenMenu</button>
<details open><summary>Sum</summary>x</details>
<details><summary>ClosedSum</summary>x</details>
<input required aria-label="Req">
<div role="textbox" aria-required="true" tabindex="0" aria-label="AriaReq" style="width:50px;height:10px"></div>
<button>Plain</button>
<script>document.getElementById('mix').indeterminate = true;</script>
</body>)");
    QVERIFY(load(page));
    const QJsonObject result = capture();
    QVERIFY(!result.isEmpty());
    QHash<QString, QJsonObject> stateByName;
    for (const QJsonValue &v : result.value(QStringLiteral("elements")).toArray())
        stateByName.insert(v[QStringLiteral("name")].toString(),
                           v[QStringLiteral("state")].toObject());
    QCOMPARE(stateByName.size(), 21);

    const auto state = [&](const char *name) { return stateByName.value(QLatin1String(name)); };
    const QString d = QStringLiteral("disabled"), c = QStringLiteral("checked"),
                  s = QStringLiteral("selected"), e = QStringLiteral("expanded"),
                  r = QStringLiteral("required");
    for (const char *name : {"Dis", "InFieldset", "AriaDis", "InAriaDisabled"})
        QVERIFY2(state(name).value(d).toBool(), name);
    QVERIFY(!state("Plain").value(d).toBool());
    QCOMPARE(state("Plain").value(c), QJsonValue(QJsonValue::Null));
    QCOMPARE(state("Plain").value(s), QJsonValue(QJsonValue::Null));
    QCOMPARE(state("Plain").value(e), QJsonValue(QJsonValue::Null));
    QCOMPARE(state("Plain").value(r), QJsonValue(false));

    QCOMPARE(state("Checked").value(c), QJsonValue(true));
    QCOMPARE(state("Mixed").value(c), QJsonValue(QStringLiteral("mixed")));
    QCOMPARE(state("Unchecked").value(c), QJsonValue(false));
    QCOMPARE(state("AriaMixed").value(c), QJsonValue(QStringLiteral("mixed")));
    QCOMPARE(state("Switch").value(c), QJsonValue(true));
    QCOMPARE(state("RadioMixed").value(c), QJsonValue(false));
    QCOMPARE(state("Radio").value(c), QJsonValue(false));
    QCOMPARE(state("Radio").value(s), QJsonValue(QJsonValue::Null));

    QCOMPARE(state("TabA").value(s), QJsonValue(true));
    QCOMPARE(state("TabB").value(s), QJsonValue(false));
    QCOMPARE(state("Opt").value(s), QJsonValue(true));
    QCOMPARE(state("TabA").value(c), QJsonValue(QJsonValue::Null));

    QCOMPARE(state("Menu").value(e), QJsonValue(false));
    QCOMPARE(state("OpenMenu").value(e), QJsonValue(true));
    QCOMPARE(state("Sum").value(e), QJsonValue(true));
    QCOMPARE(state("ClosedSum").value(e), QJsonValue(false));

    QCOMPARE(state("Req").value(r), QJsonValue(true));
    QCOMPARE(state("AriaReq").value(r), QJsonValue(true));
}

void tst_Collector::visibilityFollowsPlaywright()
{
    const QString page = html(R"(<!doctype html><body>
<div style="display:contents" role="button" tabindex="0"><span>Contents child</span></div>
<div style="display:contents" role="button" tabindex="0" aria-label="CANARY_CONTENTS_EMPTY"><span style="display:none">x</span></div>
<div style="display:contents" role="button" tabindex="0" aria-label="Contents text">bare text</div>
<details><summary>Summary</summary><button aria-label="CANARY_IN_CLOSED_DETAILS">b</button></details>
<details open><summary>Open</summary><button>In open details</button></details>
<button style="visibility:hidden" aria-label="CANARY_VISIBILITY_HIDDEN">v</button>
<div style="visibility:hidden"><button style="visibility:visible">Visible again</button></div>
<button style="width:0;height:0;padding:0;border:0;overflow:hidden" aria-label="CANARY_ZERO_SIZE">z</button>
<button style="position:absolute;left:-10000px">Offscreen</button>
<button style="opacity:0">Transparent</button>
<div style="display:none"><button aria-label="CANARY_DISPLAY_NONE">n</button></div>
<div id="host"><button slot="nowhere" aria-label="CANARY_UNSLOTTED">u</button></div>
<script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<p>shadow</p>';</script>
</body>)");
    QVERIFY(load(page));
    QString raw;
    const QJsonObject result = capture(QStringLiteral("c"), QStringLiteral("r"), &raw);
    QVERIFY(!result.isEmpty());
    const QString leak = firstLeak(raw, canariesIn(page));
    QVERIFY2(leak.isEmpty(), qPrintable(QStringLiteral("leaked ") + leak));
    QStringList names;
    for (const QJsonValue &v : result.value(QStringLiteral("elements")).toArray())
        names << v[QStringLiteral("name")].toString();
    QCOMPARE(names, (QStringList{QStringLiteral("Contents child"), QStringLiteral("Contents text"),
                                 QStringLiteral("Summary"), QStringLiteral("Open"),
                                 QStringLiteral("In open details"), QStringLiteral("Visible again"),
                                 QStringLiteral("Offscreen"), QStringLiteral("Transparent")}));
    // Every candidate was checked; hidden ones took no element slot.
    const QJsonObject coverage = result.value(QStringLiteral("coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("scanned_candidates")).toInt(), 14);
    QVERIFY(!coverage.value(QStringLiteral("scan_limit_reached")).toBool());
}

void tst_Collector::candidateWindowAndCoverage()
{
    // 4,200 hidden candidates before one visible control: the first window checks 4,096, and
    // the next window starts right after it; hidden candidates never take a slot.
    QVERIFY(load(html("<!doctype html><body><script>"
                      "const f = document.createDocumentFragment();"
                      "for (let i = 0; i < 4200; i++) {"
                      "  const b = document.createElement('button'); b.textContent = 'h';"
                      "  b.style.display = 'none'; f.appendChild(b); }"
                      "const v = document.createElement('button'); v.textContent = 'late';"
                      "f.appendChild(v); document.body.appendChild(f);"
                      "</script></body>")));
    QJsonObject result = capture();
    QVERIFY(!result.isEmpty());
    QCOMPARE(result.value(QStringLiteral("elements")).toArray().size(), 0);
    QJsonObject coverage = result.value(QStringLiteral("coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("candidate_offset")).toInt(), 0);
    QCOMPARE(coverage.value(QStringLiteral("scanned_candidates")).toInt(), 4096);
    QCOMPARE(coverage.value(QStringLiteral("next_position")).toInt(-1), 4096);
    QVERIFY(!coverage.value(QStringLiteral("scan_limit_reached")).toBool());
    QCOMPARE(call(QStringLiteral("__veetbot.commit('cap')")), QStringLiteral(R"({"ok":true})"));
    result = continueCapture(
        QStringLiteral("cap2"), QStringLiteral("r2"),
        {{QStringLiteral("current"), QStringLiteral("cap")}, {QStringLiteral("start"), 4096}});
    QVERIFY(!result.isEmpty());
    QJsonArray elements = result.value(QStringLiteral("elements")).toArray();
    QCOMPARE(elements.size(), 1);
    QCOMPARE(elements.at(0)[QStringLiteral("name")].toString(), QStringLiteral("late"));
    QCOMPARE(elements.at(0)[QStringLiteral("ref")].toString(), QStringLiteral("r2.0"));
    coverage = result.value(QStringLiteral("coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("candidate_offset")).toInt(), 4096);
    QCOMPARE(coverage.value(QStringLiteral("scanned_candidates")).toInt(), 105);
    QVERIFY(coverage.value(QStringLiteral("next_position")).isNull());
    QVERIFY(!coverage.value(QStringLiteral("scan_limit_reached")).toBool());

    // Exactly 4,096 candidates: all checked, no lookahead hit, the page is covered.
    QVERIFY(load(html("<!doctype html><body><script>"
                      "const f = document.createDocumentFragment();"
                      "for (let i = 0; i < 4095; i++) {"
                      "  const b = document.createElement('button'); b.textContent = 'h';"
                      "  b.hidden = true; f.appendChild(b); }"
                      "const v = document.createElement('button'); v.textContent = 'last';"
                      "f.appendChild(v); document.body.appendChild(f);"
                      "</script></body>")));
    result = capture();
    QVERIFY(!result.isEmpty());
    elements = result.value(QStringLiteral("elements")).toArray();
    QCOMPARE(elements.size(), 1);
    QCOMPARE(elements.at(0)[QStringLiteral("name")].toString(), QStringLiteral("last"));
    QCOMPARE(elements.at(0)[QStringLiteral("ref")].toString(), QStringLiteral("r1.0"));
    coverage = result.value(QStringLiteral("coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("scanned_candidates")).toInt(), 4096);
    QVERIFY(coverage.value(QStringLiteral("next_position")).isNull());
    QVERIFY(!coverage.value(QStringLiteral("scan_limit_reached")).toBool());

    // The acquisition walk is bounded too: after 262,144 element visits it stops and reports
    // that candidates may remain that no continuation reaches.
    QVERIFY(load(html("<!doctype html><body><div id=pile></div><button>after pile</button>"
                      "<script>const f = document.createDocumentFragment();"
                      "for (let i = 0; i < 270000; i++) f.appendChild(document.createElement('i'));"
                      "document.getElementById('pile').appendChild(f);</script></body>")));
    QElapsedTimer timer;
    timer.start();
    result = capture();
    QVERIFY(!result.isEmpty());
    qInfo("pile capture: %lld ms", timer.elapsed());
    QVERIFY(timer.elapsed() < 20000);
    QCOMPARE(result.value(QStringLiteral("elements")).toArray().size(), 0);
    coverage = result.value(QStringLiteral("coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("scanned_candidates")).toInt(), 0);
    QVERIFY(coverage.value(QStringLiteral("next_position")).isNull());
    QVERIFY(coverage.value(QStringLiteral("scan_limit_reached")).toBool());
}

void tst_Collector::continuationWindows()
{
    // 600 visible buttons, every fifth one preceded by a hidden one; the last 100 inside an
    // open shadow root. Positions count every candidate, hidden ones included.
    QVERIFY(load(html("<!doctype html><body><div id=light></div><div id=host></div><script>"
                      "const light = document.getElementById('light');"
                      "const root = document.getElementById('host').attachShadow({mode:'open'});"
                      "for (let i = 0; i < 600; i++) {"
                      "  const parent = i < 500 ? light : root;"
                      "  if (i % 5 === 0) { const h = document.createElement('button');"
                      "    h.hidden = true; h.textContent = 'hidden'; parent.appendChild(h); }"
                      "  const b = document.createElement('button'); b.textContent = 'b' + i;"
                      "  parent.appendChild(b); }"
                      "</script></body>")));
    QJsonObject result = capture(QStringLiteral("w1"), QStringLiteral("p1"));
    QVERIFY(!result.isEmpty());
    QJsonArray elements = result.value(QStringLiteral("elements")).toArray();
    QCOMPARE(elements.size(), 256);
    QCOMPARE(elements.at(255)[QStringLiteral("name")].toString(), QStringLiteral("b255"));
    QJsonObject coverage = result.value(QStringLiteral("coverage")).toObject();
    // b255 is candidate 255 + 52 hidden ones before it (i = 0, 5, ..., 255).
    QCOMPARE(coverage.value(QStringLiteral("scanned_candidates")).toInt(), 308);
    QCOMPARE(coverage.value(QStringLiteral("next_position")).toInt(-1), 308);
    QCOMPARE(call(QStringLiteral("__veetbot.commit('w1')")), QStringLiteral(R"({"ok":true})"));

    // After the last control: the window starts at the anchor, counts it, and excludes it.
    result = continueCapture(QStringLiteral("w2"), QStringLiteral("p2"),
                             {{QStringLiteral("current"), QStringLiteral("w1")},
                              {QStringLiteral("after"), QStringLiteral("p1.255")}});
    QVERIFY(!result.isEmpty());
    elements = result.value(QStringLiteral("elements")).toArray();
    QCOMPARE(elements.size(), 256);
    QCOMPARE(elements.at(0)[QStringLiteral("name")].toString(), QStringLiteral("b256"));
    QCOMPARE(elements.at(255)[QStringLiteral("name")].toString(), QStringLiteral("b511"));
    coverage = result.value(QStringLiteral("coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("candidate_offset")).toInt(), 307);
    const int end = 307 + coverage.value(QStringLiteral("scanned_candidates")).toInt();
    QCOMPARE(coverage.value(QStringLiteral("next_position")).toInt(-1), end);
    QCOMPARE(call(QStringLiteral("__veetbot.commit('w2')")), QStringLiteral(R"({"ok":true})"));

    // At a position (the provider's cursor): the rest, shadow content included, then covered.
    result = continueCapture(
        QStringLiteral("w3"), QStringLiteral("p3"),
        {{QStringLiteral("current"), QStringLiteral("w2")}, {QStringLiteral("start"), end}});
    QVERIFY(!result.isEmpty());
    elements = result.value(QStringLiteral("elements")).toArray();
    QCOMPARE(elements.size(), 88);
    QCOMPARE(elements.at(0)[QStringLiteral("name")].toString(), QStringLiteral("b512"));
    QCOMPARE(elements.at(87)[QStringLiteral("name")].toString(), QStringLiteral("b599"));
    coverage = result.value(QStringLiteral("coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("candidate_offset")).toInt(), end);
    QCOMPARE(end + coverage.value(QStringLiteral("scanned_candidates")).toInt(), 720);
    QVERIFY(coverage.value(QStringLiteral("next_position")).isNull());
    QVERIFY(!coverage.value(QStringLiteral("scan_limit_reached")).toBool());

    // A position beyond a page that shrank: an empty, terminal window.
    QCOMPARE(call(QStringLiteral("__veetbot.commit('w3')")), QStringLiteral(R"({"ok":true})"));
    result = continueCapture(
        QStringLiteral("w4"), QStringLiteral("p4"),
        {{QStringLiteral("current"), QStringLiteral("w3")}, {QStringLiteral("start"), 9000}});
    QVERIFY(!result.isEmpty());
    QCOMPARE(result.value(QStringLiteral("elements")).toArray().size(), 0);
    coverage = result.value(QStringLiteral("coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("scanned_candidates")).toInt(), 0);
    QVERIFY(coverage.value(QStringLiteral("next_position")).isNull());

    // Malformed continuation options are plain failures; nothing is captured.
    const QJsonObject bad[] = {
        {{QStringLiteral("current"), QStringLiteral("w3")}, {QStringLiteral("start"), -1}},
        {{QStringLiteral("current"), QStringLiteral("w3")}, {QStringLiteral("start"), 65536}},
        {{QStringLiteral("current"), QStringLiteral("w3")}, {QStringLiteral("start"), 1.5}},
        {{QStringLiteral("current"), QStringLiteral("w3")},
         {QStringLiteral("start"), QStringLiteral("3")}},
        {{QStringLiteral("start"), 3}},
        {{QStringLiteral("current"), QStringLiteral("w3")}, {QStringLiteral("after"), 3}},
        {{QStringLiteral("current"), QStringLiteral("w3")},
         {QStringLiteral("after"), QStringLiteral("p3.0")},
         {QStringLiteral("start"), 3}},
    };
    for (const QJsonObject &window : bad)
        QCOMPARE(continueRaw(QStringLiteral("bad"), QStringLiteral("pb"), window), kFailed);
    QCOMPARE(
        callObject(QStringLiteral("__veetbot.state()")).value(QStringLiteral("pending")).toInt(),
        1); // w4 only
}

void tst_Collector::anchorMustStayPut()
{
    const QString page = html("<!doctype html><body><div id=list>"
                              "<button id=a>A</button><button id=b>B</button>"
                              "<button id=c>C</button><button id=d>D</button></div></body>");
    const QString pageChanged = QStringLiteral(R"({"ok":false,"error":"page_changed"})");
    const QString committed =
        QStringLiteral(R"({"ok":true,"current":"a1","handles":4,"pending":0})");
    const auto prepare = [&] {
        if (!load(page) || capture(QStringLiteral("a1"), QStringLiteral("q")).isEmpty())
            return false;
        return call(QStringLiteral("__veetbot.commit('a1')")) == QStringLiteral(R"({"ok":true})");
    };
    const QJsonObject afterB{{QStringLiteral("current"), QStringLiteral("a1")},
                             {QStringLiteral("after"), QStringLiteral("q.1")}};

    // Unchanged: the window after B is C, D.
    QVERIFY(prepare());
    QJsonObject result = continueCapture(QStringLiteral("a2"), QStringLiteral("s"), afterB);
    QCOMPARE(result.value(QStringLiteral("elements")).toArray().size(), 2);
    QCOMPARE(result.value(QStringLiteral("coverage"))[QStringLiteral("candidate_offset")].toInt(),
             1);
    QCOMPARE(result.value(QStringLiteral("coverage"))[QStringLiteral("scanned_candidates")].toInt(),
             3);

    // A candidate inserted before the anchor moves it: page_changed, and nothing changed.
    QVERIFY(prepare());
    run(QStringLiteral(
            "document.getElementById('list').prepend(document.createElement('button'));1"),
        QWebEngineScript::MainWorld);
    QCOMPARE(continueRaw(QStringLiteral("a2"), QStringLiteral("s"), afterB), pageChanged);
    QCOMPARE(call(QStringLiteral("__veetbot.state()")), committed);

    // The anchor itself moved to another position.
    QVERIFY(prepare());
    run(QStringLiteral("document.getElementById('list').append(document.getElementById('b'));1"),
        QWebEngineScript::MainWorld);
    QCOMPARE(continueRaw(QStringLiteral("a2"), QStringLiteral("s"), afterB), pageChanged);
    QCOMPARE(call(QStringLiteral("__veetbot.state()")), committed);

    // Removed, or removed and an equal node put in its place.
    QVERIFY(prepare());
    run(QStringLiteral("document.getElementById('b').remove();1"), QWebEngineScript::MainWorld);
    QCOMPARE(continueRaw(QStringLiteral("a2"), QStringLiteral("s"), afterB), pageChanged);
    QVERIFY(prepare());
    run(QStringLiteral("var b=document.getElementById('b');b.replaceWith(b.cloneNode(true));1"),
        QWebEngineScript::MainWorld);
    QCOMPARE(continueRaw(QStringLiteral("a2"), QStringLiteral("s"), afterB), pageChanged);
    QCOMPARE(call(QStringLiteral("__veetbot.state()")), committed);

    // A candidate removed after the anchor changes nothing about it.
    QVERIFY(prepare());
    run(QStringLiteral("document.getElementById('d').remove();1"), QWebEngineScript::MainWorld);
    result = continueCapture(QStringLiteral("a2"), QStringLiteral("s"), afterB);
    QCOMPARE(result.value(QStringLiteral("elements")).toArray().size(), 1);

    // A ref that is not in the committed capture, a pending capture's ref, or a continuation
    // of a capture that is not the current one.
    QVERIFY(prepare());
    QCOMPARE(continueRaw(QStringLiteral("a2"), QStringLiteral("s"),
                         {{QStringLiteral("current"), QStringLiteral("a1")},
                          {QStringLiteral("after"), QStringLiteral("q.9")}}),
             pageChanged);
    QVERIFY(!capture(QStringLiteral("pend"), QStringLiteral("pp")).isEmpty());
    QCOMPARE(continueRaw(QStringLiteral("a2"), QStringLiteral("s"),
                         {{QStringLiteral("current"), QStringLiteral("a1")},
                          {QStringLiteral("after"), QStringLiteral("pp.0")}}),
             pageChanged);
    QCOMPARE(continueRaw(QStringLiteral("a2"), QStringLiteral("s"),
                         {{QStringLiteral("current"), QStringLiteral("pend")},
                          {QStringLiteral("after"), QStringLiteral("q.1")}}),
             pageChanged);
    QCOMPARE(continueRaw(QStringLiteral("a2"), QStringLiteral("s"),
                         {{QStringLiteral("current"), QStringLiteral("pend")},
                          {QStringLiteral("start"), 2}}),
             pageChanged);
    // After a new document, nothing continues.
    QVERIFY(load(page));
    QCOMPARE(continueRaw(QStringLiteral("a2"), QStringLiteral("s"), afterB), pageChanged);
    QCOMPARE(continueRaw(
                 QStringLiteral("a2"), QStringLiteral("s"),
                 {{QStringLiteral("current"), QStringLiteral("a1")}, {QStringLiteral("start"), 2}}),
             pageChanged);
}

// A window that continues the committed capture resumes its walk and reuses its text and
// regions while nothing changed, and gives exactly what a fresh walk gives; any change (in the
// document, in a shadow root the walk passed, an attribute, a style sheet) makes it read again.
void tst_Collector::continuationsResumeUnchangedWork()
{
    // 900 visible buttons b0..b899: b300..b599 inside an open shadow root, between two runs in
    // the light DOM; prose in every part.
    QVERIFY(load(html("<!doctype html><body><style>.gone{display:none}</style>"
                      "<p id=intro>Intro prose</p><div id=a></div><div id=host></div>"
                      "<div id=c></div><script>"
                      "const root = document.getElementById('host').attachShadow({mode:'open'});"
                      "for (let i = 0; i < 900; i++) {"
                      "  const parent = i < 300 ? document.getElementById('a')"
                      "    : i < 600 ? root : document.getElementById('c');"
                      "  const b = document.createElement('button'); b.textContent = 'b' + i;"
                      "  parent.appendChild(b);"
                      "  if (i % 100 === 50) { const p = document.createElement('p');"
                      "    p.textContent = 'Prose ' + i; parent.appendChild(p); } }"
                      "</script></body>")));
    const auto work = [this] { return callObject(QStringLiteral("__veetbot.work()")); };
    const auto names = [](const QJsonObject &result) {
        QStringList list;
        for (const QJsonValue &v : result.value(QStringLiteral("elements")).toArray())
            list << v[QStringLiteral("name")].toString();
        return list;
    };
    const auto withoutRefs = [](QJsonObject result) {
        QJsonArray elements;
        for (const QJsonValue &v : result.value(QStringLiteral("elements")).toArray()) {
            QJsonObject element = v.toObject();
            element.remove(QStringLiteral("ref"));
            elements.append(element);
        }
        result.insert(QStringLiteral("elements"), elements);
        QJsonArray regions;
        for (const QJsonValue &v : result.value(QStringLiteral("regions")).toArray()) {
            QJsonObject region = v.toObject();
            region.remove(QStringLiteral("ref"));
            regions.append(region);
        }
        result.insert(QStringLiteral("regions"), regions);
        return result;
    };
    QCOMPARE(call(QStringLiteral("__veetbot.work()")), QStringLiteral(R"({"ok":false})"));

    // A walk to full coverage: the first window reads everything; every continuation resumes
    // and reuses the text, which is not sent again.
    QJsonObject result = capture(QStringLiteral("w0"), QStringLiteral("p0"));
    QVERIFY(!result.isEmpty());
    QVERIFY(result.value(QStringLiteral("text")).toString().contains(QStringLiteral("Prose 350")));
    QCOMPARE(call(QStringLiteral("__veetbot.commit('w0')")), QStringLiteral(R"({"ok":true})"));
    QCOMPARE(work().value(QStringLiteral("resumed")).toBool(), false);
    QCOMPARE(work().value(QStringLiteral("read_text")).toBool(), true);
    QStringList seen = names(result);
    int visits = work().value(QStringLiteral("element_visits")).toInt();
    QString previous = QStringLiteral("w0");
    QList<QJsonObject> windows{result};
    for (int i = 1;
         !result.value(QStringLiteral("coverage"))[QStringLiteral("next_position")].isNull(); ++i) {
        QVERIFY(i < 10);
        const QString id = QStringLiteral("w%1").arg(i);
        const QString raw = continueRaw(
            id, QStringLiteral("p%1").arg(i),
            {{QStringLiteral("current"), previous},
             {QStringLiteral("start"),
              result.value(QStringLiteral("coverage"))[QStringLiteral("next_position")].toInt()}});
        QVERIFY(raw.contains(QStringLiteral(R"("text_unchanged":true)")));
        QVERIFY(!raw.contains(QStringLiteral("Prose")));
        result = continueCapture(
            id, QStringLiteral("p%1").arg(i),
            {{QStringLiteral("current"), previous},
             {QStringLiteral("start"),
              result.value(QStringLiteral("coverage"))[QStringLiteral("next_position")].toInt()}});
        QVERIFY(!result.isEmpty());
        QCOMPARE(call(QStringLiteral("__veetbot.commit('%1')").arg(id)),
                 QStringLiteral(R"({"ok":true})"));
        QCOMPARE(work().value(QStringLiteral("resumed")).toBool(), true);
        QCOMPARE(work().value(QStringLiteral("read_text")).toBool(), false);
        // The text the provider puts back is the first window's.
        QCOMPARE(result.value(QStringLiteral("text")),
                 windows.first().value(QStringLiteral("text")));
        seen << names(result);
        visits += work().value(QStringLiteral("element_visits")).toInt();
        windows << result;
        previous = id;
    }
    QCOMPARE(seen.size(), 900);
    QCOMPARE(seen.first(), QStringLiteral("b0"));
    QCOMPARE(seen.last(), QStringLiteral("b899"));
    // Linear: every element of the page visited about once over all windows (html, head,
    // style, body, 3 divs, script, 900 buttons, 9 paragraphs; a walk starting over would visit
    // the first windows' elements again).
    const int elements =
        callObject(QStringLiteral("JSON.stringify({n: document.getElementsByTagName('*').length"
                                  " + document.getElementById('host').shadowRoot"
                                  ".querySelectorAll('*').length})"))
            .value(QStringLiteral("n"))
            .toInt();
    QVERIFY2(visits <= elements,
             qPrintable(QStringLiteral("%1 visits, %2 elements").arg(visits).arg(elements)));

    // A first window, committed: its next position (-1 on failure).
    const auto first = [&](const QString &id) {
        const QJsonObject window = capture(id, id);
        if (window.isEmpty() || call(QStringLiteral("__veetbot.commit('%1')").arg(id)) !=
                                    QStringLiteral(R"({"ok":true})"))
            return -1;
        return window.value(QStringLiteral("coverage"))[QStringLiteral("next_position")].toInt(-1);
    };
    // The window at `start` continuing the committed capture `from`, committed.
    const auto next = [&](const QString &from, const QString &id, int start) {
        const QJsonObject window = continueCapture(
            id, id, {{QStringLiteral("current"), from}, {QStringLiteral("start"), start}});
        if (window.isEmpty() || call(QStringLiteral("__veetbot.commit('%1')").arg(id)) !=
                                    QStringLiteral(R"({"ok":true})"))
            return QJsonObject();
        return window;
    };
    const auto nextOf = [](const QJsonObject &window) {
        return window.value(QStringLiteral("coverage"))[QStringLiteral("next_position")].toInt(-1);
    };

    // Resumed, the second window is the walk's second window.
    QJsonObject window =
        next(QStringLiteral("r"), QStringLiteral("r1"), first(QStringLiteral("r")));
    QCOMPARE(work().value(QStringLiteral("resumed")).toBool(), true);
    QCOMPARE(withoutRefs(window), withoutRefs(windows.at(1)));

    // A change inside the shadow root the second window's walk entered: a control before b300
    // shifts every later position. The third window walks afresh (resumed, it would not see
    // the new control and would start at b512).
    window = next(QStringLiteral("s"), QStringLiteral("s1"), first(QStringLiteral("s")));
    QVERIFY(!window.isEmpty());
    run(QStringLiteral("var b=document.createElement('button');b.textContent='new';"
                       "document.getElementById('host').shadowRoot.prepend(b);1"),
        QWebEngineScript::MainWorld);
    window = next(QStringLiteral("s1"), QStringLiteral("s2"), nextOf(window));
    QVERIFY(!window.isEmpty());
    QCOMPARE(work().value(QStringLiteral("resumed")).toBool(), false);
    QCOMPARE(work().value(QStringLiteral("read_text")).toBool(), true);
    QCOMPARE(names(window).first(), QStringLiteral("b511"));
    run(QStringLiteral("document.getElementById('host').shadowRoot.firstChild.remove();1"),
        QWebEngineScript::MainWorld);

    // After an attribute change that moves nothing, the fresh walk gives exactly the resumed
    // third window.
    window = next(QStringLiteral("f"), QStringLiteral("f1"), first(QStringLiteral("f")));
    QVERIFY(!window.isEmpty());
    run(QStringLiteral("document.body.setAttribute('data-x','1');1"), QWebEngineScript::MainWorld);
    window = next(QStringLiteral("f1"), QStringLiteral("f2"), nextOf(window));
    QCOMPARE(work().value(QStringLiteral("resumed")).toBool(), false);
    QCOMPARE(withoutRefs(window), withoutRefs(windows.at(2)));

    // A style sheet change without a DOM change: the walk resumes (positions do not depend on
    // styles); the text is read again and shows the change.
    QVERIFY(first(QStringLiteral("y")) > 0);
    run(QStringLiteral("document.styleSheets[0].insertRule('#intro{display:none}',0);1"),
        QWebEngineScript::MainWorld);
    const QString styled = continueRaw(QStringLiteral("y1"), QStringLiteral("y1"),
                                       {{QStringLiteral("current"), QStringLiteral("y")},
                                        {QStringLiteral("start"), nextOf(windows.at(0))}});
    QVERIFY(styled.contains(QStringLiteral("Prose 50")));
    QVERIFY(!styled.contains(QStringLiteral("Intro prose")));
    QCOMPARE(call(QStringLiteral("__veetbot.commit('y1')")), QStringLiteral(R"({"ok":true})"));
    QCOMPARE(work().value(QStringLiteral("resumed")).toBool(), true);
    QCOMPARE(work().value(QStringLiteral("read_text")).toBool(), true);

    // The provider's half (putting the kept text back) is tst_captureassembly's.
}

void tst_Collector::candidatePositionsStopAt65536()
{
    // More than 65,536 candidates (hidden: no layout cost): the window that reaches position
    // 65,536 says the limit stopped it and offers no continuation.
    const auto pageWith = [this](int candidates) {
        return load(html("<!doctype html><body><div id=pile></div><script>"
                         "const f = document.createDocumentFragment();"
                         "for (let i = 0; i < ") +
                    QString::number(candidates) +
                    html("; i++) { const b = document.createElement('button'); b.hidden = true;"
                         "f.appendChild(b); }"
                         "document.getElementById('pile').appendChild(f);</script></body>"));
    };
    QVERIFY(pageWith(65540));
    QVERIFY(!capture(QStringLiteral("l1"), QStringLiteral("m1")).isEmpty());
    QCOMPARE(call(QStringLiteral("__veetbot.commit('l1')")), QStringLiteral(R"({"ok":true})"));
    QElapsedTimer timer;
    timer.start();
    QJsonObject result = continueCapture(QStringLiteral("l2"), QStringLiteral("m2"),
                                         {{QStringLiteral("current"), QStringLiteral("l1")},
                                          {QStringLiteral("start"), 65536 - 4096}});
    qInfo("window at 61,440: %lld ms", timer.elapsed());
    QVERIFY(!result.isEmpty());
    QJsonObject coverage = result.value(QStringLiteral("coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("scanned_candidates")).toInt(), 4096);
    QVERIFY(coverage.value(QStringLiteral("next_position")).isNull());
    QVERIFY(coverage.value(QStringLiteral("scan_limit_reached")).toBool());
    // A window that starts close to the limit is cut at it.
    result = continueCapture(
        QStringLiteral("l3"), QStringLiteral("m3"),
        {{QStringLiteral("current"), QStringLiteral("l1")}, {QStringLiteral("start"), 65530}});
    coverage = result.value(QStringLiteral("coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("scanned_candidates")).toInt(), 6);
    QVERIFY(coverage.value(QStringLiteral("scan_limit_reached")).toBool());

    // Exactly 65,536: the last window covers the page.
    QVERIFY(pageWith(65536));
    QVERIFY(!capture(QStringLiteral("e1"), QStringLiteral("n1")).isEmpty());
    QCOMPARE(call(QStringLiteral("__veetbot.commit('e1')")), QStringLiteral(R"({"ok":true})"));
    result = continueCapture(QStringLiteral("e2"), QStringLiteral("n2"),
                             {{QStringLiteral("current"), QStringLiteral("e1")},
                              {QStringLiteral("start"), 65536 - 4096}});
    coverage = result.value(QStringLiteral("coverage")).toObject();
    QCOMPARE(coverage.value(QStringLiteral("scanned_candidates")).toInt(), 4096);
    QVERIFY(coverage.value(QStringLiteral("next_position")).isNull());
    QVERIFY(!coverage.value(QStringLiteral("scan_limit_reached")).toBool());
}

void tst_Collector::commitDiscardAndState()
{
    QVERIFY(load(html("<!doctype html><body><button id=a>A</button><button>B</button></body>")));
    QCOMPARE(call(QStringLiteral("__veetbot.state()")),
             QStringLiteral(R"({"ok":true,"current":null,"handles":0,"pending":0})"));

    QVERIFY(!capture(QStringLiteral("c1"), QStringLiteral("rev1")).isEmpty());
    QVERIFY(!capture(QStringLiteral("c2"), QStringLiteral("rev2")).isEmpty());
    QCOMPARE(call(QStringLiteral("__veetbot.state()")),
             QStringLiteral(R"({"ok":true,"current":null,"handles":0,"pending":2})"));
    // Pending handles are not actionable.
    QCOMPARE(call(QStringLiteral("__veetbot.lookup('rev1.0')")), QStringLiteral(R"({"ok":false})"));

    QCOMPARE(call(QStringLiteral("__veetbot.commit('c1')")), QStringLiteral(R"({"ok":true})"));
    QCOMPARE(call(QStringLiteral("__veetbot.state()")),
             QStringLiteral(R"({"ok":true,"current":"c1","handles":2,"pending":0})"));
    // Committing released every other pending capture.
    QCOMPARE(call(QStringLiteral("__veetbot.commit('c2')")), QStringLiteral(R"({"ok":false})"));
    QCOMPARE(call(QStringLiteral("__veetbot.commit('nope')")), QStringLiteral(R"({"ok":false})"));
    QCOMPARE(call(QStringLiteral("__veetbot.state()")),
             QStringLiteral(R"({"ok":true,"current":"c1","handles":2,"pending":0})"));

    QCOMPARE(call(QStringLiteral("__veetbot.lookup('rev1.0')")),
             QStringLiteral(R"({"ok":true,"connected":true})"));
    QCOMPARE(call(QStringLiteral("__veetbot.lookup('rev2.0')")), QStringLiteral(R"({"ok":false})"));
    QCOMPARE(call(QStringLiteral("__veetbot.lookup(42)")), QStringLiteral(R"({"ok":false})"));
    run(QStringLiteral("document.getElementById('a').remove(); 1"), QWebEngineScript::MainWorld);
    QCOMPARE(call(QStringLiteral("__veetbot.lookup('rev1.0')")),
             QStringLiteral(R"({"ok":true,"connected":false})"));

    // A new capture replaces the current map only on commit.
    QVERIFY(!capture(QStringLiteral("c3"), QStringLiteral("rev3")).isEmpty());
    QCOMPARE(call(QStringLiteral("__veetbot.state()")),
             QStringLiteral(R"({"ok":true,"current":"c1","handles":2,"pending":1})"));
    QCOMPARE(call(QStringLiteral("__veetbot.commit('c3')")), QStringLiteral(R"({"ok":true})"));
    QCOMPARE(call(QStringLiteral("__veetbot.state()")),
             QStringLiteral(R"({"ok":true,"current":"c3","handles":1,"pending":0})"));
    QCOMPARE(call(QStringLiteral("__veetbot.lookup('rev1.0')")), QStringLiteral(R"({"ok":false})"));

    // A discarded (failed) capture releases its handles and invalidates the current map.
    QVERIFY(!capture(QStringLiteral("c4"), QStringLiteral("rev4")).isEmpty());
    QCOMPARE(call(QStringLiteral("__veetbot.discard('c4')")), QStringLiteral(R"({"ok":true})"));
    QCOMPARE(call(QStringLiteral("__veetbot.state()")),
             QStringLiteral(R"({"ok":true,"current":null,"handles":0,"pending":0})"));
    QCOMPARE(call(QStringLiteral("__veetbot.lookup('rev3.0')")), QStringLiteral(R"({"ok":false})"));
    QCOMPARE(call(QStringLiteral("__veetbot.commit('c4')")), QStringLiteral(R"({"ok":false})"));

    // Pending captures are bounded.
    for (int i = 0; i < 12; ++i)
        QVERIFY(!capture(QStringLiteral("p%1").arg(i), QStringLiteral("pr%1").arg(i)).isEmpty());
    QCOMPARE(
        callObject(QStringLiteral("__veetbot.state()")).value(QStringLiteral("pending")).toInt(),
        8);
    QCOMPARE(call(QStringLiteral("__veetbot.commit('p0')")), QStringLiteral(R"({"ok":false})"));
    QCOMPARE(call(QStringLiteral("__veetbot.commit('p11')")), QStringLiteral(R"({"ok":true})"));

    // Installing again is a no-op: the state survives.
    run(Collector::source(), kCollectorWorld);
    QCOMPARE(call(QStringLiteral("__veetbot.state()")),
             QStringLiteral(R"({"ok":true,"current":"p11","handles":1,"pending":0})"));
}

void tst_Collector::stateIsDroppedOnNavigation()
{
    QVERIFY(load(html("<!doctype html><body><button>A</button></body>")));
    QVERIFY(!capture(QStringLiteral("n1"), QStringLiteral("nr1")).isEmpty());
    QCOMPARE(call(QStringLiteral("__veetbot.commit('n1')")), QStringLiteral(R"({"ok":true})"));
    QVERIFY(!capture(QStringLiteral("n2"), QStringLiteral("nr2")).isEmpty());
    QCOMPARE(call(QStringLiteral("__veetbot.state()")),
             QStringLiteral(R"({"ok":true,"current":"n1","handles":1,"pending":1})"));

    QVERIFY(load(html("<!doctype html><body><button>B</button></body>")));
    QCOMPARE(call(QStringLiteral("__veetbot.state()")),
             QStringLiteral(R"({"ok":true,"current":null,"handles":0,"pending":0})"));
    QCOMPARE(call(QStringLiteral("__veetbot.lookup('nr1.0')")), QStringLiteral(R"({"ok":false})"));
}

void tst_Collector::failuresCarryNoPageText()
{
    QVERIFY(load(html("<!doctype html><title>CANARY_FAIL_TITLE</title><p>CANARY_FAIL_TEXT</p>")));
    QCOMPARE(call(QStringLiteral("__veetbot.capture(null)")), kFailed);
    QCOMPARE(call(QStringLiteral("__veetbot.capture({captureId: 'x'})")), kFailed);
    QCOMPARE(call(QStringLiteral("__veetbot.capture({captureId: '', refPrefix: 'r'})")), kFailed);
    QCOMPARE(
        call(QStringLiteral("__veetbot.capture({captureId: 'x', refPrefix: 'r'.repeat(200)})")),
        kFailed);
    // A getter that throws inside the collector's own world is still contained.
    QCOMPARE(call(QStringLiteral(
                 "__veetbot.capture({get captureId() { throw new Error('CANARY_X'); }})")),
             kFailed);
    QCOMPARE(call(QStringLiteral(
                 "__veetbot.settleProbe({get pending() { throw new Error('CANARY_Y'); }})")),
             kFailed);
    QCOMPARE(call(QStringLiteral("__veetbot.state()")),
             QStringLiteral(R"({"ok":true,"current":null,"handles":0,"pending":0})"));
}

void tst_Collector::settleProbeReportsQuietAndReadyState()
{
    QVERIFY(load(html("<!doctype html><body><p id=p>settle</p></body>")));
    QJsonObject probe = callObject(QStringLiteral("__veetbot.settleProbe({pending: []})"));
    QVERIFY(probe.value(QStringLiteral("ok")).toBool());
    QCOMPARE(probe.value(QStringLiteral("readyState")).toString(), QStringLiteral("complete"));
    QCOMPARE(probe.value(QStringLiteral("completed")).toArray().size(), 0);
    const int first = probe.value(QStringLiteral("quietMs")).toInt();
    QVERIFY(first >= 0);

    QTest::qWait(400); // a sleep by design: quietMs must grow with the time that passes
    probe = callObject(QStringLiteral("__veetbot.settleProbe({pending: []})"));
    const int second = probe.value(QStringLiteral("quietMs")).toInt();
    QVERIFY2(second >= first + 350, qPrintable(QStringLiteral("%1 -> %2").arg(first).arg(second)));

    run(QStringLiteral("document.getElementById('p').setAttribute('data-x', '1'); 1"),
        QWebEngineScript::MainWorld);
    probe = callObject(QStringLiteral("__veetbot.settleProbe({})"));
    QVERIFY(probe.value(QStringLiteral("ok")).toBool());
    QVERIFY(probe.value(QStringLiteral("quietMs")).toInt() < second);
    QVERIFY(probe.value(QStringLiteral("quietMs")).toInt() < 300);
}

void tst_Collector::settleProbeCountsResourceEntries()
{
    GifServer server;
    QVERIFY(server.listen());
    const QString base = server.base();
    const QString gif = base + QStringLiteral("a.gif");
    QVERIFY(load(html("<!doctype html><body><img src=\"/a.gif\"></body>"), QUrl(base)));
    const QString probeJs = QStringLiteral("__veetbot.settleProbe({pending: ['%1', '%1', '%2']})")
                                .arg(gif, base + QStringLiteral("never.gif"));
    // The image finished before loadFinished; its entry may reach the observer a little later.
    const QJsonArray firstOnly{0};
    QTRY_COMPARE_WITH_TIMEOUT(callObject(probeJs).value(QStringLiteral("completed")).toArray(),
                              firstOnly, 10000);
    // A second request of the same URL completes the second pending occurrence (an entry is
    // recorded only once the response body has been read).
    run(QStringLiteral("fetch('/a.gif', {cache: 'no-store'}).then(r => r.arrayBuffer()); 1"),
        QWebEngineScript::MainWorld);
    const QJsonArray both{0, 1};
    QTRY_COMPARE_WITH_TIMEOUT(callObject(probeJs).value(QStringLiteral("completed")).toArray(),
                              both, 10000);
    QVERIFY(server.requests() >= 2);
    QCOMPARE(callObject(probeJs).value(QStringLiteral("readyState")).toString(),
             QStringLiteral("complete"));
}

int main(int argc, char **argv)
{
    // Chromium's sandbox is disabled only when running as root, and the flags are fixed.
    veetbot::BrowserEnvironment::configureProcess();
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    tst_Collector test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_collector.moc"
