// Reviewed recipes end to end (docs/recipes.md): `veetbot run` and `veetbot recipes` as real
// processes, the real profile service and its Chromium, and the demo shop (DemoShop) on this
// process's fixture server as demo.veetbot.test, the origin the shipped recipes name. Approvals
// are answered by an in-process workbench. No model is running anywhere: a recipe run that
// asked one would fail. The shop is the witness: every write is counted at the fixture server,
// and every "nothing was sent" is closed by a later run whose request must arrive.

#include "DemoShop.h"
#include "ServiceTestCase.h"
#include "approval/WorkbenchChannel.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTest>
#include <QTimer>

using namespace veetbot;
using namespace veetbot::testing;
using veetbot::fixtures::DemoShop;

namespace {
const QString kShop = QStringLiteral("demo.veetbot.test");
const QString kPreferences = QStringLiteral("/account/preferences");
const QString kOrders = QStringLiteral("Check my orders.");
const QString kShipping = QStringLiteral("Turn on shipping updates");
} // namespace

class TestRecipes : public ServiceTestCase
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void theOrdersRecipeRunsFromTheOwnersWords();
    void withoutARecipeOrAModelNothingStarts();
    void theOrderHistoryIsCollectedPageByPage();
    void theShippingEmailsRecipeAsksOnceAndWritesOnce();
    void aDriftedPageStopsWithNothingSent_data();
    void aDriftedPageStopsWithNothingSent();
    void aLostAnswerIsReadBackAndNeverSentAgain();
    void privateRecipesAreListedAndRun();

private:
    struct RunResult
    {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
        QJsonObject summary; // the last line of stderr
    };
    RunResult runTask(const QString &task, const QStringList &extra = {});
    int posts() { return ServiceTestCase::posts(kPreferences); }
    int accountReads() { return m_harness.server().count(kShop, QStringLiteral("/account")); }
    // The positive control of a "nothing was sent": the orders recipe, whose read of /account
    // must arrive after anything the run before it sent.
    void ordersRunArrives();
    QString recipeDirectory() const
    {
        return m_dir->path() + QStringLiteral("/config/veetbot/recipes");
    }

    std::unique_ptr<DemoShop> m_shop;
    QString m_profile;
    ApprovalBroker m_workbench;
    int m_cards = 0;
    QStringList m_asked; // each card's control, as the card names it
    bool m_deny = false;
};

void TestRecipes::initTestCase()
{
    QString error;
    QVERIFY2(m_harness.start(&error), qPrintable(error));
    m_shop = std::make_unique<DemoShop>(m_harness.server());
    QVERIFY(setUpService());
    m_extraEnvironment.insert(QStringLiteral("XDG_DATA_HOME"),
                              m_dir->path() + QStringLiteral("/xdg"));
    m_extraEnvironment.insert(QStringLiteral("XDG_CONFIG_HOME"),
                              m_dir->path() + QStringLiteral("/config"));
    m_profile = createProfile(false, kShop);
    QVERIFY(!m_profile.isEmpty());
    const Run signedIn =
        signInWithCookie(m_profile, QString::fromLatin1(DemoShop::kCookie), m_shop->issueSession(),
                         QStringLiteral("/account"), kShop);
    QVERIFY2(signedIn.exitCode == 0, signedIn.err.constData());
    QVERIFY(m_workbench.listen(WorkbenchChannel::socketPath(m_runDir)));
    connect(&m_workbench, &ApprovalBroker::asked, this,
            [this](const ApprovalBroker::Question &question) {
                ++m_cards;
                m_asked << question.view.value(QLatin1String("accessible_name")).toString();
                QTimer::singleShot(0, &m_workbench, [this, key = question.key] {
                    m_workbench.answer(key, m_deny ? ApprovalAnswer::Declined
                                                   : ApprovalAnswer::Approved);
                });
            });
}

void TestRecipes::cleanupTestCase()
{
    if (m_dir)
        QVERIFY(tearDownService());
}

void TestRecipes::init()
{
    m_shop->setVariant(DemoShop::Variant::Normal);
    m_shop->setShippingUpdates(false);
    m_harness.server().resetCounters();
    m_cards = 0;
    m_asked.clear();
    m_deny = false;
}

TestRecipes::RunResult TestRecipes::runTask(const QString &task, const QStringList &extra)
{
    const Run ran = run(QStringLiteral("veetbot"),
                        QStringList{QStringLiteral("run"), QStringLiteral("--profile"), m_profile,
                                    QStringLiteral("--task"), task} +
                            extra);
    return RunResult{ran.exitCode, ran.out, ran.err, runSummaryOf(ran.err)};
}

void TestRecipes::ordersRunArrives()
{
    const int before = accountReads();
    const RunResult orders = runTask(kOrders);
    QVERIFY2(orders.exitCode == 0, orders.err.constData());
    QVERIFY(accountReads() > before);
}

void TestRecipes::theOrdersRecipeRunsFromTheOwnersWords()
{
    const RunResult result = runTask(kOrders);
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QCOMPARE(result.summary.value(QLatin1String("recipe")).toString(),
             QStringLiteral("demo-shop.orders@1"));
    QCOMPARE(result.summary.value(QLatin1String("status")).toString(), QStringLiteral("completed"));
    QCOMPARE(result.summary.value(QLatin1String("outcome")).toString(),
             QStringLiteral("read_only"));
    QCOMPARE(result.summary.value(QLatin1String("usage"))
                 .toObject()
                 .value(QLatin1String("model_calls"))
                 .toInt(-1),
             0);
    // The report: the recipe's title, then each order as its row reads.
    const QString out = QString::fromUtf8(result.out);
    QVERIFY2(out.contains(QStringLiteral("1001 | Enamel kettle | Shipped")),
             result.out.constData());
    QVERIFY2(out.contains(QStringLiteral("1002 | Linen apron | Delivered")),
             result.out.constData());
    QCOMPARE(m_cards, 0);
    QCOMPARE(posts(), 0);
    QVERIFY(accountReads() >= 1);

    // The run's record names the recipe as what drove it; the timeline holds no model call.
    const QString id = startedRunId(result.err);
    QVERIFY(!id.isEmpty());
    const Run shown =
        run(QStringLiteral("veetbot"), {QStringLiteral("runs"), QStringLiteral("show"), id});
    QVERIFY2(shown.exitCode == 0, shown.err.constData());
    QVERIFY2(!shown.out.contains("model.call"), shown.out.constData());
    QVERIFY2(shown.out.contains("browser.observe"), shown.out.constData());
}

void TestRecipes::withoutARecipeOrAModelNothingStarts()
{
    // Nothing starts, not even the profile service (a run starts it on demand).
    const Run stopped =
        run(QStringLiteral("veetbot"), {QStringLiteral("service"), QStringLiteral("stop")});
    QCOMPARE(stopped.exitCode, 0);
    const auto serviceRuns = [this] {
        const Run status =
            run(QStringLiteral("veetbot"), {QStringLiteral("service"), QStringLiteral("status")});
        return QJsonDocument::fromJson(status.out)
            .object()
            .value(QLatin1String("running"))
            .toBool();
    };
    QVERIFY(!serviceRuns());
    // Words that are no recipe's intent, and no model to carry them.
    const RunResult other = runTask(QStringLiteral("Cancel my last order."));
    QCOMPARE(other.exitCode, 2);
    QVERIFY2(other.err.contains("run.model_required"), other.err.constData());
    QVERIFY(startedRunId(other.err).isEmpty());
    // A recipe's words, with recipes turned off.
    const RunResult off = runTask(kOrders, {QStringLiteral("--recipes"), QStringLiteral("off")});
    QCOMPARE(off.exitCode, 2);
    QVERIFY2(off.err.contains("run.model_required"), off.err.constData());
    QCOMPARE(accountReads(), 0);
    QVERIFY(!serviceRuns());
    // The positive control: the recipe's own words start the service and reach the site.
    ordersRunArrives();
    QVERIFY(serviceRuns());
    QCOMPARE(posts(), 0);
}

void TestRecipes::theOrderHistoryIsCollectedPageByPage()
{
    const RunResult result = runTask(QStringLiteral("Show my order history"));
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QCOMPARE(result.summary.value(QLatin1String("recipe")).toString(),
             QStringLiteral("demo-shop.order-history@1"));
    // Every page once, in order, and the collection ends where the links do (three pages of
    // its five).
    QStringList pages;
    for (const auto &request : m_harness.server().requests()) {
        if (request.path == QLatin1String("/orders"))
            pages << request.query;
    }
    QCOMPARE(pages, (QStringList{QString(), QStringLiteral("page=2"), QStringLiteral("page=3")}));
    const QStringList lines = QString::fromUtf8(result.out).split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines, (QStringList{QStringLiteral("My order history"),
                                 QStringLiteral("- 1001 | Enamel kettle | Delivered"),
                                 QStringLiteral("- 1002 | Linen apron | Delivered"),
                                 QStringLiteral("- 1003 | Oak board | Delivered"),
                                 QStringLiteral("- 1004 | Tea towels | Delivered"),
                                 QStringLiteral("- 1005 | Copper whisk | Delivered"),
                                 QStringLiteral("- 1006 | Bread tin | Delivered")}));
    // Following a link is an act: each one led to another page.
    QCOMPARE(result.summary.value(QLatin1String("outcome")).toString(), QStringLiteral("verified"));
    QCOMPARE(result.summary.value(QLatin1String("usage"))
                 .toObject()
                 .value(QLatin1String("acts"))
                 .toInt(-1),
             2);
    QCOMPARE(posts(), 0);
}

void TestRecipes::theShippingEmailsRecipeAsksOnceAndWritesOnce()
{
    const RunResult result = runTask(kShipping);
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QCOMPARE(result.summary.value(QLatin1String("recipe")).toString(),
             QStringLiteral("demo-shop.shipping-emails@1"));
    QCOMPARE(result.summary.value(QLatin1String("outcome")).toString(), QStringLiteral("verified"));
    // Checking the box writes nothing (ordinary interaction, the write guard behind it, on the
    // account page too: ADR 0024); the save is a submission and asked its card, once.
    QCOMPARE(m_asked, (QStringList{QStringLiteral("\"Save preferences\"")}));
    QCOMPARE(posts(), 1);
    QCOMPARE(m_harness.server().bodies(kPreferences), QList<QByteArray>{"shipping=on"});
    QVERIFY(m_shop->shippingUpdates());

    // Again, with the box already checked: the check sends nothing, the save sends once more.
    m_harness.server().resetCounters();
    m_asked.clear();
    const RunResult again = runTask(kShipping);
    QVERIFY2(again.exitCode == 0, again.err.constData());
    QCOMPARE(again.summary.value(QLatin1String("outcome")).toString(), QStringLiteral("verified"));
    QCOMPARE(m_harness.server().bodies(kPreferences), QList<QByteArray>{"shipping=on"});
}

void TestRecipes::aDriftedPageStopsWithNothingSent_data()
{
    QTest::addColumn<int>("variant");
    QTest::addColumn<bool>("deny");
    QTest::addColumn<QString>("code");
    QTest::newRow("the button renamed") << int(DemoShop::Variant::SaveRenamed) << false
                                        << QStringLiteral("recipe.target_not_found");
    QTest::newRow("a checkbox that will not stay checked")
        << int(DemoShop::Variant::CheckboxReverts) << false
        << QStringLiteral("recipe.postcondition_unmet");
    QTest::newRow("the owner denies")
        << int(DemoShop::Variant::Normal) << true << QStringLiteral("tool.approval_denied");
}

void TestRecipes::aDriftedPageStopsWithNothingSent()
{
    QFETCH(int, variant);
    QFETCH(bool, deny);
    QFETCH(QString, code);
    m_shop->setVariant(DemoShop::Variant(variant));
    m_deny = deny;
    const RunResult result = runTask(kShipping);
    QCOMPARE(result.exitCode, 1);
    QCOMPARE(result.summary.value(QLatin1String("stop_code")).toString(), code);
    QCOMPARE(result.summary.value(QLatin1String("status")).toString(), QStringLiteral("failed"));
    QCOMPARE(posts(), 0);
    m_deny = false;
    m_shop->setVariant(DemoShop::Variant::Normal);
    ordersRunArrives();
    QCOMPARE(posts(), 0);
    QVERIFY(!m_shop->shippingUpdates());
}

void TestRecipes::aLostAnswerIsReadBackAndNeverSentAgain()
{
    m_shop->setVariant(DemoShop::Variant::SaveLost);
    const RunResult result = runTask(kShipping);
    QCOMPARE(result.exitCode, 1);
    QCOMPARE(result.summary.value(QLatin1String("stop_code")).toString(),
             QStringLiteral("recipe.outcome_unverified"));
    QCOMPARE(result.summary.value(QLatin1String("outcome")).toString(),
             QStringLiteral("outcome_unknown"));
    QCOMPARE(result.summary.value(QLatin1String("uncertain_acts")).toInt(), 1);
    m_shop->setVariant(DemoShop::Variant::Normal);
    ordersRunArrives();
    // The site stored it; the recipe never sent it again.
    QCOMPARE(m_harness.server().bodies(kPreferences), QList<QByteArray>{"shipping=on"});
    QVERIFY(m_shop->shippingUpdates());
}

void TestRecipes::privateRecipesAreListedAndRun()
{
    QVERIFY(QDir().mkpath(recipeDirectory()));
    QVERIFY(QFile::setPermissions(recipeDirectory(),
                                  QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    const auto write = [this](const QString &name, const QByteArray &text, bool privateFile) {
        QFile file(recipeDirectory() + u'/' + name);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QVERIFY(file.write(text) == text.size());
        file.close();
        QVERIFY(file.setPermissions(privateFile ? QFile::ReadOwner | QFile::WriteOwner
                                                : QFile::ReadOwner | QFile::WriteOwner |
                                                      QFile::ReadGroup | QFile::ReadOther));
    };
    const QByteArray mine = "format: 1\nid: my.order-status\nversion: 2\ntitle: My order status\n"
                            "origin: https://demo.veetbot.test\nintents: [Where are my parcels]\n"
                            "steps:\n  - navigate: /account\n  - extract:\n      kind: table\n"
                            "      columns: [{name: Order, type: integer}, {name: Item, type: "
                            "string}]\n      limit: 1\n";
    write(QStringLiteral("mine.yaml"), mine, true);
    write(QStringLiteral("shared.yaml"), QByteArray(mine).replace("my.order-status", "my.shared"),
          false);
    const Run listed =
        run(QStringLiteral("veetbot"), {QStringLiteral("recipes"), QStringLiteral("list")});
    QVERIFY2(listed.exitCode == 0, listed.err.constData());
    const QJsonObject list = QJsonDocument::fromJson(listed.out).object();
    QStringList ids;
    for (const QJsonValue &recipe : list.value(QLatin1String("recipes")).toArray())
        ids << recipe.toObject().value(QLatin1String("id")).toString();
    QCOMPARE(ids, (QStringList{QStringLiteral("demo-shop.order-history"),
                               QStringLiteral("demo-shop.orders"),
                               QStringLiteral("demo-shop.shipping-emails"),
                               QStringLiteral("my.order-status")}));
    const QJsonArray refused = list.value(QLatin1String("refused")).toArray();
    QCOMPARE(refused.size(), 1);
    QCOMPARE(refused.at(0).toObject().value(QLatin1String("file")).toString(),
             QStringLiteral("shared.yaml"));
    QCOMPARE(refused.at(0).toObject().value(QLatin1String("code")).toString(),
             QStringLiteral("recipe.file_not_private"));

    // Shown whole, and run by its id and by its words.
    const Run shown =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("recipes"), QStringLiteral("show"), QStringLiteral("my.order-status")});
    QVERIFY2(shown.exitCode == 0, shown.err.constData());
    QCOMPARE(QJsonDocument::fromJson(shown.out).object().value(QLatin1String("source")).toString(),
             QStringLiteral("private"));
    const Run byId =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("recipes"), QStringLiteral("run"), QStringLiteral("my.order-status"),
             QStringLiteral("--profile"), m_profile});
    QVERIFY2(byId.exitCode == 0, byId.err.constData());
    QCOMPARE(runSummaryOf(byId.err).value(QLatin1String("recipe")).toString(),
             QStringLiteral("my.order-status@2"));
    QVERIFY2(byId.out.contains("1001 | Enamel kettle"), byId.out.constData());
    QVERIFY2(!byId.out.contains("1002"), byId.out.constData()); // its limit is one row
    const RunResult byWords = runTask(QStringLiteral("where are my  parcels?"));
    QVERIFY2(byWords.exitCode == 0, byWords.err.constData());
    QCOMPARE(byWords.summary.value(QLatin1String("recipe")).toString(),
             QStringLiteral("my.order-status@2"));
    const Run unknown =
        run(QStringLiteral("veetbot"),
            {QStringLiteral("recipes"), QStringLiteral("show"), QStringLiteral("no.such-recipe")});
    QCOMPARE(unknown.exitCode, 3);
    QVERIFY2(unknown.out.contains("recipe.not_found") || unknown.err.contains("recipe.not_found"),
             unknown.err.constData());
    QVERIFY(QDir(recipeDirectory()).removeRecursively());
}

QTEST_MAIN(TestRecipes)
#include "tst_recipes.moc"
