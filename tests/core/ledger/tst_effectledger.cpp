// The effect ledger: legal transitions only (in the code and in the database), durable
// dispatch_started, recovery after a process killed mid-call (outcome_unknown, never resent),
// several processes writing to one ledger at once without losing a record, recovery that
// never ends a live process's calls, the migration from the single-process ledger, and no
// typed text, URL query or page text in its files.

#include "ledger/EffectLedger.h"
#include "ledger/OwnerLocks.h"
#include "storage/SqlDatabase.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QProcess>
#include <QSet>
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
            ok = ledger.authorize(id, EffectAuthority::OwnerApproval).ok();
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
        return ledger.authorize(id, EffectAuthority::OwnerApproval);
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

// A writer process (tests/core/ledger/effectledger_writer.cpp).
std::unique_ptr<QProcess> startWriter(const QStringList &arguments)
{
    auto process = std::make_unique<QProcess>();
    process->setProgram(QCoreApplication::applicationDirPath() +
                        QStringLiteral("/effectledger-writer"));
    process->setArguments(arguments);
    process->start();
    return process;
}

// The writer's next stdout line, or nothing within the bound.
QByteArray nextLine(QProcess &process, int timeoutMs = 20000)
{
    const QDeadlineTimer deadline(timeoutMs);
    while (!process.canReadLine()) {
        if (deadline.hasExpired() || !process.waitForReadyRead(int(deadline.remainingTime())))
            return QByteArray();
    }
    return process.readLine().trimmed();
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
    void theAuthorityIsRecordedOnceAndFixed();
    void everyIllegalTransitionIsRefused();
    void databaseRefusesIllegalTransitions();
    void recordIsContentFree();
    void refusesInvalidRecords();
    void reopenKeepsState();
    void crashAfterDispatchStartedIsOutcomeUnknown_data();
    void crashAfterDispatchStartedIsOutcomeUnknown();
    void twoOpenLedgersShareTheFile();
    void concurrentWritersLoseNothing();
    void liveOwnersCallsAreNotRecovered_data();
    void liveOwnersCallsAreNotRecovered();
    void migrationFromVersion1KeepsRecords_data();
    void migrationFromVersion1KeepsRecords();
    void newerSchemaIsRefused();
    void canaryNeverReachesTheFiles();

private:
    QString path() const { return m_dir->filePath(QStringLiteral("effects.sqlite")); }
    // The owner lock files in the ledger's owners directory.
    QStringList ownerFiles() const
    {
        return QDir(OwnerLocks::directoryFor(QFileInfo(path()).canonicalFilePath()))
            .entryList(QDir::Files | QDir::Hidden | QDir::System, QDir::Name);
    }
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
    QVERIFY(l.authorize(id, EffectAuthority::OwnerApproval).ok());
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
    QCOMPARE(codeOf(l.authorize(QUuid::createUuid(), EffectAuthority::OwnerApproval)),
             QStringLiteral("ledger.not_found"));
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
                            QStringLiteral("', 'dispatch_started', NULL, 'x', 'x', '") +
                            QUuid::createUuid().toString(QUuid::WithoutBraces) +
                            QStringLiteral("', 1)")));
        QVERIFY(query.exec(QStringLiteral("SELECT state FROM effect_calls") + where));
        QVERIFY(query.next());
        QCOMPARE(query.value(0).toString(), QStringLiteral("outcome_unknown"));
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw"));
}

void TestEffectLedger::theAuthorityIsRecordedOnceAndFixed()
{
    QUuid id;
    {
        auto ledger = EffectLedger::open(path());
        QVERIFY(ledger.ok());
        EffectLedger &l = *ledger.value();
        id = *l.prepare(call());
        QVERIFY(!l.record(id)->authority.has_value()); // nothing stands behind it yet
        QVERIFY(l.authorize(id, EffectAuthority::OrdinaryInteraction).ok());
        QVERIFY(l.beginDispatch(id).ok());
        QCOMPARE(l.record(id)->authority,
                 std::optional<EffectAuthority>(EffectAuthority::OrdinaryInteraction));
        for (const EffectAuthority authority :
             {EffectAuthority::OwnerApproval, EffectAuthority::ScrollPermission,
              EffectAuthority::OrdinaryInteraction, EffectAuthority::TaskGrant,
              EffectAuthority::StandingGrant})
            QCOMPARE(effectAuthorityFromString(effectAuthorityString(authority)),
                     std::optional<EffectAuthority>(authority));
        QVERIFY(!effectAuthorityFromString(QStringLiteral("owner")));
    }
    // Not even a writer that bypasses the class can change it, or give a call one it was
    // not authorized with.
    {
        QSqlDatabase db =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
        db.setDatabaseName(path());
        QVERIFY(db.open());
        QSqlQuery query(db);
        const QString where =
            QStringLiteral(" WHERE id = '") + id.toString(QUuid::WithoutBraces) + u'\'';
        QVERIFY(!query.exec(QStringLiteral("UPDATE effect_calls SET authority = 'owner_approval'") +
                            where));
        QVERIFY(!query.exec(QStringLiteral("UPDATE effect_calls SET authority = NULL") + where));
        QVERIFY(
            !query.exec(QStringLiteral("UPDATE effect_calls SET authority = 'anyone'") + where));
        QVERIFY(query.exec(QStringLiteral("SELECT authority FROM effect_calls") + where));
        QVERIFY(query.next());
        QCOMPARE(query.value(0).toString(), QStringLiteral("ordinary_interaction"));
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
    QCOMPARE(codeOf(l.authorize(crashed.id, EffectAuthority::OwnerApproval)),
             QStringLiteral("ledger.illegal_transition"));
    QCOMPARE(codeOf(l.markDispatched(crashed.id)), QStringLiteral("ledger.illegal_transition"));
    // A second restart finds nothing more to recover.
    ledger = Result<std::unique_ptr<EffectLedger>>(ledgerError(LedgerFailure::Unavailable));
    auto again = EffectLedger::open(path());
    QVERIFY(again.ok());
    QVERIFY(again.value()->recoveredUncertain().isEmpty());
    QVERIFY(again.value()->recoveredUnsent().isEmpty());
    QCOMPARE(again.value()->history(crashed.id)->last(), EffectState(recoveredTo));
}

// Two open ledgers, even in one process, are two owners: opening the second ends nothing of
// the first, and both write.
void TestEffectLedger::twoOpenLedgersShareTheFile()
{
    auto first = EffectLedger::open(path());
    QVERIFY(first.ok());
    const QUuid inFlight = callAt(*first.value(), EffectState::DispatchStarted);
    const QUuid prepared = callAt(*first.value(), EffectState::Prepared);

    auto second = EffectLedger::open(path());
    QVERIFY(second.ok());
    QVERIFY(second.value()->instanceId() != first.value()->instanceId());
    QVERIFY(second.value()->recoveredUncertain().isEmpty());
    QVERIFY(second.value()->recoveredUnsent().isEmpty());
    QCOMPARE(second.value()->record(inFlight)->state, EffectState::DispatchStarted);
    QCOMPARE(second.value()->record(prepared)->state, EffectState::Prepared);
    const QUuid other = callAt(*second.value(), EffectState::Dispatched);
    QCOMPARE(first.value()->record(other)->owner, second.value()->instanceId());
    QCOMPARE(first.value()->record(other)->ownerPid, qint64(::getpid()));
    QVERIFY(first.value()->markDispatched(inFlight).ok());
    QCOMPARE(second.value()->record(inFlight)->owner, first.value()->instanceId());
    QCOMPARE(ownerFiles().size(), 2);

    // Once the first is closed, its unfinished call is a gone owner's: the next open ends it.
    first = Result<std::unique_ptr<EffectLedger>>(ledgerError(LedgerFailure::Unavailable));
    QCOMPARE(ownerFiles(), QStringList{second.value()->instanceId().toString(QUuid::WithoutBraces) +
                                       QStringLiteral(".lock")});
    auto third = EffectLedger::open(path());
    QVERIFY(third.ok());
    QCOMPARE(third.value()->recoveredUnsent(), QList<QUuid>{prepared});
    QCOMPARE(third.value()->record(inFlight)->state, EffectState::Dispatched);
}

// Several processes record dispatches into one ledger as fast as they can, all at once: every
// call of every process is there exactly once, at dispatched with its full history, and no
// process saw a failure (no "database is locked").
void TestEffectLedger::concurrentWritersLoseNothing()
{
    constexpr int kWriters = 3;
    constexpr int kCalls = 150;
    std::vector<std::unique_ptr<QProcess>> writers;
    // They open the new ledger at the same moment too.
    for (int i = 0; i < kWriters; ++i)
        writers.push_back(startWriter({QStringLiteral("record"), path(), QString::number(kCalls)}));
    QHash<QUuid, qint64> pidOf;
    QList<QUuid> instances;
    for (const auto &writer : writers) {
        const QByteArray ready = nextLine(*writer);
        QVERIFY2(ready.startsWith("ready "), writer->readAllStandardError().constData());
        const QUuid instance = QUuid::fromString(QLatin1String(ready.mid(6)));
        QVERIFY(!instance.isNull());
        instances.append(instance);
        pidOf.insert(instance, writer->processId());
    }
    for (const auto &writer : writers)
        writer->write("go\n");

    QHash<QUuid, QList<QUuid>> written; // per writer instance, the ids it reported
    for (int i = 0; i < kWriters; ++i) {
        QProcess &writer = *writers.at(i);
        QVERIFY(writer.waitForFinished(60000));
        QCOMPARE(writer.exitStatus(), QProcess::NormalExit);
        const QByteArray errors = writer.readAllStandardError();
        QVERIFY2(writer.exitCode() == 0 && errors.isEmpty(), errors.constData());
        const QList<QByteArray> lines = writer.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), kCalls + 1);
        QCOMPARE(lines.last(), QByteArray("done"));
        for (const QByteArray &line : lines.first(kCalls))
            written[instances.at(i)].append(QUuid::fromString(QLatin1String(line)));
    }

    auto ledger = EffectLedger::open(path());
    QVERIFY(ledger.ok());
    QVERIFY(ledger.value()->recoveredUncertain().isEmpty());
    QVERIFY(ledger.value()->recoveredUnsent().isEmpty());
    const QList<EffectRecord> records = *ledger.value()->records();
    QCOMPARE(records.size(), kWriters * kCalls);
    QHash<QUuid, QSet<QUuid>> stored; // per owner, its calls
    QSet<QUuid> ids;
    for (const EffectRecord &record : records) {
        QVERIFY(!ids.contains(record.id));
        ids.insert(record.id);
        QVERIFY(pidOf.contains(record.owner));
        QCOMPARE(record.ownerPid, pidOf.value(record.owner));
        QCOMPARE(record.state, EffectState::Dispatched);
        QVERIFY(!record.recovered);
        stored[record.owner].insert(record.id);
    }
    for (const QUuid &instance : instances) {
        const QList<QUuid> &reported = written.value(instance);
        QCOMPARE(QSet<QUuid>(reported.cbegin(), reported.cend()).size(), kCalls);
        QCOMPARE(stored.value(instance), QSet<QUuid>(reported.cbegin(), reported.cend()));
        for (const QUuid &id : reported)
            QCOMPARE(*ledger.value()->history(id),
                     QList<EffectState>({EffectState::Prepared, EffectState::Authorized,
                                         EffectState::DispatchStarted, EffectState::Dispatched}));
    }
    // Each writer removed its own lock file when it closed.
    QCOMPARE(ownerFiles().size(), 1);
}

void TestEffectLedger::liveOwnersCallsAreNotRecovered_data()
{
    QTest::addColumn<QString>("state");
    QTest::addColumn<int>("recoveredTo");
    QTest::newRow("dispatch_started")
        << QStringLiteral("dispatch_started") << int(EffectState::OutcomeUnknown);
    QTest::newRow("authorized") << QStringLiteral("authorized") << int(EffectState::NotSent);
}

// A process opening the ledger ends the calls of a process killed mid-call, and never those of
// a live one, which goes on to finish its call.
void TestEffectLedger::liveOwnersCallsAreNotRecovered()
{
    QFETCH(QString, state);
    QFETCH(int, recoveredTo);
    const auto hold = [&](QProcess &writer, QUuid *id, QUuid *instance) {
        const QList<QByteArray> started = nextLine(writer).split(' ');
        QVERIFY2(started.size() == 3 && started.at(0) == "started",
                 writer.readAllStandardError().constData());
        *id = QUuid::fromString(QLatin1String(started.at(1)));
        *instance = QUuid::fromString(QLatin1String(started.at(2)));
    };
    const auto live = startWriter({QStringLiteral("hold"), path(), state});
    QUuid liveCall;
    QUuid liveInstance;
    hold(*live, &liveCall, &liveInstance);
    const auto killed = startWriter({QStringLiteral("hold"), path(), state});
    QUuid killedCall;
    QUuid killedInstance;
    hold(*killed, &killedCall, &killedInstance);
    QCOMPARE(ownerFiles().size(), 2);
    killed->kill(); // SIGKILL: no clean-up, its lock file stays behind
    QVERIFY(killed->waitForFinished(10000));
    QCOMPARE(killed->exitStatus(), QProcess::CrashExit);
    QCOMPARE(ownerFiles().size(), 2);

    auto ledger = EffectLedger::open(path());
    QVERIFY(ledger.ok());
    EffectLedger &l = *ledger.value();
    const EffectRecord ended = *l.record(killedCall);
    QCOMPARE(int(ended.state), recoveredTo);
    QVERIFY(ended.recovered);
    QCOMPARE(ended.owner, killedInstance);
    const bool uncertain = recoveredTo == int(EffectState::OutcomeUnknown);
    QCOMPARE(uncertain ? l.recoveredUncertain() : l.recoveredUnsent(), QList<QUuid>{killedCall});
    QVERIFY((uncertain ? l.recoveredUnsent() : l.recoveredUncertain()).isEmpty());
    const EffectRecord inFlight = *l.record(liveCall);
    QCOMPARE(effectStateString(inFlight.state), state);
    QVERIFY(!inFlight.recovered);
    QCOMPARE(inFlight.owner, liveInstance);
    QCOMPARE(inFlight.ownerPid, qint64(live->processId()));
    // The dead owner's lock file went with its calls; the live one's and this ledger's stay.
    const QString suffix = QStringLiteral(".lock");
    const QStringList files = ownerFiles();
    QCOMPARE(QSet<QString>(files.cbegin(), files.cend()),
             QSet<QString>({liveInstance.toString(QUuid::WithoutBraces) + suffix,
                            l.instanceId().toString(QUuid::WithoutBraces) + suffix}));

    // A third process opening it now leaves the live call alone too.
    const auto another = startWriter({QStringLiteral("hold"), path(), state});
    QUuid anotherCall;
    QUuid anotherInstance;
    hold(*another, &anotherCall, &anotherInstance);
    QCOMPARE(effectStateString(l.record(liveCall)->state), state);
    another->closeWriteChannel();
    QVERIFY(another->waitForFinished(10000));

    // The live process finishes its own call.
    live->write("finish\n");
    QCOMPARE(nextLine(*live), QByteArray("finished"));
    QVERIFY(live->waitForFinished(10000));
    QCOMPARE(live->exitCode(), 0);
    const EffectRecord finished = *l.record(liveCall);
    QCOMPARE(finished.state,
             state == QLatin1String("authorized") ? EffectState::NotSent : EffectState::Dispatched);
    QVERIFY(!finished.recovered);
}

void TestEffectLedger::migrationFromVersion1KeepsRecords_data()
{
    QTest::addColumn<bool>("earlierProcessAlive");
    QTest::newRow("earlier process gone") << false;
    QTest::newRow("earlier process alive") << true;
}

// A ledger of schema version 1 (one process at a time, held by a QLockFile beside it, calls
// without owner) opens at version 2 with every call and its history kept. Its unfinished calls
// are ended only once no process of that version holds its lock file.
void TestEffectLedger::migrationFromVersion1KeepsRecords()
{
    QFETCH(bool, earlierProcessAlive);
    const QString at = QStringLiteral("2029-05-06T07:08:09.010Z");
    const auto v1Call = [&](SqlConnection &connection, const QList<EffectState> &path) {
        QSqlDatabase db = connection.database();
        const QString id = QUuid::createUuid().toString(QUuid::WithoutBraces);
        QSqlQuery query(db);
        bool ok = query.exec(QStringLiteral("INSERT INTO effect_calls VALUES ('%1', 'browser.act',"
                                            " '1.7.0', 'click', 'https://old.example', '%2', '%3',"
                                            " 'prepared', NULL, '%4', '%4')")
                                 .arg(id, QString(64, u'a'), QString(64, u'b'), at));
        for (qsizetype seq = 0; seq < path.size(); ++seq) {
            const QString state = effectStateString(path.at(seq));
            if (seq > 0)
                ok = ok && query.exec(QStringLiteral("UPDATE effect_calls SET state = '%1'"
                                                     " WHERE id = '%2'")
                                          .arg(state, id));
            ok = ok && query.exec(QStringLiteral("INSERT INTO effect_transitions VALUES"
                                                 " ('%1', %2, '%3', NULL, 0, '%4')")
                                      .arg(id)
                                      .arg(seq)
                                      .arg(state, at));
        }
        if (!ok)
            qFatal("could not write a version 1 call");
        return QUuid::fromString(id);
    };
    const QList<EffectState> toDispatched{EffectState::Prepared, EffectState::Authorized,
                                          EffectState::DispatchStarted, EffectState::Dispatched};
    QUuid complete;
    QUuid dispatched;
    QUuid inFlight;
    QUuid authorized;
    {
        SqlConnection connection(SqlDialect::Sqlite, QStringLiteral("v1"));
        QVERIFY(connection.openSqliteFile(path()));
        QSqlDatabase db = connection.database();
        const Result<int> version =
            SqlSchemaVersion::migrate(db, SqlDialect::Sqlite, QStringLiteral("effect_ledger"),
                                      EffectLedger::schemaMigrations().first(1),
                                      SqlStoreErrors{ledgerError(LedgerFailure::Unavailable),
                                                     ledgerError(LedgerFailure::SchemaUnknown),
                                                     ledgerError(LedgerFailure::Unavailable)});
        QCOMPARE(version.ok() ? *version : -1, 1);
        complete = v1Call(connection, toDispatched + QList{EffectState::ObservedComplete});
        dispatched = v1Call(connection, toDispatched);
        inFlight = v1Call(connection, toDispatched.first(3));
        authorized = v1Call(connection, toDispatched.first(2));
    }

    std::unique_ptr<QProcess> earlier;
    if (earlierProcessAlive) {
        earlier = startWriter({QStringLiteral("legacy-lock"), path()});
        QCOMPARE(nextLine(*earlier), QByteArray("locked"));
    }
    auto ledger = EffectLedger::open(path());
    QVERIFY2(ledger.ok(), qPrintable(ledger.ok() ? QString() : ledger.error().code));
    EffectLedger &l = *ledger.value();
    const QList<EffectRecord> records = *l.records();
    QCOMPARE(records.size(), 4);
    for (const EffectRecord &record : records) {
        QVERIFY(record.owner.isNull());
        QCOMPARE(record.ownerPid, qint64(0));
        QCOMPARE(record.call.origin, QStringLiteral("https://old.example"));
        QCOMPARE(record.call.argumentDigest, QByteArray::fromHex(QByteArray(64, 'a')));
        QCOMPARE(record.createdAt, QDateTime::fromString(at, Qt::ISODateWithMs));
    }
    QCOMPARE(l.record(complete)->state, EffectState::ObservedComplete);
    QCOMPARE(*l.history(complete), toDispatched + QList{EffectState::ObservedComplete});
    QCOMPARE(l.record(dispatched)->state, EffectState::Dispatched);
    QCOMPARE(*l.history(dispatched), toDispatched);
    QVERIFY(!l.record(complete)->recovered && !l.record(dispatched)->recovered);
    if (earlierProcessAlive) {
        // Its calls may still be in flight: left alone until it is gone.
        QVERIFY(l.recoveredUncertain().isEmpty());
        QVERIFY(l.recoveredUnsent().isEmpty());
        QCOMPARE(l.record(inFlight)->state, EffectState::DispatchStarted);
        QCOMPARE(l.record(authorized)->state, EffectState::Authorized);
        earlier->kill();
        QVERIFY(earlier->waitForFinished(10000));
        auto again = EffectLedger::open(path());
        QVERIFY(again.ok());
        QCOMPARE(again.value()->recoveredUncertain(), QList<QUuid>{inFlight});
        QCOMPARE(again.value()->recoveredUnsent(), QList<QUuid>{authorized});
    } else {
        QCOMPARE(l.recoveredUncertain(), QList<QUuid>{inFlight});
        QCOMPARE(l.recoveredUnsent(), QList<QUuid>{authorized});
    }
    QCOMPARE(l.record(inFlight)->state, EffectState::OutcomeUnknown);
    QVERIFY(l.record(inFlight)->recovered);
    QCOMPARE(*l.history(inFlight), toDispatched.first(3) + QList{EffectState::OutcomeUnknown});
    QCOMPARE(l.record(authorized)->state, EffectState::NotSent);
    // The lock file of the earlier version is gone with its process's calls.
    QVERIFY(!QFile::exists(path() + QStringLiteral(".lock")));

    // New calls name their owner; the database refuses one that does not, and a changed owner.
    const QUuid fresh = callAt(l, EffectState::Prepared);
    QCOMPARE(l.record(fresh)->owner, l.instanceId());
    QCOMPARE(l.record(fresh)->ownerPid, qint64(::getpid()));
    {
        QSqlDatabase db =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw3"));
        db.setDatabaseName(path());
        QVERIFY(db.open());
        QSqlQuery query(db);
        QVERIFY(query.exec(QStringLiteral("SELECT version FROM schema_version"
                                          " WHERE component = 'effect_ledger' ORDER BY version")));
        QList<int> versions;
        while (query.next())
            versions.append(query.value(0).toInt());
        QCOMPARE(versions, QList<int>({1, 2, 3}));
        QVERIFY(!query.exec(QStringLiteral("INSERT INTO effect_calls (id, tool, tool_version,"
                                           " kind, origin, argument_digest, revision_digest,"
                                           " state, created_at, updated_at) VALUES"
                                           " ('00000000-0000-0000-0000-000000000000',"
                                           " 'browser.act', '1.7.0', 'click',"
                                           " 'https://a.example', '") +
                            QString(64, u'a') + QStringLiteral("', '") + QString(64, u'b') +
                            QStringLiteral("', 'prepared', 'x', 'x')")));
        QVERIFY(!query.exec(QStringLiteral("UPDATE effect_calls SET owner = '") +
                            QUuid::createUuid().toString(QUuid::WithoutBraces) +
                            QStringLiteral("' WHERE id = '") +
                            fresh.toString(QUuid::WithoutBraces) + u'\''));
        QVERIFY(!query.exec(QStringLiteral("UPDATE effect_calls SET owner_pid = 1 WHERE id = '") +
                            fresh.toString(QUuid::WithoutBraces) + u'\''));
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw3"));
    QCOMPARE(l.record(fresh)->owner, l.instanceId());
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
        QVERIFY(query.exec(QStringLiteral("INSERT INTO schema_version VALUES ('effect_ledger', %1,"
                                          " 'x')")
                               .arg(EffectLedger::kLatestSchemaVersion + 1)));
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
