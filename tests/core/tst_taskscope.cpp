#include "domain/action/ActionConsequence.h"
#include "domain/authority/TaskScope.h"
#include "domain/web/TestOverrides.h"

#include <QTest>

using namespace veetbot;

// The owner's task scopes: parsing of one entry (an exact public HTTPS origin and one
// nonsensitive path segment), containment of page URLs, the list's canonical form, and the
// pure edit rules (conflict, replay, seed).
class TaskScopeTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void accepted_data();
    void accepted();
    void refused_data();
    void refused();
    void segmentLengthBound();
    void testHostsMayUseAnyPort();
    void sensitiveSegments_data();
    void sensitiveSegments();
    void parseExistingSkipsOnlyTheVocabulary();
    void fromPartsRoundTrips();
    void fromPartsRefusesDamagedRows_data();
    void fromPartsRefusesDamagedRows();
    void contains_data();
    void contains();
    void scopeForPicksTheContainingEntry();
    void normalizeSortsAndBounds();
    void digestIsOrderIndependent();
    void replaceAdvancesRevision();
    void replaceConflictsWhenStale();
    void replaceRecognisesAnImmediateReplay();
    void replaceOfTheSameListChangesNothing();
    void replaceRefusesSensitiveStoredEntries();
    void savedEmptyListIsAChange();
    void seedAppliesOnlyToANeverSavedList();
    void errorsAreStableAndContentFree();

private:
    static TaskScope scope(const QString &text, const TestOverrides &overrides = TestOverrides());
};

TaskScope TaskScopeTest::scope(const QString &text, const TestOverrides &overrides)
{
    Result<TaskScope> parsed = TaskScope::parse(text, overrides);
    if (!parsed)
        qFatal("test scope does not parse");
    return std::move(parsed).value();
}

void TaskScopeTest::accepted_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("canonical");
    QTest::addColumn<QString>("segment");
    const auto row = [](const char *name, const QString &text, const QString &canonical,
                        const QString &segment) {
        QTest::newRow(name) << text << canonical << segment;
    };
    row("plain", "https://www.acme-school.com/lesson", "https://www.acme-school.com/lesson",
        "lesson");
    row("trailing slash", "https://www.acme-school.com/lesson/",
        "https://www.acme-school.com/lesson", "lesson");
    row("upper scheme", "HTTPS://www.acme-school.com/lesson", "https://www.acme-school.com/lesson",
        "lesson");
    row("upper host", "https://WWW.Acme-School.COM/lesson", "https://www.acme-school.com/lesson",
        "lesson");
    row("case of the segment kept", "https://www.acme-school.com/Lesson",
        "https://www.acme-school.com/Lesson", "Lesson");
    row("explicit 443", "https://www.acme-school.com:443/lesson",
        "https://www.acme-school.com/lesson", "lesson");
    row("hyphen", "https://learn.acme-learn.org/course-notes",
        "https://learn.acme-learn.org/course-notes", "course-notes");
    row("underscore and tilde", "https://acme-notes.net/a_b~c", "https://acme-notes.net/a_b~c",
        "a_b~c");
    row("inner dot", "https://acme-notes.net/v1.2", "https://acme-notes.net/v1.2", "v1.2");
    row("digits", "https://acme-notes.net/2030", "https://acme-notes.net/2030", "2030");
    row("encoded unreserved", "https://www.acme-school.com/%6Cesson",
        "https://www.acme-school.com/lesson", "lesson");
    row("non-ascii", QStringLiteral("https://www.acme-school.com/café"),
        "https://www.acme-school.com/caf%C3%A9", QStringLiteral("café"));
    row("non-ascii encoded", "https://www.acme-school.com/caf%C3%A9",
        "https://www.acme-school.com/caf%C3%A9", QStringLiteral("café"));
    row("idn host", QStringLiteral("https://bücher.de/lesen"), "https://xn--bcher-kva.de/lesen",
        "lesen");
    row("single character", "https://acme-notes.net/x", "https://acme-notes.net/x", "x");
    row("lessons is not sso", "https://acme-notes.net/lessons", "https://acme-notes.net/lessons",
        "lessons");
    row("cartography is not cart", "https://acme-notes.net/cartography",
        "https://acme-notes.net/cartography", "cartography");
}

void TaskScopeTest::accepted()
{
    QFETCH(QString, text);
    QFETCH(QString, canonical);
    QFETCH(QString, segment);
    const Result<TaskScope> parsed = TaskScope::parse(text, TestOverrides());
    QVERIFY2(parsed.ok(), qPrintable(parsed.ok() ? QString() : parsed.error().code));
    QCOMPARE(parsed->toString(), canonical);
    QCOMPARE(parsed->segment(), segment);
    // The canonical form parses back to the same entry.
    const Result<TaskScope> again = TaskScope::parse(canonical, TestOverrides());
    QVERIFY(again.ok());
    QCOMPARE(*again, *parsed);
}

void TaskScopeTest::refused_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("code");
    const QString invalid = QStringLiteral("scope.invalid");
    const QString sensitive = QStringLiteral("scope.sensitive");
    const auto row = [](const char *name, const QString &text, const QString &code) {
        QTest::newRow(name) << text << code;
    };
    row("empty", "", invalid);
    row("http", "http://www.acme-school.com/lesson", invalid);
    row("ftp", "ftp://www.acme-school.com/lesson", invalid);
    row("no scheme", "www.acme-school.com/lesson", invalid);
    row("ipv4", "https://93.184.216.34/lesson", invalid);
    row("ipv4 short", "https://127.1/lesson", invalid);
    row("ipv6", "https://[2001:db8::1]/lesson", invalid);
    row("localhost", "https://localhost/lesson", invalid);
    row("single label", "https://intranet/lesson", invalid);
    row("special-use name", "https://shop.test/lesson", invalid);
    row("reserved example name", "https://www.example.com/lesson", invalid);
    row("port", "https://www.acme-school.com:8443/lesson", invalid);
    row("empty port", "https://www.acme-school.com:/lesson", invalid);
    row("userinfo", "https://user@www.acme-school.com/lesson", invalid);
    row("user and password", "https://user:pw@www.acme-school.com/lesson", invalid);
    row("query", "https://www.acme-school.com/lesson?x=1", invalid);
    row("empty query", "https://www.acme-school.com/lesson?", invalid);
    row("fragment", "https://www.acme-school.com/lesson#top", invalid);
    row("empty fragment", "https://www.acme-school.com/lesson#", invalid);
    row("origin only", "https://www.acme-school.com", invalid);
    row("origin and slash", "https://www.acme-school.com/", invalid);
    row("two segments", "https://www.acme-school.com/lesson/one", invalid);
    row("two segments and slash", "https://www.acme-school.com/lesson/one/", invalid);
    row("empty first segment", "https://www.acme-school.com//lesson", invalid);
    row("two trailing slashes", "https://www.acme-school.com/lesson//", invalid);
    row("dot", "https://www.acme-school.com/.", invalid);
    row("dot dot", "https://www.acme-school.com/..", invalid);
    row("dots only", "https://www.acme-school.com/...", invalid);
    row("encoded dot dot", "https://www.acme-school.com/%2e%2e", invalid);
    row("dot segment before", "https://www.acme-school.com/./lesson", invalid);
    row("dot dot before", "https://www.acme-school.com/../lesson", invalid);
    row("encoded slash", "https://www.acme-school.com/lesson%2Fone", invalid);
    row("encoded slash lower", "https://www.acme-school.com/lesson%2fone", invalid);
    row("encoded slash at end", "https://www.acme-school.com/lesson%2F", invalid);
    row("encoded backslash", "https://www.acme-school.com/lesson%5Cone", invalid);
    row("backslash", "https://www.acme-school.com\\lesson", invalid);
    row("double encoded slash", "https://www.acme-school.com/lesson%252Fone", invalid);
    row("stray percent", "https://www.acme-school.com/50%", invalid);
    row("encoded nul", "https://www.acme-school.com/less%00on", invalid);
    row("space", "https://www.acme-school.com/less on", invalid);
    row("encoded space", "https://www.acme-school.com/less%20on", invalid);
    row("semicolon", "https://www.acme-school.com/lesson;jsessionid=1", invalid);
    row("colon", "https://www.acme-school.com/a:b", invalid);
    row("at sign", "https://www.acme-school.com/a@b", invalid);
    row("invalid utf-8", "https://www.acme-school.com/caf%E9", invalid);
    row("leading white space", " https://www.acme-school.com/lesson", invalid);
    row("segment of 65", QStringLiteral("https://www.acme-school.com/") + QString(65, u'a'),
        invalid);
    row("admin", "https://www.acme-school.com/admin", sensitive);
    row("upper admin", "https://www.acme-school.com/ADMIN", sensitive);
    row("login", "https://www.acme-school.com/login", sensitive);
    row("sign-in", "https://www.acme-school.com/sign-in", sensitive);
    row("signin", "https://www.acme-school.com/signin", sensitive);
    row("encoded login", "https://www.acme-school.com/%6Cogin", sensitive);
    row("checkout", "https://shop.acme-school.com/checkout", sensitive);
    row("account", "https://www.acme-school.com/account", sensitive);
    row("accounts", "https://www.acme-school.com/accounts", sensitive);
    row("my-account", "https://www.acme-school.com/my-account", sensitive);
    row("myAccount", "https://www.acme-school.com/myAccount", sensitive);
    row("settings", "https://www.acme-school.com/settings", sensitive);
    row("inbox", "https://mail.acme-school.com/inbox", sensitive);
    row("pricing", "https://www.acme-school.com/pricing", sensitive);
}

void TaskScopeTest::refused()
{
    QFETCH(QString, text);
    QFETCH(QString, code);
    const Result<TaskScope> parsed = TaskScope::parse(text, TestOverrides());
    QVERIFY2(!parsed.ok(), qPrintable(parsed.ok() ? parsed->toString() : QString()));
    QCOMPARE(parsed.error().code, code);
}

void TaskScopeTest::segmentLengthBound()
{
    const QString base = QStringLiteral("https://www.acme-school.com/");
    QVERIFY(TaskScope::parse(base + QString(64, u'a'), TestOverrides()).ok());
    QVERIFY(!TaskScope::parse(base + QString(65, u'a'), TestOverrides()).ok());
    // The bound is on the decoded segment: 64 letters that take six bytes each encoded.
    QString wide;
    for (int i = 0; i < 64; ++i)
        wide += QChar(0x00e9);
    const Result<TaskScope> encoded = TaskScope::parse(
        base + QString::fromLatin1(QUrl::toPercentEncoding(wide)), TestOverrides());
    QVERIFY(encoded.ok());
    QCOMPARE(encoded->segment(), wide);
    // Overlong text is refused before any parsing.
    QVERIFY(
        !TaskScope::parse(base + QString(TaskScope::kMaxTextLength, u'a'), TestOverrides()).ok());
}

void TaskScopeTest::testHostsMayUseAnyPort()
{
    const Result<TestOverrides> overrides =
        TestOverrides::parseResolve(QStringLiteral("shop.test=127.0.0.1"));
    QVERIFY(overrides.ok());
    const Result<TaskScope> parsed =
        TaskScope::parse(QStringLiteral("https://shop.test:8443/lesson"), *overrides);
    QVERIFY(parsed.ok());
    QCOMPARE(parsed->toString(), QStringLiteral("https://shop.test:8443/lesson"));
    // Only the named host: another host on a port stays refused, and so does the test host
    // without the overrides.
    QVERIFY(!TaskScope::parse(QStringLiteral("https://www.acme-school.com:8443/lesson"), *overrides)
                 .ok());
    QVERIFY(
        !TaskScope::parse(QStringLiteral("https://shop.test:8443/lesson"), TestOverrides()).ok());
}

void TaskScopeTest::sensitiveSegments_data()
{
    QTest::addColumn<QString>("segment");
    QTest::addColumn<bool>("sensitive");
    for (const char *word : {"admin", "login", "signin", "sign-in", "logout", "auth", "oauth",
                             "sso", "account", "password", "billing", "pricing", "checkout", "cart",
                             "payment", "messages", "inbox", "settings", "security"})
        QTest::newRow(word) << QString::fromLatin1(word) << true;
    QTest::newRow("Sign_In") << QStringLiteral("Sign_In") << true;
    QTest::newRow("log-out") << QStringLiteral("log-out") << true;
    QTest::newRow("payments") << QStringLiteral("payments") << true;
    QTest::newRow("account-settings") << QStringLiteral("account-settings") << true;
    QTest::newRow("SSO") << QStringLiteral("SSO") << true;
    QTest::newRow("lesson") << QStringLiteral("lesson") << false;
    QTest::newRow("lessons") << QStringLiteral("lessons") << false;
    QTest::newRow("course-notes") << QStringLiteral("course-notes") << false;
    QTest::newRow("cartography") << QStringLiteral("cartography") << false;
    QTest::newRow("blog") << QStringLiteral("blog") << false;
    QTest::newRow("authors") << QStringLiteral("authors") << false;
}

void TaskScopeTest::sensitiveSegments()
{
    QFETCH(QString, segment);
    QFETCH(bool, sensitive);
    QCOMPARE(isSensitiveScopeSegment(segment), sensitive);
    // Held decoded, read by the shared classifier as the encoded path segment it would be.
    QCOMPARE(isSensitiveScopeSegment(segment),
             isSensitivePathSegment(QString::fromLatin1(QUrl::toPercentEncoding(segment))));
}

void TaskScopeTest::parseExistingSkipsOnlyTheVocabulary()
{
    const Result<TaskScope> admin = TaskScope::parseExisting(
        QStringLiteral("https://www.acme-school.com/admin/"), TestOverrides());
    QVERIFY(admin.ok());
    QCOMPARE(admin->toString(), QStringLiteral("https://www.acme-school.com/admin"));
    QVERIFY(admin->isSensitive());
    for (const char *text :
         {"http://www.acme-school.com/admin", "https://www.acme-school.com/a/b",
          "https://www.acme-school.com/admin?x", "https://www.acme-school.com"}) {
        const Result<TaskScope> refused =
            TaskScope::parseExisting(QString::fromLatin1(text), TestOverrides());
        QVERIFY2(!refused.ok(), text);
        QCOMPARE(refused.error(), taskScopeError(TaskScopeFailure::Invalid));
    }
}

void TaskScopeTest::fromPartsRoundTrips()
{
    const TaskScope entry = scope(QStringLiteral("https://www.acme-school.com/caf%C3%A9"));
    const Result<TaskScope> stored =
        TaskScope::fromParts(entry.origin().toString(), entry.segment(), TestOverrides());
    QVERIFY(stored.ok());
    QCOMPARE(*stored, entry);
    // A stored entry that a grown vocabulary now finds sensitive still reads back; the list
    // rules refuse to save it again.
    const Result<TaskScope> sensitive = TaskScope::fromParts(
        QStringLiteral("https://www.acme-school.com"), QStringLiteral("admin"), TestOverrides());
    QVERIFY(sensitive.ok());
    QVERIFY(sensitive->isSensitive());
}

void TaskScopeTest::fromPartsRefusesDamagedRows_data()
{
    QTest::addColumn<QString>("origin");
    QTest::addColumn<QString>("segment");
    QTest::newRow("not normalized") << "https://WWW.acme-school.com"
                                    << "lesson";
    QTest::newRow("trailing slash") << "https://www.acme-school.com/"
                                    << "lesson";
    QTest::newRow("port") << "https://www.acme-school.com:8443"
                          << "lesson";
    QTest::newRow("http") << "http://www.acme-school.com"
                          << "lesson";
    QTest::newRow("empty segment") << "https://www.acme-school.com"
                                   << "";
    QTest::newRow("slash") << "https://www.acme-school.com"
                           << "a/b";
    QTest::newRow("dot dot") << "https://www.acme-school.com"
                             << "..";
    QTest::newRow("percent") << "https://www.acme-school.com"
                             << "a%2Fb";
}

void TaskScopeTest::fromPartsRefusesDamagedRows()
{
    QFETCH(QString, origin);
    QFETCH(QString, segment);
    const Result<TaskScope> stored = TaskScope::fromParts(origin, segment, TestOverrides());
    QVERIFY(!stored.ok());
    QCOMPARE(stored.error(), taskScopeError(TaskScopeFailure::Invalid));
}

void TaskScopeTest::contains_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("inside");
    const auto row = [](const char *name, const char *url, bool inside) {
        QTest::newRow(name) << QString::fromLatin1(url) << inside;
    };
    row("the segment", "https://www.acme-school.com/lesson", true);
    row("with slash", "https://www.acme-school.com/lesson/", true);
    row("below", "https://www.acme-school.com/lesson/one/two", true);
    row("query and fragment", "https://www.acme-school.com/lesson/one?page=2#top", true);
    row("encoded unreserved", "https://www.acme-school.com/%6Cesson/one", true);
    row("explicit default port", "https://www.acme-school.com:443/lesson", true);
    row("longer segment", "https://www.acme-school.com/lessons", false);
    row("prefix of the segment", "https://www.acme-school.com/less", false);
    row("other case", "https://www.acme-school.com/Lesson", false);
    row("root", "https://www.acme-school.com/", false);
    row("no path", "https://www.acme-school.com", false);
    row("another segment", "https://www.acme-school.com/other/lesson", false);
    row("encoded slash", "https://www.acme-school.com/lesson%2Fone", false);
    row("dot dot below", "https://www.acme-school.com/lesson/../admin", false);
    row("encoded dot dot below", "https://www.acme-school.com/lesson/%2e%2e/admin", false);
    row("dot below", "https://www.acme-school.com/lesson/./one", false);
    row("http", "http://www.acme-school.com/lesson", false);
    row("other host", "https://acme-school.com/lesson", false);
    row("subdomain", "https://a.www.acme-school.com/lesson", false);
    row("other port", "https://www.acme-school.com:8443/lesson", false);
    row("userinfo", "https://user@www.acme-school.com/lesson", false);
    row("ip literal", "https://93.184.216.34/lesson", false);
}

void TaskScopeTest::contains()
{
    QFETCH(QString, url);
    QFETCH(bool, inside);
    const TaskScope entry = scope(QStringLiteral("https://www.acme-school.com/lesson"));
    QCOMPARE(entry.contains(QUrl(url), TestOverrides()), inside);
}

void TaskScopeTest::scopeForPicksTheContainingEntry()
{
    const TaskScope lesson = scope(QStringLiteral("https://www.acme-school.com/lesson"));
    const TaskScope course = scope(QStringLiteral("https://learn.acme-learn.org/course"));
    const TaskScopePolicy policy{.entries = {course, lesson}, .revision = 3};
    QCOMPARE(policy.scopeFor(QUrl(QStringLiteral("https://www.acme-school.com/lesson/7")),
                             TestOverrides()),
             std::optional<TaskScope>(lesson));
    QCOMPARE(policy.scopeFor(QUrl(QStringLiteral("https://learn.acme-learn.org/course")),
                             TestOverrides()),
             std::optional<TaskScope>(course));
    QCOMPARE(policy.scopeFor(QUrl(QStringLiteral("https://learn.acme-learn.org/lesson")),
                             TestOverrides()),
             std::nullopt);
}

void TaskScopeTest::normalizeSortsAndBounds()
{
    const TaskScope b = scope(QStringLiteral("https://b.acme-school.com/x"));
    const TaskScope a2 = scope(QStringLiteral("https://a.acme-school.com/y"));
    const TaskScope a1 = scope(QStringLiteral("https://a.acme-school.com/x"));
    const Result<QList<TaskScope>> sorted = TaskScopePolicy::normalize({b, a2, a1});
    QVERIFY(sorted.ok());
    QCOMPARE(*sorted, (QList<TaskScope>{a1, a2, b}));

    const Result<QList<TaskScope>> duplicate = TaskScopePolicy::normalize({a1, b, a1});
    QVERIFY(!duplicate.ok());
    QCOMPARE(duplicate.error(), taskScopeError(TaskScopeFailure::Duplicate));

    QList<TaskScope> sixteen;
    for (int i = 0; i < TaskScopePolicy::kMaxEntries; ++i)
        sixteen << scope(QStringLiteral("https://www.acme-school.com/part%1").arg(i));
    QVERIFY(TaskScopePolicy::normalize(sixteen).ok());
    sixteen << scope(QStringLiteral("https://www.acme-school.com/part99"));
    const Result<QList<TaskScope>> seventeen = TaskScopePolicy::normalize(sixteen);
    QVERIFY(!seventeen.ok());
    QCOMPARE(seventeen.error(), taskScopeError(TaskScopeFailure::Limit));
}

void TaskScopeTest::digestIsOrderIndependent()
{
    const TaskScope a = scope(QStringLiteral("https://a.acme-school.com/x"));
    const TaskScope b = scope(QStringLiteral("https://b.acme-school.com/x"));
    QCOMPARE(TaskScopePolicy::digest({a, b}), TaskScopePolicy::digest({b, a}));
    QVERIFY(TaskScopePolicy::digest({a, b}) != TaskScopePolicy::digest({a}));
    QCOMPARE(TaskScopePolicy::digest({}).size(), 64);
}

void TaskScopeTest::replaceAdvancesRevision()
{
    const TaskScope a = scope(QStringLiteral("https://a.acme-school.com/x"));
    const TaskScope b = scope(QStringLiteral("https://b.acme-school.com/x"));
    const TaskScopeState state{.policy = {.entries = {a, b}, .revision = 4}};
    const Result<TaskScopeChange> change = TaskScopeRules::replace(state, 4, {b});
    QVERIFY(change.ok());
    QCOMPARE(change->kind, TaskScopeChange::Kind::Changed);
    QCOMPARE(change->policy.revision, qint64(5));
    QCOMPARE(change->policy.entries, QList<TaskScope>{b});
    QCOMPARE(change->removed, QList<TaskScope>{a});
    QCOMPARE(change->source, TaskScopeSource::Owner);
}

void TaskScopeTest::replaceConflictsWhenStale()
{
    const TaskScope a = scope(QStringLiteral("https://a.acme-school.com/x"));
    const TaskScope b = scope(QStringLiteral("https://b.acme-school.com/x"));
    const TaskScopeState state{.policy = {.entries = {a}, .revision = 4}};
    for (const qint64 expected : {qint64(0), qint64(2), qint64(3), qint64(5)}) {
        const Result<TaskScopeChange> change = TaskScopeRules::replace(state, expected, {a, b});
        QVERIFY(!change.ok());
        QCOMPARE(change.error(), taskScopeError(TaskScopeFailure::Conflict));
    }
    const Result<TaskScopeChange> negative = TaskScopeRules::replace(state, -1, {a});
    QVERIFY(!negative.ok());
    QCOMPARE(negative.error(), taskScopeError(TaskScopeFailure::Invalid));
}

void TaskScopeTest::replaceRecognisesAnImmediateReplay()
{
    const TaskScope a = scope(QStringLiteral("https://a.acme-school.com/x"));
    const TaskScope b = scope(QStringLiteral("https://b.acme-school.com/x"));
    const TaskScopeState state{.policy = {.entries = {a, b}, .revision = 5}};
    // The owner's change 4 -> 5 again, in any order: its saved answer, nothing to store.
    const Result<TaskScopeChange> replay = TaskScopeRules::replace(state, 4, {b, a});
    QVERIFY(replay.ok());
    QCOMPARE(replay->kind, TaskScopeChange::Kind::Replayed);
    QCOMPARE(replay->policy, state.policy);
    // Another list at the old revision is a stale edit.
    QVERIFY(!TaskScopeRules::replace(state, 4, {a}).ok());
    // The seed's change is never the owner's to replay.
    const TaskScopeState seeded{.policy = {.entries = {a}, .revision = 1},
                                .lastSource = TaskScopeSource::Seed};
    const Result<TaskScopeChange> overSeed = TaskScopeRules::replace(seeded, 0, {a});
    QVERIFY(!overSeed.ok());
    QCOMPARE(overSeed.error(), taskScopeError(TaskScopeFailure::Conflict));
}

void TaskScopeTest::replaceOfTheSameListChangesNothing()
{
    const TaskScope a = scope(QStringLiteral("https://a.acme-school.com/x"));
    const TaskScopeState state{.policy = {.entries = {a}, .revision = 2}};
    const Result<TaskScopeChange> same = TaskScopeRules::replace(state, 2, {a});
    QVERIFY(same.ok());
    QCOMPARE(same->kind, TaskScopeChange::Kind::Unchanged);
    QCOMPARE(same->policy, state.policy);
}

void TaskScopeTest::replaceRefusesSensitiveStoredEntries()
{
    const Result<TaskScope> admin = TaskScope::fromParts(
        QStringLiteral("https://www.acme-school.com"), QStringLiteral("admin"), TestOverrides());
    QVERIFY(admin.ok());
    const TaskScope a = scope(QStringLiteral("https://a.acme-school.com/x"));
    const TaskScopeState state{.policy = {.entries = {*admin, a}, .revision = 2}};
    const Result<TaskScopeChange> keep = TaskScopeRules::replace(state, 2, {*admin});
    QVERIFY(!keep.ok());
    QCOMPARE(keep.error(), taskScopeError(TaskScopeFailure::Sensitive));
    // Removing it is allowed.
    const Result<TaskScopeChange> removed = TaskScopeRules::replace(state, 2, {a});
    QVERIFY(removed.ok());
    QCOMPARE(removed->removed, QList<TaskScope>{*admin});
}

void TaskScopeTest::savedEmptyListIsAChange()
{
    const Result<TaskScopeChange> change = TaskScopeRules::replace(TaskScopeState{}, 0, {});
    QVERIFY(change.ok());
    QCOMPARE(change->kind, TaskScopeChange::Kind::Changed);
    QCOMPARE(change->policy.revision, qint64(1));
    QVERIFY(change->policy.entries.isEmpty());
    QVERIFY(change->policy.isSaved());
}

void TaskScopeTest::seedAppliesOnlyToANeverSavedList()
{
    const TaskScope a = scope(QStringLiteral("https://a.acme-school.com/x"));
    const Result<TaskScopeChange> seeded = TaskScopeRules::seed(TaskScopeState{}, {a});
    QVERIFY(seeded.ok());
    QCOMPARE(seeded->kind, TaskScopeChange::Kind::Changed);
    QCOMPARE(seeded->source, TaskScopeSource::Seed);
    QCOMPARE(seeded->policy, (TaskScopePolicy{.entries = {a}, .revision = 1}));

    // A saved empty list is the owner's choice and stays.
    const TaskScopeState empty{.policy = {.entries = {}, .revision = 1}};
    const Result<TaskScopeChange> skipped = TaskScopeRules::seed(empty, {a});
    QVERIFY(skipped.ok());
    QCOMPARE(skipped->kind, TaskScopeChange::Kind::Unchanged);
    QCOMPARE(skipped->policy, empty.policy);
}

void TaskScopeTest::errorsAreStableAndContentFree()
{
    for (const TaskScopeFailure failure :
         {TaskScopeFailure::Invalid, TaskScopeFailure::Sensitive, TaskScopeFailure::Limit,
          TaskScopeFailure::Duplicate, TaskScopeFailure::NotFound, TaskScopeFailure::Conflict}) {
        const Error error = taskScopeError(failure);
        QVERIFY(error.code.startsWith(QLatin1String("scope.")));
        QVERIFY(isTaskScopeFailure(error, failure));
        QVERIFY(!error.message.isEmpty());
    }
    // A refusal never echoes its input.
    const QString secretish = QStringLiteral("https://www.acme-school.com/lesson?token=abc123");
    const Result<TaskScope> refused = TaskScope::parse(secretish, TestOverrides());
    QVERIFY(!refused.ok());
    QVERIFY(!refused.error().message.contains(QLatin1String("abc123")));
    QVERIFY(!refused.error().message.contains(QLatin1String("token")));
}

QTEST_GUILESS_MAIN(TaskScopeTest)
#include "tst_taskscope.moc"
