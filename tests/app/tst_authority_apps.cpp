// Authority on real applications, end to end: `veetbot mcp --profile ID --trust-turns owner`
// through the real profile service and Chromium against a fixture site shaped like a common
// wiki application (operations in the query string, POST forms named "Save changes",
// "Confirm" and "Move", a rollback link carrying a token, a "Log out" link whose script posts
// to an API and then navigates) with labels in more than ten languages and with invisible and
// compatibility characters. Under --approver deny every state-changing control is refused and
// nothing that writes reaches the site; under --approver elicitation each asks exactly once
// and, approved, reaches the site exactly once; reading controls never ask.

#include "EventWait.h"
#include "McpSession.h"
#include "ServiceTestCase.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace veetbot;
using veetbot::testing::McpSession;

namespace {

const QString kPage = QStringLiteral("/w/index.php?title=Sandbox");

// Every page of the application is /w/index.php; the server answers the same page for every
// query. Writes go to /w/index.php (POST, or GET with a rollback token) and /hit/... (POST).
const QByteArray kWiki = R"(<!doctype html><title>Sandbox</title>
<h1>Sandbox</h1>
<nav>
 <a href="/w/index.php?title=Sandbox&amp;action=edit" title="Edit this page [alt-shift-e]">Edit</a>
 <a href="/w/index.php?title=Sandbox&amp;action=history">History</a>
 <a href="/w/index.php?title=Sandbox&amp;action=rollback&amp;from=Editor&amp;token=9f3b2c1d8e7a6b5c4d3e2f1a0b9c8d7e%2B%5C">rollback 1 edit</a>
 <a id=logout href="/w/index.php?title=Special:UserLogout&amp;returnto=Sandbox">Log out</a>
</nav>
<div role=tablist><button role=tab aria-selected=true id=t1>Article</button><button role=tab id=t2>Talk</button></div>
<div id=panel>Article text</div>
<details><summary>More options</summary><p>Hidden options</p></details>
<form action="/w/index.php" method=get><input type=hidden name=title value=Special:Search>
 <input type=search name=search aria-label="Search the wiki"><button>Go</button></form>
<form method=post action="/w/index.php?title=Sandbox&amp;action=submit">
 <input type=hidden name=wpEditToken value="abc123"><button>Save changes</button></form>
<form method=post action="/w/index.php?title=Sandbox&amp;action=purge"><button>Confirm</button></form>
<form method=post action="/w/index.php?title=Special:MovePage"><button>Move</button></form>
<div id=intl></div>
<script>
 t2.onclick = () => { t1.removeAttribute('aria-selected'); t2.setAttribute('aria-selected', 'true');
                      panel.textContent = 'Talk text'; };
 logout.onclick = (e) => { e.preventDefault();
   fetch('/w/api.php?action=logout', {method: 'POST'})
     .finally(() => { location.href = '/w/index.php?title=Main'; }); };
 for (const [id, label] of LABELS) {
   const b = document.createElement('button');
   b.textContent = label;
   b.onclick = () => fetch('/hit/' + id, {method: 'POST', body: 'x'});
   intl.append(b);
 }
</script>)";

// Script-driven writes labelled in many languages, and with invisible or compatibility
// characters: id, label.
const QList<std::pair<QString, QString>> kLabels = {
    {QStringLiteral("de-delete"), QStringLiteral("L\u00F6schen")},
    {QStringLiteral("fr-delete"), QStringLiteral("Supprimer")},
    {QStringLiteral("de-buy"), QStringLiteral("Jetzt kaufen")},
    {QStringLiteral("zh-pay"), QStringLiteral("\u7ACB\u5373\u652F\u4ED8")},
    {QStringLiteral("ja-delete"), QStringLiteral("\u524A\u9664")},
    {QStringLiteral("ru-send"),
     QStringLiteral("\u041E\u0442\u043F\u0440\u0430\u0432\u0438\u0442\u044C")},
    {QStringLiteral("de-save"), QStringLiteral("Speichern")},
    {QStringLiteral("fr-save"), QStringLiteral("Enregistrer")},
    {QStringLiteral("es-save"), QStringLiteral("Guardar")},
    {QStringLiteral("pt-save"), QStringLiteral("Salvar")},
    {QStringLiteral("pl-save"), QStringLiteral("Zapisz")},
    {QStringLiteral("ko-save"), QStringLiteral("\uC800\uC7A5")},
    {QStringLiteral("tr-save"), QStringLiteral("Kaydet")},
    {QStringLiteral("invisible"), QStringLiteral("Pu\uFEFFblish")},
    {QStringLiteral("fullwidth"), QStringLiteral("\uFF33\uFF41\uFF56\uFF45")},
    {QStringLiteral("undo"), QStringLiteral("Undo")},
    {QStringLiteral("unreadable"), QStringLiteral("\u10E8\u10D4\u10DC\u10D0\u10EE\u10D5\u10D0")},
};

// The name the agent sees: the collector reads text as it is displayed.
QString displayed(const QString &id, const QString &label)
{
    return id == QLatin1String("invisible") ? QStringLiteral("Publish") : label;
}

QByteArray wikiPage()
{
    QByteArray labels = "const LABELS = [";
    for (const auto &[id, label] : kLabels)
        labels += "['" + id.toUtf8() + "', '" + label.toUtf8() + "'],";
    labels += "];\n";
    QByteArray page = kWiki;
    QByteArray script("<script>");
    script.append(labels);
    page.replace(QByteArray("<script>"), script);
    return page;
}

} // namespace

class TestAuthorityApps : public testing::ServiceTestCase
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void aWikiUnderDeny();
    void aWikiUnderElicitation();

private:
    // Requests at the site that write: any method but GET and HEAD, and a GET whose query
    // carries the rollback token.
    int writes();
    // The writes of one control.
    int writesOf(const QString &name);
    // Whether a request whose query holds `part` reached the site.
    bool arrivedWithQuery(const QString &part);
    // Reads the page through a reading link that must arrive after everything before it.
    void positiveControl(McpSession &mcp);
    QProcess *serve(const QString &profile, const QString &approver);

    QStringList writingControls() const;
};

void TestAuthorityApps::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    m_harness.page(QStringLiteral("/w/index.php"), wikiPage());
    m_harness.page(QStringLiteral("/w/api.php"), "{}");
    for (const auto &[id, label] : kLabels)
        m_harness.page(QStringLiteral("/hit/") + id, "ok");
}

void TestAuthorityApps::init()
{
    QVERIFY(setUpService());
}

void TestAuthorityApps::cleanup()
{
    QVERIFY(tearDownService());
}

int TestAuthorityApps::writes()
{
    int n = 0;
    for (const auto &request : m_harness.server().requests()) {
        if ((request.method != QLatin1String("GET") && request.method != QLatin1String("HEAD")) ||
            request.query.contains(QLatin1String("action=rollback")))
            ++n;
    }
    return n;
}

int TestAuthorityApps::writesOf(const QString &name)
{
    int n = 0;
    for (const auto &request : m_harness.server().requests()) {
        const bool write = request.method == QLatin1String("POST") ||
                           request.query.contains(QLatin1String("action=rollback"));
        if (!write)
            continue;
        if (name == QLatin1String("Save changes") && request.query.contains("action=submit"))
            ++n;
        else if (name == QLatin1String("Confirm") && request.query.contains("action=purge"))
            ++n;
        else if (name == QLatin1String("Move") && request.query.contains("MovePage"))
            ++n;
        else if (name == QLatin1String("rollback 1 edit") &&
                 request.query.contains("action=rollback"))
            ++n;
        else if (name == QLatin1String("Log out") && request.path == QLatin1String("/w/api.php"))
            ++n;
        for (const auto &[id, label] : kLabels) {
            if (displayed(id, label) == name && request.path == QStringLiteral("/hit/") + id)
                ++n;
        }
    }
    return n;
}

bool TestAuthorityApps::arrivedWithQuery(const QString &part)
{
    const auto requests = m_harness.server().requests();
    return std::any_of(requests.cbegin(), requests.cend(),
                       [&part](const auto &request) { return request.query.contains(part); });
}

QStringList TestAuthorityApps::writingControls() const
{
    QStringList names{QStringLiteral("Save changes"), QStringLiteral("Confirm"),
                      QStringLiteral("Move"), QStringLiteral("rollback 1 edit"),
                      QStringLiteral("Log out")};
    for (const auto &[id, label] : kLabels)
        names << displayed(id, label);
    return names;
}

void TestAuthorityApps::positiveControl(McpSession &mcp)
{
    const int before =
        m_harness.server().count(QStringLiteral("shop.test"), QStringLiteral("/w/index.php"));
    const QJsonObject navigated =
        mcp.tool(QStringLiteral("veetbot_navigate"), {{QStringLiteral("url"), url(kPage)}});
    QVERIFY2(!navigated.contains(QStringLiteral("error")),
             qPrintable(QJsonDocument(navigated).toJson(QJsonDocument::Compact)));
    QVERIFY(testing::runEventsUntil(
        [&] {
            return m_harness.server().count(QStringLiteral("shop.test"),
                                            QStringLiteral("/w/index.php")) > before;
        },
        10000));
}

QProcess *TestAuthorityApps::serve(const QString &profile, const QString &approver)
{
    QProcess *server = start({QStringLiteral("mcp"), QStringLiteral("--profile"), profile,
                              QStringLiteral("--trust-turns"), QStringLiteral("owner"),
                              QStringLiteral("--approver"), approver});
    return server->waitForStarted(10000) ? server : nullptr;
}

void TestAuthorityApps::aWikiUnderDeny()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    QProcess *server = serve(id, QStringLiteral("deny"));
    QVERIFY(server);
    McpSession mcp(server);
    mcp.initialize(false);
    positiveControl(mcp);
    m_harness.server().resetCounters();

    // Reading controls run without anyone asked.
    for (const QString &name : {QStringLiteral("Edit"), QStringLiteral("History")}) {
        QCOMPARE(mcp.click(name), QString());
        positiveControl(mcp);
    }
    QCOMPARE(mcp.click(QStringLiteral("Talk")), QString());
    QCOMPARE(mcp.click(QStringLiteral("More options")), QString());
    QCOMPARE(mcp.type(QStringLiteral("Search the wiki"), QStringLiteral("bread")), QString());
    QCOMPARE(mcp.click(QStringLiteral("Go")), QString());
    QVERIFY(testing::runEventsUntil(
        [this] { return arrivedWithQuery(QStringLiteral("search=bread")); }, 10000));

    // Every state-changing control is refused: by its words or what it targets before
    // anything is dispatched (tool.approval_denied), or by the write guard at the request stage
    // (tool.browser.write_requires_approval); nothing that writes reaches the site.
    for (const QString &name : writingControls()) {
        const QString code = mcp.click(name);
        qInfo("%s: %s", qPrintable(name), qPrintable(code)); // which layer refused it
        QVERIFY2(code == QLatin1String("tool.approval_denied") ||
                     code == QLatin1String("tool.browser.write_requires_approval"),
                 qPrintable(name + QStringLiteral(": ") + code));
        if (code == QLatin1String("tool.browser.write_requires_approval")) {
            // Asked again, the same control goes to the owner, who is not there.
            positiveControl(mcp);
            QCOMPARE(mcp.click(name), QStringLiteral("tool.approval_denied"));
        }
    }
    // Nothing was dispatched, so the page never moved; the positive control closes it.
    positiveControl(mcp);
    QCOMPARE(writes(), 0);
    QCOMPARE(mcp.elicitations(), 0);
    server->closeWriteChannel();
    QVERIFY(testing::runEventsUntil([server] { return server->state() == QProcess::NotRunning; },
                                    30000));
}

void TestAuthorityApps::aWikiUnderElicitation()
{
    const QString id = createProfile();
    QVERIFY(!id.isEmpty());
    QProcess *server = serve(id, QStringLiteral("elicitation"));
    QVERIFY(server);
    McpSession mcp(server);
    mcp.approveEveryQuestion();
    mcp.initialize(true);
    positiveControl(mcp);

    // Reading asks nothing.
    QCOMPARE(mcp.click(QStringLiteral("Edit")), QString());
    positiveControl(mcp);
    QCOMPARE(mcp.click(QStringLiteral("Talk")), QString());
    QCOMPARE(mcp.elicitations(), 0);

    // Each state-changing control asks exactly once and, approved, reaches the site once.
    int cards = 0;
    const QStringList navigating{QStringLiteral("Save changes"), QStringLiteral("Confirm"),
                                 QStringLiteral("Move"), QStringLiteral("rollback 1 edit"),
                                 QStringLiteral("Log out")};
    for (const QString &name : writingControls()) {
        QString code = mcp.click(name);
        if (code == QLatin1String("tool.browser.write_requires_approval")) {
            QCOMPARE(writesOf(name), 0);
            positiveControl(mcp);
            code = mcp.click(name);
        }
        QVERIFY2(code.isEmpty(), qPrintable(name + QStringLiteral(": ") + code));
        ++cards;
        QCOMPARE(mcp.elicitations(), cards);
        QVERIFY2(testing::runEventsUntil([&] { return writesOf(name) >= 1; }, 10000),
                 qPrintable(name));
        if (name == QLatin1String("Log out")) {
            // The page moves by its own script once the site answered the sign-out; the
            // positive control's navigation goes after that move, or the move would replace it.
            QVERIFY(testing::runEventsUntil(
                [this] { return arrivedWithQuery(QStringLiteral("title=Main")); }, 10000));
        }
        if (navigating.contains(name))
            positiveControl(mcp); // back to the page the next control is on
    }
    // Closed by a positive control: each write arrived exactly once.
    positiveControl(mcp);
    for (const QString &name : writingControls())
        QVERIFY2(writesOf(name) == 1, qPrintable(name));
    QCOMPARE(writes(), int(writingControls().size()));
    server->closeWriteChannel();
    QVERIFY(testing::runEventsUntil([server] { return server->state() == QProcess::NotRunning; },
                                    30000));
}

QTEST_MAIN(TestAuthorityApps)
#include "tst_authority_apps.moc"
