#pragma once

#include "domain/Result.h"
#include "domain/action/ActRequest.h"

#include <QByteArray>
#include <QDateTime>
#include <QLatin1String>
#include <QList>
#include <QString>
#include <QUrl>
#include <QUuid>

#include <functional>
#include <memory>
#include <optional>

class QSqlDatabase;

namespace veetbot {

class OwnerLocks;
class SqlConnection;
struct SqlMigration;

// The progress of one tool call that may write to a website, which it reaches at most once:
//
//   prepared --> authorized --> dispatch_started --> dispatched --> observed_complete
//      |             |                 |                  |-------> observed_not_complete
//      v             v                 v                  '-------> outcome_unknown
//   not_sent      not_sent       outcome_unknown
//
// dispatch_started is committed durably before the action is handed to the browser; from
// then on the only endings are dispatched (the act settled and its call ended; completion not
// verified), observed_complete, observed_not_complete (positive evidence of failure) and
// outcome_unknown. Nothing ever goes back, so a call that may have reached the site is never
// sent again.
enum class EffectState
{
    Prepared,
    Authorized,
    NotSent,
    DispatchStarted,
    Dispatched,
    ObservedComplete,
    ObservedNotComplete,
    OutcomeUnknown
};

// What stood behind an act when it was authorized (fixed once recorded). Task and standing
// grants are reserved names.
enum class EffectAuthority
{
    OwnerApproval,       // a fresh, single-use approval of this act
    ScrollPermission,    // the owner's bounded scroll permission
    OrdinaryInteraction, // a routine or unknown control under ordinary interaction
    TaskGrant,
    StandingGrant
};
QString effectAuthorityString(EffectAuthority authority);
std::optional<EffectAuthority> effectAuthorityFromString(const QString &text);

QString effectStateString(EffectState state);
std::optional<EffectState> effectStateFromString(const QString &text);
bool isLegalEffectTransition(EffectState from, EffectState to);
bool isTerminalEffectState(EffectState state);

// The stable failures of the ledger, each with a fixed message.
enum class LedgerFailure
{
    Unavailable,       // ledger.unavailable: the store cannot be opened, read or written
    SchemaUnknown,     // ledger.schema_unknown: a missing, unknown or newer schema version
    NotFound,          // ledger.not_found
    IllegalTransition, // ledger.illegal_transition
    InvalidRecord      // ledger.invalid_record: a call or reason code outside its bounds
};
Error ledgerError(LedgerFailure failure);

// What the ledger knows about a call: content-free by construction. The tool and its
// version, the action kind, the page origin (never a path, query or fragment), the SHA-256
// of the canonical arguments and of the revision. There is no field for typed text, a URL or
// page text.
struct EffectCall
{
    QString tool;              // "browser.act", ...
    QString toolVersion;       // "1.7.0"
    QString kind;              // an act kind, or empty
    QString origin;            // "https://host[:port]"
    QByteArray argumentDigest; // 32 bytes
    QByteArray revisionDigest; // 32 bytes

    // A browser.act call on the page at pageUrl (a public HTTPS URL).
    static EffectCall forAct(const ActRequest &request, const QUrl &pageUrl);
    // A browser.navigate call to `destination` (an address that changes the site) with the
    // arguments' digest, from the page at `revision` (empty when there is none).
    static EffectCall forNavigation(const QUrl &destination, const QByteArray &argumentDigest,
                                    const QString &revision);
    friend bool operator==(const EffectCall &, const EffectCall &) = default;
};

struct EffectRecord
{
    QUuid id;
    EffectCall call;
    EffectState state = EffectState::Prepared;
    QString reasonCode;     // a stable code ("tool.browser.outcome_unknown", ...) or empty
    bool recovered = false; // the last transition was made by the recovery pass at open
    // The ledger instance (one open() in one process) that wrote the call, and that process's
    // id; null and 0 for a call written before the ledger recorded its writers.
    QUuid owner;
    qint64 ownerPid = 0;
    // Set when the call was authorized (calls written before the ledger recorded it have none).
    std::optional<EffectAuthority> authority;
    QDateTime createdAt;
    QDateTime updatedAt;
};

// The durable effect ledger: one SQLite file (WAL, synchronous=FULL, owner-only, versioned
// schema), one row per call plus its transitions. Illegal transitions are refused here and,
// again, by a trigger in the database.
//
// Every agent process of a data directory shares the file: each write is one BEGIN IMMEDIATE
// transaction (one writer at a time; the others wait up to the busy timeout), and each open
// ledger is an owner instance that names itself on every call it writes and holds an
// exclusive flock on its own file in "<ledger>.owners/" for as long as it is open.
//
// Opening the ledger runs the recovery pass over the calls whose owner is provably gone (its
// lock file can be locked, or is missing): a call left at dispatch_started becomes
// outcome_unknown (it may have reached the site and is never resent), and one left at
// prepared or authorized becomes not_sent (dispatch_started is committed before any
// dispatch, so it cannot have been sent). A live owner's calls are never touched. A call at
// dispatched is a settled act whose completion nobody verified; the pipeline records it only
// once its call is over, so recovery leaves it as it is.
// Stores no typed text, URL path or query, or page text; errors never carry database text.
// Single-threaded: use it from the thread that opened it.
class EffectLedger
{
public:
    using Clock = std::function<QDateTime()>;

    inline static constexpr QLatin1String kRecoveredUncertainCode{"tool.browser.outcome_unknown"};
    inline static constexpr QLatin1String kRecoveredUnsentCode{
        "ledger.interrupted_before_dispatch"};
    static constexpr int kLatestSchemaVersion = 3;

    // QStandardPaths::GenericDataLocation + "/veetbot/effects.sqlite".
    static QString defaultPath();
    static Result<std::unique_ptr<EffectLedger>> open(const QString &path = QString(),
                                                      Clock clock = {});
    // The released schema migrations, version 1 first; never edited once released.
    static QList<SqlMigration> schemaMigrations();
    ~EffectLedger();
    EffectLedger(const EffectLedger &) = delete;
    EffectLedger &operator=(const EffectLedger &) = delete;

    // This open ledger as the owner of the calls it writes.
    const QUuid &instanceId() const { return m_instance; }

    // The calls the recovery pass at open ended, and how.
    const QList<QUuid> &recoveredUncertain() const { return m_recoveredUncertain; }
    const QList<QUuid> &recoveredUnsent() const { return m_recoveredUnsent; }

    Result<QUuid> prepare(const EffectCall &call);
    Result<Unit> authorize(const QUuid &id, EffectAuthority authority);
    // reasonCode: the stable refusal ("tool.approval_denied", "tool.browser.page_changed").
    Result<Unit> markNotSent(const QUuid &id, const QString &reasonCode);
    // Committed (fsync) before it returns; dispatch only after it succeeded.
    Result<Unit> beginDispatch(const QUuid &id);
    Result<Unit> markDispatched(const QUuid &id);
    Result<Unit> markObservedComplete(const QUuid &id);
    Result<Unit> markObservedNotComplete(const QUuid &id, const QString &reasonCode = QString());
    Result<Unit> markOutcomeUnknown(const QUuid &id,
                                    const QString &reasonCode = QString(kRecoveredUncertainCode));

    Result<EffectRecord> record(const QUuid &id) const;
    // Every call, oldest first.
    Result<QList<EffectRecord>> records() const;
    // The states a call went through, in order.
    Result<QList<EffectState>> history(const QUuid &id) const;

private:
    explicit EffectLedger(Clock clock);
    QSqlDatabase database() const;
    Result<Unit> transition(const QUuid &id, EffectState to, const QString &reasonCode,
                            std::optional<EffectAuthority> authority = std::nullopt);
    Result<Unit> recover(const QString &legacyLockPath);
    QDateTime now() const;

    Clock m_clock;
    QUuid m_instance;
    qint64 m_pid = 0;
    std::unique_ptr<OwnerLocks> m_owners;
    std::unique_ptr<SqlConnection> m_connection; // after m_owners: closed before it goes
    QList<QUuid> m_recoveredUncertain;
    QList<QUuid> m_recoveredUnsent;
};

} // namespace veetbot
