#pragma once

#include "domain/authority/TaskScope.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/signin/AuthenticationCeremony.h"
#include "ports/ActivityTimeline.h"
#include "ports/BrowserProfileRepository.h"
#include "ports/ScheduleStore.h"
#include "ports/StandingGrantStore.h"
#include "ports/TaskGrantStore.h"
#include "ports/TaskRunStore.h"

#include <QDateTime>
#include <QObject>
#include <QSqlDatabase>
#include <QTest>

#include <functional>
#include <memory>
#include <optional>

namespace veetbot {
// Readable QCOMPARE failures (test output only).
char *toString(const BrowserProfile &profile);
char *toString(const ProfileStatus &status);
char *toString(const AuthenticationCeremony &ceremony);
char *toString(const CeremonyStatus &status);
char *toString(const TaskScopePolicy &policy);
char *toString(const TaskScopeChange::Kind &kind);
char *toString(const TaskScopeSource &source);
} // namespace veetbot

// Fails the current test unless `result` failed with exactly this stable error (code and
// fixed message).
#define VERIFY_PROFILE_FAILURE(result, failure)                                                    \
    do {                                                                                           \
        const auto &verifyResult_ = (result);                                                      \
        QVERIFY2(!verifyResult_.ok(), "expected a failure, got success");                          \
        QCOMPARE(verifyResult_.error().code, veetbot::profileFailureString(failure));              \
        QCOMPARE(verifyResult_.error().message, veetbot::profileFailureMessage(failure));          \
    } while (false)

// The same for a task-scope failure.
#define VERIFY_SCOPE_FAILURE(result, failure)                                                      \
    do {                                                                                           \
        const auto &verifyResult_ = (result);                                                      \
        QVERIFY2(!verifyResult_.ok(), "expected a failure, got success");                          \
        QCOMPARE(verifyResult_.error(), veetbot::taskScopeError(failure));                         \
    } while (false)

#define VERIFY_OK(result)                                                                          \
    do {                                                                                           \
        const auto &verifyResult_ = (result);                                                      \
        QVERIFY2(verifyResult_.ok(),                                                               \
                 verifyResult_.ok() ? "" : qPrintable(verifyResult_.error().code));                \
    } while (false)

// An adapter's store for each port (null where it keeps none) and what owns them: the in-memory
// adapter is one object for every port, the SQL adapter one store per port over one session.
struct MetadataPorts
{
    std::shared_ptr<void> owner;
    veetbot::BrowserProfileRepository *profiles = nullptr;
    veetbot::TaskGrantStore *taskGrants = nullptr;
    veetbot::StandingGrantStore *standingGrants = nullptr;
    veetbot::ActivityTimeline *timeline = nullptr;
    veetbot::TaskRunStore *taskRuns = nullptr;
    veetbot::ScheduleStore *schedules = nullptr;

    explicit operator bool() const { return profiles != nullptr; }
    veetbot::BrowserProfileRepository *operator->() const { return profiles; }
    veetbot::BrowserProfileRepository &operator*() const { return *profiles; }
};

// The SQL adapter's stores as MetadataPorts (null when it could not be opened).
template <typename Stores> MetadataPorts portsOfStores(std::unique_ptr<Stores> opened)
{
    if (!opened)
        return {};
    std::shared_ptr<Stores> stores(std::move(opened));
    return {stores,
            &stores->profiles(),
            &stores->taskGrants(),
            &stores->standingGrants(),
            &stores->timeline(),
            &stores->taskRuns(),
            &stores->schedules()};
}

// The one contract every BrowserProfileRepository adapter passes. An adapter's test derives
// from this class, supplies createRepository() (and, if it needs a store, initAdapter()/
// cleanupAdapter()), and may add slots of its own; Qt Test runs the inherited contract slots
// first. Each test function gets a fresh repository and fresh random scopes, so adapters
// backed by a shared store need no cleaning between functions.
class ProfileRepositoryContract : public QObject
{
    Q_OBJECT

protected:
    // A repository on the adapter's store using the given clock; null when it cannot be
    // opened (the test then fails).
    virtual MetadataPorts createRepository(veetbot::ProfileClock clock) = 0;
    // Whole-test-case set-up and tear-down; may fail the test with QFAIL.
    virtual void initAdapter() {}
    virtual void cleanupAdapter() {}
    // Whether two instances from createRepository() share one store (the SQL adapters).
    virtual bool isSharedStore() const { return true; }

    veetbot::BrowserProfileRepository &repository() { return *m_repository; }
    const MetadataPorts &ports() const { return m_repository; }
    void resetRepository() { m_repository = {}; }
    veetbot::ProfileClock clock()
    {
        return [this] { return m_now; };
    }
    QDateTime now() const { return m_now; }
    void tick() { m_now = m_now.addMSecs(1001); }
    void advance(qint64 seconds) { m_now = m_now.addSecs(seconds); }

    static veetbot::Origin origin(const QString &text);
    static QList<veetbot::Origin> twoOrigins();
    static veetbot::ProfileScope newScope();
    static veetbot::ProfileScope otherPrincipal(const veetbot::ProfileScope &scope);
    static veetbot::ProfileScope otherTenant(const veetbot::ProfileScope &scope);
    veetbot::BrowserProfile reservation(const veetbot::ProfileScope &scope,
                                        QList<veetbot::Origin> origins = {}) const;
    // Creates a profile in scope and walks it to status through the repository; a REVOKED
    // profile is bound first unless bound is false.
    veetbot::Result<veetbot::BrowserProfile>
    createIn(const veetbot::ProfileScope &scope, veetbot::ProfileStatus status, bool bound = true);
    // A ceremony id as the service mints them.
    static QString newCeremonyId();
    // A launch that counts its calls (when calls is given) and answers id (a fresh one when
    // empty) expiring five minutes after the test clock's now.
    veetbot::BrowserProfileRepository::CeremonyLaunch launcher(int *calls = nullptr,
                                                               const QString &id = QString());
    // Begins a device ceremony for profile at its current generation.
    veetbot::Result<veetbot::CeremonyBegun> beginFor(const veetbot::ProfileScope &scope,
                                                     const veetbot::BrowserProfile &profile,
                                                     int *calls = nullptr);

    // For adapters whose instances share one store: two instances, each opened by `open` and
    // used on a thread of its own, begin a ceremony for one profile at once. The second one
    // starts while the first is inside its launch; exactly one launch runs, one begin
    // succeeds and the other, having waited for the first, sees its ceremony.
    void verifyConcurrentBeginsAdmitOne(const std::function<MetadataPorts()> &open);

    // A task scope for test lists ("https://www.acme-school.com/<segment>").
    static veetbot::TaskScope
    taskScope(const QString &segment,
              const QString &origin = QStringLiteral("https://www.acme-school.com"));
    // For adapters whose instances share one store: two instances, on threads of their own,
    // replace one scope's list at once from the same revision (firstSave: the list was never
    // saved, else it was). Exactly one wins, the other is scope.conflict, and one audit
    // record is appended.
    void verifyConcurrentScopeEditsAdmitOne(const std::function<MetadataPorts()> &open,
                                            bool firstSave);

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void cleanup();

    void createAndGetRoundTrip();
    void createRejectsInvalidProfiles();
    void createDetectsConflicts();
    void listIsScopedAndOrdered();
    void legalTransitions_data();
    void legalTransitions();
    void illegalTransitions_data();
    void illegalTransitions();
    void bindOnlyFromProvisioning();
    void bindConsistency();
    void bindConflictLeavesProfileUnchanged();
    void staleGenerationVersusMissing();
    void secondWriterWithSameGenerationIsStale();
    void otherPrincipalSeesNotFound();
    void otherTenantSeesNotFound();
    void removeOnlyFromRevoked();
    void lastUsedDoesNotBumpGeneration();
    void advanceGenerationKeepsStatus();
    void updateKeyVersion();
    void originsRoundTripSorted();
    void errorsAreContentFree();

    void ceremonyBeginAdvancesGenerationAndRecords();
    void ceremonyWhileOneIsOpenConflictsWithoutLaunching();
    void ceremonyBeginAfterExpirySucceeds();
    void ceremonyLaunchFailureStoresNothing();
    void ceremonyBeginChecksGenerationAndState();
    void ceremonyBeginRefusesMalformedInput();
    void ceremonyOfAnotherScopeIsNotFound();
    void ceremonyReadyMakesProfileReady();
    void ceremonyReadyRecordsTheConfirmedAccount();
    void ceremonyOtherOutcomesLeaveStatus();
    void ceremonyTerminalIsTerminal();
    void ceremonyReadyForRevokedProfileFails();
    void ceremonyReadPastExpiryReportsExpired();
    void ceremonyRecordsGoWithTheProfile();

    void taskScopesNeverSavedReadEmpty();
    void taskScopesReplaceRoundTripsCanonically();
    void taskScopesStaleEditConflicts();
    void taskScopesReplayAnswersWithoutSecondAudit();
    void taskScopesSameListStoresNothing();
    void taskScopesRemovalReportsRemovedEntries();
    void taskScopesBoundsAndDuplicatesStoreNothing();
    void taskScopesSavedEmptyListStopsTheSeed();
    void taskScopesSeedAppliesOnce();
    void taskScopesAreScoped();
    void taskScopesRefuseMalformedScope();
    // Task grants (TaskGrantContract.cpp): every adapter is also a TaskGrantStore.
    void taskGrantCreateUseAndAudit();
    void taskGrantNeedsAConfiguredScope();
    void taskGrantUnavailableWhileSignInIsOpen();
    void taskGrantUnavailableForAProfileNotReady();
    void taskGrantEnds_data();
    void taskGrantEnds();
    void taskGrantSupersededBySecondInSession();
    void taskGrantRevokedAtNextUse();
    void taskGrantTwoHundredUsesThenExhausted();
    void taskGrantTypedCharacterCap();
    void taskGrantsAreScopedAndPerSession();
    void taskGrantListingEndsDeadGrants();

protected:
    // The repository as a task-grant store (null for an adapter that is not one: a failure).
    veetbot::TaskGrantStore *taskGrants();
    // Pins for a session on a READY profile, at its current generation.
    static veetbot::TaskGrantPins pinsFor(const veetbot::BrowserProfile &profile,
                                          const QUuid &session = QUuid::createUuid());
    // A READY profile in scope, a saved scope list holding "lesson", and a grant made on it.
    struct GrantSetUp
    {
        veetbot::BrowserProfile profile;
        veetbot::TaskGrantPins pins;
        QUuid grant;
    };
    std::optional<GrantSetUp> setUpGrant(const veetbot::ProfileScope &scope);
    // For adapters whose instances share one store: two instances on threads of their own use
    // a grant holding 199 uses at once. Exactly one gets the 200th use; the other is refused;
    // the grant ends exhausted with exactly 200 authorized records and one ended record.
    void verifyConcurrentGrantUsesAdmitOne(const std::function<MetadataPorts()> &open);

private:
    // Every scoped call an outsider could make on id, each expected to be not_found.
    void verifyInvisible(const veetbot::ProfileScope &outsider, const QUuid &id, qint64 generation);

    QDateTime m_now;
    MetadataPorts m_repository;
};

// A uniquely named raw QSqlDatabase connection for a test, closed and removed on
// destruction. Every QSqlQuery on it must be destroyed first (use a narrower scope).
class ScopedConnection
{
public:
    explicit ScopedConnection(const QString &driver);
    ~ScopedConnection();
    ScopedConnection(const ScopedConnection &) = delete;
    ScopedConnection &operator=(const ScopedConnection &) = delete;
    QSqlDatabase &db() { return m_db; }

private:
    QString m_name;
    QSqlDatabase m_db;
};

// Checks on a SQL store shared by the SQLite and PostgreSQL tests.
namespace ProfileStoreChecks {
// Executes one statement inside a savepoint (PostgreSQL aborts a transaction on a failed
// statement) and answers whether it succeeded; a statement that does not prepare is a broken
// test (qFatal).
bool probe(QSqlDatabase &db, const QString &sql, const QList<std::pair<QString, QVariant>> &values);
// No column of any profile table is named like material, cookie, token, blob, secret,
// credential, password, storage, header, capability or URL, and none has a binary type.
void verifyNoSecretColumns(const QList<std::pair<QString, QString>> &columnsAndTypes);
// Raw ceremony inserts that break a schema constraint fail: unknown mode, status or failure
// code, a failure code without FAILED or FAILED without one, a finish time on an open record
// or none on a finished one, an expiry not after creation, an uppercase id (SQLite), a record
// of no profile or of another principal's profile. Same transaction rules as
// verifyConstraints.
void verifyCeremonyConstraints(QSqlDatabase &db, const QString &tenant);
// Raw inserts that break a schema constraint fail: unknown status, negative generation,
// partial or misplaced binding, duplicate non-null reference; two unbound reservations
// coexist. db must be inside a transaction (and, for PostgreSQL, have the tenant set).
void verifyConstraints(QSqlDatabase &db, const QString &tenant);
// Raw task-scope inserts that break a schema constraint fail: a policy revision below 1, an
// unknown source, a second policy row for one principal; an entry without a policy row, at
// an ordinal outside 0-15, at a taken ordinal, repeating an entry, with an empty or 65-character
// segment; an audit record of an unknown kind or source, revision 0, or a revision already
// recorded. Same transaction rules as verifyConstraints.
void verifyTaskScopeConstraints(QSqlDatabase &db, const QString &tenant);
// Raw task-grant writes that break a fixed limit fail: an expiry other than thirty minutes
// after creation, an action cap other than 200, 201 uses (inserted or updated), more than
// 4,096 typed characters, an unknown end reason, an end time without a reason, a second
// unended grant of one session; and audit records of an unknown kind, a second created or
// ended record, an authorized record without an ordinal or repeating one. Same transaction
// rules as verifyConstraints.
void verifyTaskGrantConstraints(QSqlDatabase &db, const QString &tenant);
} // namespace ProfileStoreChecks
