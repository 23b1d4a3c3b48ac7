// The effect ledger: legal transitions only (in the code and in the database), durable
// dispatch_started, recovery after a process killed mid-call (outcome_unknown, never resent),
// one live process per ledger, and no typed text, URL query or page text in its files.

#include "ledger/EffectLedger.h"

#include <QDir>
#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace veetbot;

namespace {

const QString kTextCanary = QStringLiteral("TYPED-CANARY-5e1f0c");
const QString kQueryCanary = QStringLiteral("QUERY-CANARY-93ab2d");
const QString kPathCanary = QStringLiteral("PATH-CANARY-77aa01");
const QString kRevisionCanary = QStringLiteral("REVISION-CANARY-c0ffee");

ActRequest typeRequest()
{
    return *ActRequest::type(kRevisionCanary, QStringLiteral("e1"), kTextCanary);
}

EffectCall call()
{
    return EffectCall::forAct(typeRequest(),
                              QUrl(QStringLiteral("https://shop.example:8443/") + kPathCanary +
                                   QStringLiteral("?q=") + kQueryCanary + QStringLiteral("#frag")));
}

QString codeOf(const Result<Unit> &result)
{
    return result.ok() ? QStringLiteral("<ok>") : result.error().code;
}

// Drives a new call from prepared to `target` along the normal path.
QUuid callAt(EffectLedger &ledger, EffectState target)
{
    const QUuid id = *ledger.prepare(call());
    const QList<EffectState> path{EffectState::Authorized, EffectState::DispatchStarted,
                                  EffectState::Dispatched};
    for (EffectState step : path) {
        if (target == EffectState::Prepared)
            break;
        bool ok = false;
        switch (step) {
        case EffectState::Authorized:
            ok = ledger.authorize(id).ok();
            break;
        case EffectState::DispatchStarted:
            ok = ledger.beginDispatch(id).ok();
            break;
        case EffectState::Dispatched:
            ok = ledger.markDispatched(id).ok();
            break;
        default:
            break;
        }
        if (!ok)
            qFatal("could not advance the call");
        if (step == target)
            break;
    }
    return id;
}

Result<Unit> step(EffectLedger &ledger, const QUuid &id, EffectState to)
{
    switch (to) {
    case EffectState::Prepared:
        return ledgerError(LedgerFailure::IllegalTransition);
    case EffectState::Authorized:
        return ledger.authorize(id);
    case EffectState::NotSent:
        return ledger.markNotSent(id, QStringLiteral("tool.approval_denied"));
    case EffectState::DispatchStarted:
        return ledger.beginDispatch(id);
    case EffectState::Dispatched:
        return ledger.markDispatched(id);
    case EffectState::ObservedComplete:
        return ledger.markObservedComplete(id);
    case EffectState::ObservedNotComplete:
        return ledger.markObservedNotComplete(id);
    case EffectState::OutcomeUnknown:
        return ledger.markOutcomeUnknown(id);
    }
    return ledgerError(LedgerFailure::IllegalTransition);
}

constexpr EffectState kStates[] = {
    EffectState::Prepared,
    EffectState::Authorized,
    EffectState::NotSent,
    EffectState::DispatchStarted,
    EffectState::Dispatched,
    EffectState::ObservedComplete,
    EffectState::ObservedNotComplete,
    EffectState::OutcomeUnknown,
};

} // namespace

class TestEffectLedger : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void transitionTable();
    void happyPathAndHistory();
    void everyIllegalTransitionIsRefused();
    void databaseRefusesIllegalTransitions();
    void recordIsContentFree();
    void refusesInvalidRecords();
    void reopenKeepsState();
    void crashAfterDispatchStartedIsOutcomeUnknown_data();
    void crashAfterDispatchStartedIsOutcomeUnknown();
    void secondLiveProcessIsRefused();
    void newerSchemaIsRefused();
    void canaryNeverReachesTheFiles();

private:
    QString path() const { return m_dir->filePath(QStringLiteral("effects.sqlite")); }
    QByteArray allFileBytes() const
    {
        QByteArray bytes;
        for (const QString &name : QDir(m_dir->path()).entryList(QDir::Files)) {
            QFile file(m_dir->filePath(name));
            if (file.open(QIODevice::ReadOnly))
                bytes += file.readAll();
        }
        return bytes;
    }

    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestEffectLedger::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void TestEffectLedger::cleanup()
{
    m_dir.reset();
}

void TestEffectLedger::transitionTable()
{
    int legal = 0;
    for (EffectState from : kStates) {
        for (EffectState to : kStates)
            legal += isLegalEffectTransition(from, to) ? 1 : 0;
    }
    QCOMPARE(legal, 9);
    QVERIFY(isLegalEffectTransition(EffectState::Authorized, EffectState::DispatchStarted));
    QVERIFY(!isLegalEffectTransition(EffectState::DispatchStarted, EffectState::NotSent));
    QVERIFY(!isLegalEffectTransition(EffectState::Dispatched, EffectState::NotSent));
    QVERIFY(!isLegalEffectTransition(EffectState::OutcomeUnknown, EffectState::DispatchStarted));
    QVERIFY(!isLegalEffectTransition(EffectState::Prepared, EffectState::DispatchStarted));
    for (EffectState terminal : {EffectState::NotSent, EffectState::ObservedComplete,
                                 EffectState::ObservedNotComplete, EffectState::OutcomeUnknown})
        QVERIFY(isTerminalEffectState(terminal));
    QVERIFY(!isTerminalEffectState(EffectState::Dispatched));
    for (EffectState state : kStates)
        QCOMPARE(effectStateFromString(effectStateString(state)),
                 std::optional<EffectState>(state));
}

void TestEffectLedger::happyPathAndHistory()
{
    QDateTime clock = QDateTime(QDate(2030, 1, 2), QTime(3, 4, 5, 678), Qt::UTC);
    auto ledger = EffectLedger::open(path(), [&clock] { return clock; });
    QVERIFY(ledger.ok());
    EffectLedger &l = *ledger.value();
    const QUuid id = *l.prepare(call());
    QCOMPARE(l.record(id)->state, EffectState::Prepared);
    QVERIFY(l.authorize(id).ok());
    QVERIFY(l.beginDispatch(id).ok());
    clock = clock.addMSecs(1500);
    QVERIFY(l.markDispatched(id).ok());
    QVERIFY(l.markObservedComplete(id).ok());
    const EffectRecord record = *l.record(id);
    QCOMPARE(record.state, EffectState::ObservedComplete);
    QCOMPARE(record.createdAt, QDateTime(QDate(2030, 1, 2), QTime(3, 4, 5, 678), Qt::UTC));
    QCOMPARE(record.updatedAt, clock);
    QVERIFY(!record.recovered);
    QCOMPARE(*l.history(id),
             QList<EffectState>({EffectState::Prepared, EffectState::Authorized,
                                 EffectState::DispatchStarted, EffectState::Dispatched,
                                 EffectState::ObservedComplete}));
    // A refusal before dispatch keeps its stable code.
    const QUuid refused = *l.prepare(call());
    QVERIFY(l.markNotSent(refused, QStringLiteral("tool.browser.page_changed")).ok());
    QCOMPARE(l.record(refused)->reasonCode, QStringLiteral("tool.browser.page_changed"));
    QCOMPARE(l.records()->size(), 2);
    QCOMPARE(codeOf(l.authorize(QUuid::createUuid())), QStringLiteral("ledger.not_found"));
}

void TestEffectLedger::everyIllegalTransitionIsRefused()
{
    auto ledger = EffectLedger::open(path());
    QVERIFY(ledger.ok());
    EffectLedger &l = *ledger.value();
    // Reach each state, then try every target from it.
    const auto reach = [&](EffectState state) -> QUuid {
        switch (state) {
        case EffectState::NotSent: {
            const QUuid id = callAt(l, EffectState::Prepared);
            // Checked below: the caller compares the state reached.
            (void)l.markNotSent(id, QStringLiteral("tool.approval_denied"));
            return id;
        }
        case EffectState::ObservedComplete:
        case EffectState::ObservedNotComplete:
        case EffectState::OutcomeUnknown: {
            const QUuid id = callAt(l, EffectState::Dispatched);
            (void)step(l, id, state); // checked below, as above
            return id;
        }
        default:
            return callAt(l, state);
        }
    };
    int refused = 0;
    for (EffectState from : kStates) {
        for (EffectState to : kStates) {
            const QUuid id = reach(from);
            QCOMPARE(l.record(id)->state, from);
            const Result<Unit> result = step(l, id, to);
            if (isLegalEffectTransition(from, to)) {
                QVERIFY2(result.ok(),
                         qPrintable(effectStateString(from) + u'>' + effectStateString(to)));
                QCOMPARE(l.record(id)->state, to);
            } else {
                QCOMPARE(codeOf(result), QStringLiteral("ledger.illegal_transition"));
                QCOMPARE(l.record(id)->state, from);
                ++refused;
            }
        }
    }
    QCOMPARE(refused, 64 - 9);
}

void TestEffectLedger::databaseRefusesIllegalTransitions()
{
    QUuid id;
    {
        auto ledger = EffectLedger::open(path());
        QVERIFY(ledger.ok());
        id = callAt(*ledger.value(), EffectState::Dispatched);
        QVERIFY(ledger.value()->markOutcomeUnknown(id).ok());
    }
    // Even a writer that bypasses the class cannot resend or rewrite a call.
    {
        QSqlDatabase db =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
        db.setDatabaseName(path());
        QVERIFY(db.open());
        QSqlQuery query(db);
        const QString where =
            QStringLiteral(" WHERE id = '") + id.toString(QUuid::WithoutBraces) + u'\'';
        QVERIFY(!query.exec(QStringLiteral("UPDATE effect_calls SET state = 'dispatch_started'") +
                            where));
        QVERIFY(
            !query.exec(QStringLiteral("UPDATE effect_calls SET state = 'authorized'") + where));
        QVERIFY(!query.exec(QStringLiteral("UPDATE effect_calls SET argument_digest = '") +
                            QString(64, u'0') + u'\'' + where));
        QVERIFY(!query.exec(QStringLiteral("INSERT INTO effect_calls VALUES "
                                           "('00000000-0000-0000-0000-000000000000', 'browser.act',"
                                           " '1.7.0', 'click', 'https://a.example', '") +
                            QString(64, u'a') + QStringLiteral("', '") + QString(64, u'b') +
                            QStringLiteral("', 'dispatch_started', NULL, 'x', 'x')")));
        QVERIFY(query.exec(QStringLiteral("SELECT state FROM effect_calls") + where));
        QVERIFY(query.next());
        QCOMPARE(query.value(0).toString(), QStringLiteral("outcome_unknown"));
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw"));
}

void TestEffectLedger::recordIsContentFree()
{
    auto ledger = EffectLedger::open(path());
    QVERIFY(ledger.ok());
    const QUuid id = *ledger.value()->prepare(call());
    const EffectRecord record = *ledger.value()->record(id);
    QCOMPARE(record.call.tool, QStringLiteral("browser.act"));
    QCOMPARE(record.call.toolVersion, QStringLiteral("1.7.0"));
    QCOMPARE(record.call.kind, QStringLiteral("type"));
    QCOMPARE(record.call.origin, QStringLiteral("https://shop.example:8443"));
    QCOMPARE(record.call.argumentDigest, typeRequest().argumentDigest());
    QCOMPARE(record.call.revisionDigest.size(), 32);
    QCOMPARE(record.call, call());
}

void TestEffectLedger::refusesInvalidRecords()
{
    auto ledger = EffectLedger::open(path());
    QVERIFY(ledger.ok());
    EffectLedger &l = *ledger.value();
    EffectCall withPath = call();
    withPath.origin = QStringLiteral("https://shop.example/") + kPathCanary;
    QCOMPARE(l.prepare(withPath).error().code, QStringLiteral("ledger.invalid_record"));
    EffectCall shortDigest = call();
    shortDigest.argumentDigest.chop(1);
    QCOMPARE(l.prepare(shortDigest).error().code, QStringLiteral("ledger.invalid_record"));
    EffectCall freeKind = call();
    freeKind.kind = kTextCanary;
    QCOMPARE(l.prepare(freeKind).error().code, QStringLiteral("ledger.invalid_record"));
    const QUuid id = *l.prepare(call());
    // A reason code is a stable code, never text.
    QCOMPARE(codeOf(l.markNotSent(id, kTextCanary)), QStringLiteral("ledger.invalid_record"));
    QCOMPARE(codeOf(l.markNotSent(id, QStringLiteral("net::ERR_CONNECTION_RESET"))),
             QStringLiteral("ledger.invalid_record"));
    QCOMPARE(codeOf(l.markNotSent(id, QString())), QStringLiteral("ledger.invalid_record"));
    QCOMPARE(l.record(id)->state, EffectState::Prepared);
    QCOMPARE(l.records()->size(), 1);
}

void TestEffectLedger::reopenKeepsState()
{
    QUuid done;
    {
        auto ledger = EffectLedger::open(path());
        QVERIFY(ledger.ok());
        done = callAt(*ledger.value(), EffectState::Dispatched);
        QVERIFY(
            ledger.value()
                ->markObservedNotComplete(done, QStringLiteral("tool.browser.element_not_found"))
                .ok());
    }
    auto reopened = EffectLedger::open(path());
    QVERIFY(reopened.ok());
    QVERIFY(reopened.value()->recoveredUncertain().isEmpty());
    QCOMPARE(reopened.value()->record(done)->state, EffectState::ObservedNotComplete);
    QCOMPARE(reopened.value()->record(done)->reasonCode,
             QStringLiteral("tool.browser.element_not_found"));
}

void TestEffectLedger::crashAfterDispatchStartedIsOutcomeUnknown_data()
{
    QTest::addColumn<int>("killedAt");
    QTest::addColumn<int>("recoveredTo");
    QTest::newRow("dispatch_started")
        << int(EffectState::DispatchStarted) << int(EffectState::OutcomeUnknown);
    // A settled act is recorded dispatched only when its call is over: nothing to recover.
    QTest::newRow("dispatched") << int(EffectState::Dispatched) << int(EffectState::Dispatched);
    QTest::newRow("authorized") << int(EffectState::Authorized) << int(EffectState::NotSent);
    QTest::newRow("prepared") << int(EffectState::Prepared) << int(EffectState::NotSent);
}

void TestEffectLedger::crashAfterDispatchStartedIsOutcomeUnknown()
{
    QFETCH(int, killedAt);
    QFETCH(int, recoveredTo);
    // One finished call from an earlier run, which recovery must leave alone.
    QUuid earlier;
    {
        auto ledger = EffectLedger::open(path());
        QVERIFY(ledger.ok());
        earlier = callAt(*ledger.value(), EffectState::Dispatched);
        QVERIFY(ledger.value()->markObservedComplete(earlier).ok());
    }

    const pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        // The process that dies mid-call: the step is committed, then SIGKILL, no clean-up.
        auto ledger = EffectLedger::open(path());
        if (!ledger.ok())
            _exit(2);
        callAt(*ledger.value(), EffectState(killedAt));
        raise(SIGKILL);
        _exit(3);
    }
    int status = 0;
    QCOMPARE(waitpid(child, &status, 0), child);
    QVERIFY2(WIFSIGNALED(status),
             qPrintable(QStringLiteral("child exit %1").arg(WEXITSTATUS(status))));
    QCOMPARE(WTERMSIG(status), SIGKILL);

    // The restart: the dead process's lock is stale, recovery runs.
    auto ledger = EffectLedger::open(path());
    QVERIFY2(ledger.ok(), qPrintable(ledger.ok() ? QString() : ledger.error().code));
    EffectLedger &l = *ledger.value();
    const QList<EffectRecord> records = *l.records();
    QCOMPARE(records.size(), 2);
    const EffectRecord &crashed = records.at(0).id == earlier ? records.at(1) : records.at(0);
    QCOMPARE(int(crashed.state), recoveredTo);
    if (recoveredTo == killedAt) {
        QVERIFY(!crashed.recovered);
        QVERIFY(l.recoveredUncertain().isEmpty());
        QVERIFY(l.recoveredUnsent().isEmpty());
        return;
    }
    QVERIFY(crashed.recovered);
    QCOMPARE(l.record(earlier)->state, EffectState::ObservedComplete);
    QVERIFY(!l.record(earlier)->recovered);
    if (recoveredTo == int(EffectState::OutcomeUnknown)) {
        QCOMPARE(l.recoveredUncertain(), QList<QUuid>{crashed.id});
        QVERIFY(l.recoveredUnsent().isEmpty());
        QCOMPARE(crashed.reasonCode, QStringLiteral("tool.browser.outcome_unknown"));
    } else {
        QCOMPARE(l.recoveredUnsent(), QList<QUuid>{crashed.id});
        QVERIFY(l.recoveredUncertain().isEmpty());
        QCOMPARE(crashed.reasonCode, QStringLiteral("ledger.interrupted_before_dispatch"));
    }
    // Never resent: there is no way back to dispatch_started from either ending.
    QCOMPARE(codeOf(l.beginDispatch(crashed.id)), QStringLiteral("ledger.illegal_transition"));
    QCOMPARE(codeOf(l.authorize(crashed.id)), QStringLiteral("ledger.illegal_transition"));
    QCOMPARE(codeOf(l.markDispatched(crashed.id)), QStringLiteral("ledger.illegal_transition"));
    // A second restart finds nothing more to recover.
    ledger = Result<std::unique_ptr<EffectLedger>>(ledgerError(LedgerFailure::Unavailable));
    auto again = EffectLedger::open(path());
    QVERIFY(again.ok());
    QVERIFY(again.value()->recoveredUncertain().isEmpty());
    QVERIFY(again.value()->recoveredUnsent().isEmpty());
    QCOMPARE(again.value()->history(crashed.id)->last(), EffectState(recoveredTo));
}

void TestEffectLedger::secondLiveProcessIsRefused()
{
    auto first = EffectLedger::open(path());
    QVERIFY(first.ok());
    const QUuid inFlight = callAt(*first.value(), EffectState::DispatchStarted);

    const pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        auto second = EffectLedger::open(path());
        _exit(!second.ok() && second.error().code == QLatin1String("ledger.busy") ? 0 : 1);
    }
    int status = 0;
    QCOMPARE(waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status));
    QCOMPARE(WEXITSTATUS(status), 0);
    // The live call was not "recovered" by the other process.
    QCOMPARE(first.value()->record(inFlight)->state, EffectState::DispatchStarted);
    QVERIFY(first.value()->markDispatched(inFlight).ok());
}

void TestEffectLedger::newerSchemaIsRefused()
{
    {
        auto ledger = EffectLedger::open(path());
        QVERIFY(ledger.ok());
    }
    {
        QSqlDatabase db =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw2"));
        db.setDatabaseName(path());
        QVERIFY(db.open());
        QSqlQuery query(db);
        QVERIFY(query.exec(
            QStringLiteral("INSERT INTO schema_version VALUES ('effect_ledger', 2, 'x')")));
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw2"));
    auto ledger = EffectLedger::open(path());
    QVERIFY(!ledger.ok());
    QCOMPARE(ledger.error().code, QStringLiteral("ledger.schema_unknown"));
}

void TestEffectLedger::canaryNeverReachesTheFiles()
{
    {
        auto ledger = EffectLedger::open(path());
        QVERIFY(ledger.ok());
        EffectLedger &l = *ledger.value();
        for (EffectState end : {EffectState::ObservedComplete, EffectState::ObservedNotComplete,
                                EffectState::OutcomeUnknown}) {
            const QUuid id = callAt(l, EffectState::Dispatched);
            QVERIFY(step(l, id, end).ok());
        }
        const QUuid refused = *l.prepare(call());
        QVERIFY(l.markNotSent(refused, QStringLiteral("tool.approval_denied")).ok());
        // Checked while the WAL still holds the writes, and again after checkpointing.
        const QByteArray live = allFileBytes();
        QVERIFY(live.size() > 0);
        QVERIFY(live.contains("browser.act")); // the check reads real content
        for (const QString &canary : {kTextCanary, kQueryCanary, kPathCanary, kRevisionCanary}) {
            QVERIFY2(!live.contains(canary.toUtf8()), qPrintable(canary));
            QVERIFY(!live.contains(
                QByteArray(reinterpret_cast<const char *>(canary.utf16()), canary.size() * 2)));
        }
    }
    const QByteArray closed = allFileBytes();
    QVERIFY(closed.contains("https://shop.example:8443"));
    for (const QString &canary : {kTextCanary, kQueryCanary, kPathCanary, kRevisionCanary})
        QVERIFY2(!closed.contains(canary.toUtf8()), qPrintable(canary));
}

QTEST_GUILESS_MAIN(TestEffectLedger)
#include "tst_effectledger.moc"
