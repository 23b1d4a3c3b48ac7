// Reading never asks, writing never without approval, end to end: `veetbot mcp --profile ID
// --trust-turns owner` through the real profile service and its Chromium against the editorial
// site (tests/fixtures/EditorialSite: an administration area with list filters, search,
// pagination, nonce links, Screen Options and an inline editor; a classic edit form with
// beforeunload; a block editor that autosaves over REST; a wiki with GET search suggestions; a
// blog; a notices page with GET links that write). Every write is counted at the fixture
// server, and every "nothing arrived" is closed by a positive control.
//  - Under --approver deny: every reading control and reading navigation runs without a card;
//    every writing control and writing navigation is refused with nothing written.
//  - Under --approver elicitation: each writing control and writing navigation asks exactly
//    once and writes exactly once.
//  - An approved typing act is not an approved save: the editor's autosave after it never
//    arrives, its control then asks with a card that says the site saves on its own; an
//    approved "Save draft" saves once.
//  - From an edit form with unsaved input the agent reaches another page in two calls, the
//    second discarding the input, with nothing sent.

#include "EditorialSite.h"
#include "EventWait.h"
#include "McpSession.h"
#include "ServiceTestCase.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace veetbot;
using fixtures::EditorialSite;
using veetbot::testing::McpSession;

namespace {

QString codeOf(const QJsonObject &result)
{
    return result.value(QStringLiteral("error"))
        .toObject()
        .value(QStringLiteral("code"))
        .toString();
}

// The ref of the element with `role` and `name` in an observation's projection.
QString refIn(const QJsonObject &page, const QString &role, const QString &name)
{
    for (const QJsonValue &value : page.value(QStringLiteral("elements")).toArray()) {
        const QJsonObject element = value.toObject();
        if (element.value(QStringLiteral("role")).toString() == role &&
            element.value(QStringLiteral("name")).toString() == name)
            return element.value(QStringLiteral("ref")).toString();
    }
    return QString();
}

} // namespace

class TestAuthorityEditorial : public testing::ServiceTestCase
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void underDeny();
    void underElicitation();
    void anApprovedTypingIsNotAnApprovedSave();
    void unsavedInputIsLeftInTwoCalls();
    void anOutsideForwardingAddressIsWarnedOf();

private:
    QProcess *serve(const QString &approver, const QStringList &more = {});
    // The page's observation (veetbot_navigate), or {"error":...}.
    QJsonObject open(McpSession &mcp, const QString &pathAndQuery);
    // Uses `control` on its page: its error code, or empty.
    QString use(McpSession &mcp, const EditorialSite::Control &control);
    // A reading page that must arrive after everything before it.
    void positiveControl(McpSession &mcp);
    void quit(QProcess *server);

    std::unique_ptr<EditorialSite> m_site;
};

void TestAuthorityEditorial::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    m_site = std::make_unique<EditorialSite>(m_harness.server());
}

void TestAuthorityEditorial::init()
{
    QVERIFY(setUpService());
}

void TestAuthorityEditorial::cleanup()
{
    QVERIFY(tearDownService());
}

QProcess *TestAuthorityEditorial::serve(const QString &approver, const QStringList &more)
{
    const QString id = createProfile();
    if (id.isEmpty())
        return nullptr;
    QProcess *server = start(QStringList{QStringLiteral("mcp"), QStringLiteral("--profile"), id,
                                         QStringLiteral("--trust-turns"), QStringLiteral("owner"),
                                         QStringLiteral("--approver"), approver} +
                             more);
    return server->waitForStarted(10000) ? server : nullptr;
}

QJsonObject TestAuthorityEditorial::open(McpSession &mcp, const QString &pathAndQuery)
{
    const QJsonObject result =
        mcp.tool(QStringLiteral("veetbot_navigate"), {{QStringLiteral("url"), url(pathAndQuery)}});
    if (result.contains(QStringLiteral("error")))
        return result;
    return result.value(QStringLiteral("observation")).toObject();
}

QString TestAuthorityEditorial::use(McpSession &mcp, const EditorialSite::Control &control)
{
    QJsonObject page = open(mcp, control.page);
    if (page.contains(QStringLiteral("error")))
        return QStringLiteral("(navigate: ") + codeOf(page) + u')';
    if (!control.openFirst.isEmpty()) {
        const QString opened = mcp.click(page, control.openFirst);
        if (!opened.isEmpty())
            return QStringLiteral("(open: ") + opened + u')';
        page = mcp.observe();
    }
    const QString ref = refIn(page, control.role, control.name);
    if (ref.isEmpty())
        return QStringLiteral("(no such element)");
    QJsonObject arguments{
        {QStringLiteral("expected_revision"), page.value(QStringLiteral("revision"))},
        {QStringLiteral("ref"), ref}};
    if (!control.text.isEmpty()) {
        arguments.insert(QStringLiteral("kind"), QStringLiteral("type"));
        arguments.insert(QStringLiteral("text"), control.text);
    } else if (control.kind == QLatin1String("uncheck")) {
        arguments.insert(QStringLiteral("kind"), QStringLiteral("check"));
        arguments.insert(QStringLiteral("checked"), false);
    } else {
        arguments.insert(QStringLiteral("kind"), QStringLiteral("click"));
    }
    return codeOf(mcp.tool(QStringLiteral("veetbot_act"), arguments));
}

void TestAuthorityEditorial::positiveControl(McpSession &mcp)
{
    const int before = m_harness.server().count(QStringLiteral("shop.test"),
                                                QStringLiteral("/wp-admin/index.php"));
    const QJsonObject page = open(mcp, QStringLiteral("/wp-admin/index.php"));
    QVERIFY2(!page.contains(QStringLiteral("error")), qPrintable(codeOf(page)));
    QVERIFY(testing::runEventsUntil(
        [&] {
            return m_harness.server().count(QStringLiteral("shop.test"),
                                            QStringLiteral("/wp-admin/index.php")) > before;
        },
        10000));
}

void TestAuthorityEditorial::quit(QProcess *server)
{
    server->closeWriteChannel();
    QVERIFY(testing::runEventsUntil([server] { return server->state() == QProcess::NotRunning; },
                                    30000));
}

void TestAuthorityEditorial::underDeny()
{
    QProcess *server = serve(QStringLiteral("deny"));
    QVERIFY(server);
    McpSession mcp(server);
    mcp.initialize(false);
    positiveControl(mcp);
    m_harness.server().resetCounters();

    // Reading needs nobody: every reading control and every reading address.
    int reads = 0;
    for (const EditorialSite::Control &control : EditorialSite::readingControls()) {
        const QString code = use(mcp, control);
        QVERIFY2(code.isEmpty(), qPrintable(control.page + u' ' + control.name + u' ' + code));
        ++reads;
    }
    for (const QString &address : EditorialSite::readingAddresses()) {
        const QJsonObject page = open(mcp, address);
        QVERIFY2(!page.contains(QStringLiteral("error")),
                 qPrintable(address + u' ' + codeOf(page)));
        ++reads;
    }
    qInfo("reading controls and addresses without a card: %d", reads);
    QVERIFY(reads >= 20);

    // Writing is refused, by what the control or address names before anything is sent
    // (tool.approval_denied) or at the request stage (tool.browser.write_requires_approval,
    // after which the control asks, and is refused).
    int refused = 0;
    for (const EditorialSite::Control &control : EditorialSite::writingControls()) {
        QString code = use(mcp, control);
        qInfo("%s %s: %s", qPrintable(control.page), qPrintable(control.name), qPrintable(code));
        if (code == QLatin1String("tool.browser.write_requires_approval")) {
            QCOMPARE(EditorialSite::writesOf(m_harness.server(), control), 0);
            code = use(mcp, control);
        }
        QVERIFY2(code == QLatin1String("tool.approval_denied"),
                 qPrintable(control.page + u' ' + control.name + u' ' + code));
        ++refused;
    }
    for (const QString &address : EditorialSite::writingAddresses()) {
        const QJsonObject page = open(mcp, address);
        QVERIFY2(codeOf(page) == QLatin1String("tool.approval_denied"),
                 qPrintable(address + u' ' + codeOf(page)));
        ++refused;
    }
    qInfo("writing controls and addresses refused: %d", refused);
    QVERIFY(refused >= 20);
    positiveControl(mcp);
    QCOMPARE(EditorialSite::writes(m_harness.server()), 0);
    QCOMPARE(mcp.elicitations(), 0);
    quit(server);
}

void TestAuthorityEditorial::underElicitation()
{
    QProcess *server = serve(QStringLiteral("elicitation"));
    QVERIFY(server);
    McpSession mcp(server);
    mcp.approveEveryQuestion();
    mcp.initialize(true);
    positiveControl(mcp);
    m_harness.server().resetCounters();

    // Reading still asks nothing.
    for (const EditorialSite::Control &control : EditorialSite::readingControls().mid(0, 4))
        QCOMPARE(use(mcp, control), QString());
    QCOMPARE(mcp.elicitations(), 0);

    // Each writing control and address asks once and writes once.
    int cards = 0;
    for (const EditorialSite::Control &control : EditorialSite::writingControls()) {
        QString code = use(mcp, control);
        const bool guarded = code == QLatin1String("tool.browser.write_requires_approval");
        if (guarded) {
            QCOMPARE(EditorialSite::writesOf(m_harness.server(), control), 0);
            code = use(mcp, control);
        }
        QVERIFY2(code.isEmpty(), qPrintable(control.page + u' ' + control.name + u' ' + code));
        ++cards;
        QCOMPARE(mcp.elicitations(), cards);
        if (guarded) {
            // The card leads with what the request stage saw when the control was tried.
            const QString message =
                mcp.lastElicitation().value(QStringLiteral("message")).toString();
            QVERIFY2(message.contains(QLatin1String("This control sent a request that looks")),
                     qPrintable(message));
            if (control.writePath == QLatin1String("/api/delete"))
                QVERIFY2(message.contains(QLatin1String("looks destructive (POST .../delete)")) &&
                             message.contains(QLatin1String("warning: this reads as destructive")),
                         qPrintable(message));
        }
        QVERIFY2(
            testing::runEventsUntil(
                [&] { return EditorialSite::writesOf(m_harness.server(), control) >= 1; }, 10000),
            qPrintable(control.name));
    }
    const int controlWrites = EditorialSite::writes(m_harness.server());
    for (const QString &address : EditorialSite::writingAddresses()) {
        const QJsonObject page = open(mcp, address);
        QVERIFY2(!page.contains(QStringLiteral("error")),
                 qPrintable(address + u' ' + codeOf(page)));
        ++cards;
        QCOMPARE(mcp.elicitations(), cards);
        // The card named the address's host and operation, never its token.
        const QString message = mcp.lastElicitation().value(QStringLiteral("message")).toString();
        QVERIFY2(message.contains(QLatin1String("Open an address that changes the site")),
                 qPrintable(message));
        QVERIFY2(!message.contains(QLatin1String("c1d2e3f4a5")) &&
                     !message.contains(QLatin1String("8e2a1c0d")),
                 qPrintable(message));
    }
    positiveControl(mcp);
    for (const EditorialSite::Control &control : EditorialSite::writingControls())
        QVERIFY2(EditorialSite::writesOf(m_harness.server(), control) == 1,
                 qPrintable(control.name));
    QCOMPARE(EditorialSite::writes(m_harness.server()),
             controlWrites + int(EditorialSite::writingAddresses().size()));
    quit(server);
}

void TestAuthorityEditorial::anApprovedTypingIsNotAnApprovedSave()
{
    // Every act asks (ordinary interaction off), and the owner approves each.
    QProcess *server = serve(QStringLiteral("elicitation"),
                             {QStringLiteral("--ordinary-interaction"), QStringLiteral("off")});
    QVERIFY(server);
    McpSession mcp(server);
    mcp.approveEveryQuestion();
    mcp.initialize(true);
    const QString autosave = QString::fromLatin1(EditorialSite::kAutosavePath);
    const auto postsTo = [this](const QString &path) {
        int n = 0;
        for (const auto &request : m_harness.server().requests())
            n += request.method == QLatin1String("POST") && request.path == path ? 1 : 0;
        return n;
    };
    const EditorialSite::Control title{QString::fromLatin1(EditorialSite::kBlockEditor),
                                       QStringLiteral("textbox"), QStringLiteral("Add title"),
                                       QStringLiteral(" and rolls")};
    QCOMPARE(use(mcp, title), QString());
    QCOMPARE(mcp.elicitations(), 1);
    QVERIFY(testing::runEventsUntil(
        [&] {
            return m_harness.server().count(QStringLiteral("shop.test"),
                                            QString::fromLatin1(EditorialSite::kAutosaveFired)) ==
                   1;
        },
        15000));
    positiveControl(mcp);
    QCOMPARE(postsTo(autosave), 0);

    // The same control asks again, and its card says the site saves on its own.
    const QJsonObject page =
        mcp.tool(QStringLiteral("veetbot_navigate"), {{QStringLiteral("url"), url(title.page)}});
    Q_UNUSED(page);
    QCOMPARE(use(mcp, title), QString());
    QCOMPARE(mcp.elicitations(), 2);
    QVERIFY2(mcp.lastElicitation()
                 .value(QStringLiteral("message"))
                 .toString()
                 .contains(QLatin1String("tried to save on its own")),
             qPrintable(mcp.lastElicitation().value(QStringLiteral("message")).toString()));

    // An approved save saves, once.
    const QJsonObject editor = mcp.observe();
    QCOMPARE(mcp.click(editor, QStringLiteral("Save draft")), QString());
    QCOMPARE(mcp.elicitations(), 3);
    QVERIFY(testing::runEventsUntil(
        [&] { return postsTo(QString::fromLatin1(EditorialSite::kSavePath)) == 1; }, 10000));
    positiveControl(mcp);
    QCOMPARE(postsTo(QString::fromLatin1(EditorialSite::kSavePath)), 1);
    quit(server);
}

void TestAuthorityEditorial::unsavedInputIsLeftInTwoCalls()
{
    QProcess *server = serve(QStringLiteral("deny"));
    QVERIFY(server);
    McpSession mcp(server);
    mcp.initialize(false);
    const EditorialSite::Control title{QString::fromLatin1(EditorialSite::kClassicEditor),
                                       QStringLiteral("textbox"), QStringLiteral("Add title"),
                                       QStringLiteral(" again")};
    QCOMPARE(use(mcp, title), QString());
    m_harness.server().resetCounters();
    // The first call is cancelled by the page and says how to leave; the second leaves.
    const QJsonObject cancelled =
        mcp.tool(QStringLiteral("veetbot_navigate"),
                 {{QStringLiteral("url"), url(QStringLiteral("/wp-admin/edit.php"))}});
    QCOMPARE(codeOf(cancelled), QStringLiteral("tool.browser.navigation_cancelled"));
    QVERIFY(cancelled.value(QStringLiteral("error"))
                .toObject()
                .value(QStringLiteral("message"))
                .toString()
                .contains(QLatin1String("discard_unsaved")));
    const QJsonObject left =
        mcp.tool(QStringLiteral("veetbot_navigate"),
                 {{QStringLiteral("url"), url(QStringLiteral("/wp-admin/edit.php"))},
                  {QStringLiteral("discard_unsaved"), true}});
    QVERIFY2(!left.contains(QStringLiteral("error")), qPrintable(codeOf(left)));
    positiveControl(mcp);
    QCOMPARE(EditorialSite::writes(m_harness.server()), 0);
    QCOMPARE(mcp.elicitations(), 0);
    quit(server);
}

// Typing an address into the forwarding field asks (an address is never routine typing); the
// card warns that it sends to an outside address when its domain is not the site's.
void TestAuthorityEditorial::anOutsideForwardingAddressIsWarnedOf()
{
    QProcess *server = serve(QStringLiteral("elicitation"));
    QVERIFY(server);
    McpSession mcp(server);
    mcp.approveEveryQuestion();
    mcp.initialize(true);
    EditorialSite::Control forward{QStringLiteral("/mail/settings"), QStringLiteral("textbox"),
                                   QStringLiteral("Forward a copy to"),
                                   QStringLiteral("thief@evil-mail.net")};
    QCOMPARE(use(mcp, forward), QString());
    QCOMPARE(mcp.elicitations(), 1);
    const auto message = [&mcp] {
        return mcp.lastElicitation().value(QStringLiteral("message")).toString();
    };
    QVERIFY2(message().contains(QLatin1String("sends to an outside address")),
             qPrintable(message()));
    forward.text = QStringLiteral("me@shop.test");
    QCOMPARE(use(mcp, forward), QString());
    QCOMPARE(mcp.elicitations(), 2);
    QVERIFY2(!message().contains(QLatin1String("sends to an outside address")),
             qPrintable(message()));
    quit(server);
}

QTEST_MAIN(TestAuthorityEditorial)
#include "tst_authority_editorial.moc"
