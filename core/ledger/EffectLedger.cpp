#include "EffectLedger.h"

#include "OwnerLocks.h"
#include "domain/Sha256.h"
#include "storage/SqlDatabase.h"
#include "storage/SqlQueries.h"

#include <QDir>
#include <QFileInfo>
#include <QLockFile>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QVariant>

#include <unistd.h>

namespace veetbot {

namespace {

using SqlQueries::Bindings;

constexpr char16_t kComponent[] = u"effect_ledger";

constexpr EffectState kAllStates[] = {
    EffectState::Prepared,
    EffectState::Authorized,
    EffectState::NotSent,
    EffectState::DispatchStarted,
    EffectState::Dispatched,
    EffectState::ObservedComplete,
    EffectState::ObservedNotComplete,
    EffectState::OutcomeUnknown,
};

QString timeText(const QDateTime &time)
{
    return time.toUTC().toString(Qt::ISODateWithMs);
}

QString idText(const QUuid &id)
{
    return id.toString(QUuid::WithoutBraces);
}

QVariant nullableText(const QString &text)
{
    return text.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(text);
}

using SqlQueries::run;

// The ledger's own codes for what SqlSchemaVersion reports.
SqlStoreErrors sqlErrors()
{
    return SqlStoreErrors{ledgerError(LedgerFailure::Unavailable),
                          ledgerError(LedgerFailure::SchemaUnknown),
                          ledgerError(LedgerFailure::Unavailable)};
}

// A stable code: lower-case words joined by dots and underscores, at most 64 characters.
bool validReasonCode(const QString &code)
{
    static const QRegularExpression pattern(QStringLiteral("^[a-z][a-z_]*(\\.[a-z][a-z_]*)+$"));
    return code.size() <= 64 && pattern.match(code).hasMatch();
}

bool validCall(const EffectCall &call)
{
    static const QRegularExpression tool(QStringLiteral("^[a-z][a-z_]*(\\.[a-z][a-z_]*)+$"));
    static const QRegularExpression version(QStringLiteral("^[0-9]+\\.[0-9]+\\.[0-9]+$"));
    static const QRegularExpression origin(
        QStringLiteral("^https://[a-z0-9.-]{1,253}(:[0-9]{1,5})?$"));
    return call.tool.size() <= 64 && tool.match(call.tool).hasMatch() &&
           call.toolVersion.size() <= 16 && version.match(call.toolVersion).hasMatch() &&
           (call.kind.isEmpty() || actKindFromString(call.kind).has_value()) &&
           origin.match(call.origin).hasMatch() && call.argumentDigest.size() == 32 &&
           call.revisionDigest.size() == 32;
}

QString stateList()
{
    QStringList words;
    for (EffectState state : kAllStates)
        words << u'\'' + effectStateString(state) + u'\'';
    return words.join(QStringLiteral(", "));
}

// The legal transitions as an SQL condition over OLD.state and NEW.state.
QString legalTransitionCondition()
{
    QStringList alternatives;
    for (EffectState from : kAllStates) {
        QStringList targets;
        for (EffectState to : kAllStates) {
            if (isLegalEffectTransition(from, to))
                targets << u'\'' + effectStateString(to) + u'\'';
        }
        if (!targets.isEmpty())
            alternatives << QStringLiteral("(OLD.state = '%1' AND NEW.state IN (%2))")
                                .arg(effectStateString(from), targets.join(QStringLiteral(", ")));
    }
    return alternatives.join(QStringLiteral(" OR "));
}

QStringList migrationVersion1()
{
    const QString states = stateList();
    return {
        QStringLiteral("CREATE TABLE effect_calls ("
                       "id TEXT NOT NULL PRIMARY KEY CHECK (length(id) = 36),"
                       "tool TEXT NOT NULL CHECK (length(tool) BETWEEN 1 AND 64),"
                       "tool_version TEXT NOT NULL CHECK (length(tool_version) BETWEEN 1 AND 16),"
                       "kind TEXT CHECK (kind IS NULL OR kind IN"
                       " ('click', 'type', 'select', 'check', 'press', 'scroll')),"
                       "origin TEXT NOT NULL CHECK (length(origin) BETWEEN 9 AND 300),"
                       "argument_digest TEXT NOT NULL CHECK (length(argument_digest) = 64),"
                       "revision_digest TEXT NOT NULL CHECK (length(revision_digest) = 64),"
                       "state TEXT NOT NULL CHECK (state IN (") +
            states +
            QStringLiteral(")),"
                           "reason_code TEXT CHECK (reason_code IS NULL"
                           " OR length(reason_code) BETWEEN 3 AND 64),"
                           "created_at TEXT NOT NULL,"
                           "updated_at TEXT NOT NULL"
                           ") STRICT"),
        QStringLiteral("CREATE INDEX effect_calls_state ON effect_calls (state)"),
        QStringLiteral("CREATE TABLE effect_transitions ("
                       "call_id TEXT NOT NULL REFERENCES effect_calls (id) ON DELETE CASCADE,"
                       "seq INTEGER NOT NULL CHECK (seq >= 0),"
                       "state TEXT NOT NULL CHECK (state IN (") +
            states +
            QStringLiteral(")),"
                           "reason_code TEXT,"
                           "recovered INTEGER NOT NULL CHECK (recovered IN (0, 1)),"
                           "at TEXT NOT NULL,"
                           "PRIMARY KEY (call_id, seq)"
                           ") STRICT"),
        // A call starts prepared, and moves only along the legal transitions.
        QStringLiteral("CREATE TRIGGER effect_calls_start_prepared BEFORE INSERT ON effect_calls"
                       " WHEN NEW.state <> 'prepared'"
                       " BEGIN SELECT RAISE(ABORT, 'effect ledger: illegal start'); END"),
        QStringLiteral("CREATE TRIGGER effect_calls_legal_transition"
                       " BEFORE UPDATE OF state ON effect_calls WHEN NOT (") +
            legalTransitionCondition() +
            QStringLiteral(") BEGIN SELECT RAISE(ABORT, 'effect ledger: illegal transition'); END"),
        QStringLiteral("CREATE TRIGGER effect_calls_identity_fixed"
                       " BEFORE UPDATE OF id, tool, tool_version, kind, origin, argument_digest,"
                       " revision_digest, created_at ON effect_calls"
                       " BEGIN SELECT RAISE(ABORT, 'effect ledger: fixed column'); END"),
    };
}

// Version 2, the ledger shared by several processes: every call names the ledger instance
// that wrote it (its owner) and that process's id, fixed once written. Calls written before
// have neither; they are the earlier single-process ledger's.
QStringList migrationVersion2()
{
    return {
        QStringLiteral("ALTER TABLE effect_calls ADD COLUMN owner TEXT"
                       " CHECK (owner IS NULL OR length(owner) = 36)"),
        QStringLiteral("ALTER TABLE effect_calls ADD COLUMN owner_pid INTEGER"
                       " CHECK (owner_pid IS NULL OR owner_pid > 0)"),
        QStringLiteral("CREATE TRIGGER effect_calls_start_owned BEFORE INSERT ON effect_calls"
                       " WHEN NEW.owner IS NULL OR NEW.owner_pid IS NULL"
                       " BEGIN SELECT RAISE(ABORT, 'effect ledger: no owner'); END"),
        QStringLiteral("DROP TRIGGER effect_calls_identity_fixed"),
        QStringLiteral("CREATE TRIGGER effect_calls_identity_fixed"
                       " BEFORE UPDATE OF id, tool, tool_version, kind, origin, argument_digest,"
                       " revision_digest, created_at, owner, owner_pid ON effect_calls"
                       " BEGIN SELECT RAISE(ABORT, 'effect ledger: fixed column'); END"),
    };
}

// Version 3: the authority behind each act, recorded with its authorization and fixed after.
QStringList migrationVersion3()
{
    return {
        QStringLiteral("ALTER TABLE effect_calls ADD COLUMN authority TEXT"
                       " CHECK (authority IS NULL OR authority IN ('owner_approval',"
                       " 'scroll_permission', 'ordinary_interaction', 'task_grant',"
                       " 'standing_grant'))"),
        QStringLiteral("CREATE TRIGGER effect_calls_authority_once"
                       " BEFORE UPDATE OF authority ON effect_calls"
                       " WHEN NEW.authority IS NOT OLD.authority AND (OLD.authority IS NOT NULL"
                       " OR NEW.state <> 'authorized')"
                       " BEGIN SELECT RAISE(ABORT, 'effect ledger: fixed authority'); END"),
    };
}

std::optional<QDateTime> decodeTime(const QVariant &value)
{
    const QString text = value.toString();
    if (!text.endsWith(u'Z'))
        return std::nullopt;
    const QDateTime time = QDateTime::fromString(text, Qt::ISODateWithMs);
    if (!time.isValid())
        return std::nullopt;
    return time.toUTC();
}

const QString kRecordColumns = QStringLiteral(
    "c.id, c.tool, c.tool_version, c.kind, c.origin, c.argument_digest, c.revision_digest,"
    " c.state, c.reason_code, c.created_at, c.updated_at,"
    " (SELECT t.recovered FROM effect_transitions t WHERE t.call_id = c.id"
    "  ORDER BY t.seq DESC LIMIT 1),"
    " c.owner, c.owner_pid, c.authority");

Result<EffectRecord> decodeRecord(const QSqlQuery &query)
{
    EffectRecord record;
    record.id = QUuid::fromString(query.value(0).toString());
    record.call.tool = query.value(1).toString();
    record.call.toolVersion = query.value(2).toString();
    record.call.kind = query.value(3).isNull() ? QString() : query.value(3).toString();
    record.call.origin = query.value(4).toString();
    record.call.argumentDigest = QByteArray::fromHex(query.value(5).toString().toLatin1());
    record.call.revisionDigest = QByteArray::fromHex(query.value(6).toString().toLatin1());
    const std::optional<EffectState> state = effectStateFromString(query.value(7).toString());
    record.reasonCode = query.value(8).isNull() ? QString() : query.value(8).toString();
    const std::optional<QDateTime> created = decodeTime(query.value(9));
    const std::optional<QDateTime> updated = decodeTime(query.value(10));
    record.recovered = query.value(11).toInt() == 1;
    const bool owned = !query.value(12).isNull();
    record.owner = owned ? QUuid::fromString(query.value(12).toString()) : QUuid();
    record.ownerPid = query.value(13).toLongLong();
    if (!query.value(14).isNull()) {
        record.authority = effectAuthorityFromString(query.value(14).toString());
        if (!record.authority)
            return ledgerError(LedgerFailure::Unavailable);
    }
    if (record.id.isNull() || !state || !created || !updated || !validCall(record.call) ||
        (owned && record.owner.isNull()))
        return ledgerError(LedgerFailure::Unavailable);
    record.state = *state;
    record.createdAt = *created;
    record.updatedAt = *updated;
    return record;
}

} // namespace

QString effectAuthorityString(EffectAuthority authority)
{
    switch (authority) {
    case EffectAuthority::OwnerApproval:
        return QStringLiteral("owner_approval");
    case EffectAuthority::ScrollPermission:
        return QStringLiteral("scroll_permission");
    case EffectAuthority::OrdinaryInteraction:
        return QStringLiteral("ordinary_interaction");
    case EffectAuthority::TaskGrant:
        return QStringLiteral("task_grant");
    case EffectAuthority::StandingGrant:
        return QStringLiteral("standing_grant");
    }
    return QStringLiteral("owner_approval");
}

std::optional<EffectAuthority> effectAuthorityFromString(const QString &text)
{
    for (const EffectAuthority authority :
         {EffectAuthority::OwnerApproval, EffectAuthority::ScrollPermission,
          EffectAuthority::OrdinaryInteraction, EffectAuthority::TaskGrant,
          EffectAuthority::StandingGrant}) {
        if (effectAuthorityString(authority) == text)
            return authority;
    }
    return std::nullopt;
}

QString effectStateString(EffectState state)
{
    switch (state) {
    case EffectState::Prepared:
        return QStringLiteral("prepared");
    case EffectState::Authorized:
        return QStringLiteral("authorized");
    case EffectState::NotSent:
        return QStringLiteral("not_sent");
    case EffectState::DispatchStarted:
        return QStringLiteral("dispatch_started");
    case EffectState::Dispatched:
        return QStringLiteral("dispatched");
    case EffectState::ObservedComplete:
        return QStringLiteral("observed_complete");
    case EffectState::ObservedNotComplete:
        return QStringLiteral("observed_not_complete");
    case EffectState::OutcomeUnknown:
        return QStringLiteral("outcome_unknown");
    }
    Q_UNREACHABLE();
    return QString();
}

std::optional<EffectState> effectStateFromString(const QString &text)
{
    for (EffectState state : kAllStates) {
        if (effectStateString(state) == text)
            return state;
    }
    return std::nullopt;
}

bool isLegalEffectTransition(EffectState from, EffectState to)
{
    switch (from) {
    case EffectState::Prepared:
        return to == EffectState::Authorized || to == EffectState::NotSent;
    case EffectState::Authorized:
        return to == EffectState::DispatchStarted || to == EffectState::NotSent;
    case EffectState::DispatchStarted:
        return to == EffectState::Dispatched || to == EffectState::OutcomeUnknown;
    case EffectState::Dispatched:
        return to == EffectState::ObservedComplete || to == EffectState::ObservedNotComplete ||
               to == EffectState::OutcomeUnknown;
    case EffectState::NotSent:
    case EffectState::ObservedComplete:
    case EffectState::ObservedNotComplete:
    case EffectState::OutcomeUnknown:
        return false;
    }
    return false;
}

bool isTerminalEffectState(EffectState state)
{
    for (EffectState to : kAllStates) {
        if (isLegalEffectTransition(state, to))
            return false;
    }
    return true;
}

Error ledgerError(LedgerFailure failure)
{
    switch (failure) {
    case LedgerFailure::Unavailable:
        return Error{QStringLiteral("ledger.unavailable"),
                     QStringLiteral("The effect ledger is not available.")};
    case LedgerFailure::SchemaUnknown:
        return Error{QStringLiteral("ledger.schema_unknown"),
                     QStringLiteral("The effect ledger has an unknown schema version.")};
    case LedgerFailure::NotFound:
        return Error{QStringLiteral("ledger.not_found"),
                     QStringLiteral("The effect ledger has no such call.")};
    case LedgerFailure::IllegalTransition:
        return Error{QStringLiteral("ledger.illegal_transition"),
                     QStringLiteral("The call cannot move to that state from where it is.")};
    case LedgerFailure::InvalidRecord:
        return Error{QStringLiteral("ledger.invalid_record"),
                     QStringLiteral("The effect record is outside its bounds.")};
    }
    Q_UNREACHABLE();
    return Error{};
}

EffectCall EffectCall::forAct(const ActRequest &request, const QUrl &pageUrl)
{
    QString origin = QStringLiteral("https://") + pageUrl.host(QUrl::FullyEncoded).toLower();
    if (pageUrl.port(443) != 443)
        origin += u':' + QString::number(pageUrl.port());
    return EffectCall{
        QStringLiteral("browser.act"), QStringLiteral("1.7.0"),
        actKindString(request.kind()), origin,
        request.argumentDigest(),      Sha256::digest(request.expectedRevision().toUtf8())};
}

EffectCall EffectCall::forNavigation(const QUrl &destination, const QByteArray &argumentDigest,
                                     const QString &revision)
{
    QString origin = QStringLiteral("https://") + destination.host(QUrl::FullyEncoded).toLower();
    if (destination.port(443) != 443)
        origin += u':' + QString::number(destination.port());
    return EffectCall{QStringLiteral("browser.navigate"),
                      QStringLiteral("1.7.0"),
                      QString(),
                      origin,
                      argumentDigest,
                      Sha256::digest(revision.toUtf8())};
}

EffectLedger::EffectLedger(Clock clock)
    : m_clock(std::move(clock)), m_connection(std::make_unique<SqlConnection>(
                                     SqlDialect::Sqlite, QStringLiteral("veetbot.effects")))
{
}

// The connection closes before the owner lock is released (members go in reverse order).
EffectLedger::~EffectLedger() = default;

QList<SqlMigration> EffectLedger::schemaMigrations()
{
    return {SqlMigration{1, migrationVersion1()}, SqlMigration{2, migrationVersion2()},
            SqlMigration{3, migrationVersion3()}};
}

QString EffectLedger::defaultPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/veetbot/effects.sqlite");
}

QDateTime EffectLedger::now() const
{
    return (m_clock ? m_clock() : QDateTime::currentDateTimeUtc()).toUTC();
}

QSqlDatabase EffectLedger::database() const
{
    return m_connection->database();
}

Result<std::unique_ptr<EffectLedger>> EffectLedger::open(const QString &path, Clock clock)
{
    if (!SqlConnection::isDriverAvailable(SqlDialect::Sqlite))
        return ledgerError(LedgerFailure::Unavailable);
    const QString filePath = path.isEmpty() ? defaultPath() : path;
    if (filePath.isEmpty() || !QDir().mkpath(QFileInfo(filePath).absolutePath()))
        return ledgerError(LedgerFailure::Unavailable);

    std::unique_ptr<EffectLedger> ledger(new EffectLedger(std::move(clock)));
    // synchronous=FULL: dispatch_started must survive a crash of the process or the machine
    // right after its commit. The busy timeout lets writers of other processes take turns.
    if (!ledger->m_connection->openSqliteFile(filePath))
        return ledgerError(LedgerFailure::Unavailable);

    // Migrate forward in one transaction; a process opening the ledger at the same time
    // waits for it and then finds the schema current.
    QSqlDatabase db = ledger->database();
    SqlTransaction transaction(db, SqlDialect::Sqlite);
    if (!transaction.begin(SqlTransaction::Access::Write))
        return ledgerError(LedgerFailure::Unavailable);
    const Result<int> migrated = SqlSchemaVersion::migrate(
        db, SqlDialect::Sqlite, QString::fromUtf16(kComponent), schemaMigrations(), sqlErrors());
    if (!migrated)
        return migrated.error();
    if (!transaction.commit())
        return ledgerError(LedgerFailure::Unavailable);

    // This instance is alive, for every other process, from before its first call.
    ledger->m_owners = OwnerLocks::open(filePath);
    if (!ledger->m_owners)
        return ledgerError(LedgerFailure::Unavailable);
    ledger->m_instance = ledger->m_owners->instance();
    ledger->m_pid = ::getpid();
    // The earlier single-process ledger held a QLockFile beside the file for its lifetime.
    if (const Result<Unit> recovered = ledger->recover(filePath + QStringLiteral(".lock"));
        !recovered)
        return recovered.error();
    ledger->m_owners->sweep();
    return ledger;
}

Result<Unit> EffectLedger::recover(const QString &legacyLockPath)
{
    QSqlDatabase db = database();
    SqlTransaction transaction(db, SqlDialect::Sqlite);
    if (!transaction.begin(SqlTransaction::Access::Write))
        return ledgerError(LedgerFailure::Unavailable);
    const QString at = timeText(now());
    // A call written before owners were recorded belongs to the earlier single-process ledger:
    // its process is gone when its lock file can be taken (then released, and so removed,
    // when this ledger has gone through the calls).
    std::unique_ptr<QLockFile> legacyLock;
    std::optional<bool> legacyGone;
    const auto ownerGone = [&](const QVariant &owner) {
        if (!owner.isNull())
            return m_owners->isGone(QUuid::fromString(owner.toString()));
        if (!legacyGone) {
            legacyLock = std::make_unique<QLockFile>(legacyLockPath);
            legacyLock->setStaleLockTime(0); // only a dead holder's lock is stale
            legacyGone = legacyLock->tryLock(0);
        }
        return *legacyGone;
    };
    const auto body = [&]() -> Result<Unit> {
        QSqlQuery open(db);
        if (!open.exec(QStringLiteral("SELECT id, state, owner FROM effect_calls WHERE state IN"
                                      " ('prepared', 'authorized', 'dispatch_started')"
                                      " ORDER BY created_at")))
            return ledgerError(LedgerFailure::Unavailable);
        QList<std::pair<QString, EffectState>> interrupted;
        while (open.next()) {
            const std::optional<EffectState> state =
                effectStateFromString(open.value(1).toString());
            if (!state)
                return ledgerError(LedgerFailure::Unavailable);
            // A live owner's call is in flight, not interrupted.
            if (ownerGone(open.value(2)))
                interrupted.append({open.value(0).toString(), *state});
        }
        for (const auto &[id, state] : interrupted) {
            const bool maybeSent = state == EffectState::DispatchStarted;
            const EffectState to = maybeSent ? EffectState::OutcomeUnknown : EffectState::NotSent;
            const QString code =
                maybeSent ? QString(kRecoveredUncertainCode) : QString(kRecoveredUnsentCode);
            QSqlQuery update(db);
            QSqlQuery log(db);
            if (!run(update,
                     QStringLiteral("UPDATE effect_calls SET state = :state, reason_code = :code,"
                                    " updated_at = :at WHERE id = :id"),
                     {{QStringLiteral(":state"), effectStateString(to)},
                      {QStringLiteral(":code"), code},
                      {QStringLiteral(":at"), at},
                      {QStringLiteral(":id"), id}}) ||
                !run(log,
                     QStringLiteral("INSERT INTO effect_transitions"
                                    " (call_id, seq, state, reason_code, recovered, at)"
                                    " SELECT :id, COALESCE(MAX(seq), -1) + 1, :state, :code, 1,"
                                    " :at FROM effect_transitions WHERE call_id = :id"),
                     {{QStringLiteral(":id"), id},
                      {QStringLiteral(":state"), effectStateString(to)},
                      {QStringLiteral(":code"), code},
                      {QStringLiteral(":at"), at}}))
                return ledgerError(LedgerFailure::Unavailable);
            (maybeSent ? m_recoveredUncertain : m_recoveredUnsent).append(QUuid::fromString(id));
        }
        return Unit{};
    };
    const Result<Unit> result = body();
    if (!result || !transaction.commit()) {
        m_recoveredUncertain.clear();
        m_recoveredUnsent.clear();
        return result ? ledgerError(LedgerFailure::Unavailable) : result.error();
    }
    // Their calls are ended: the gone owners' files can go.
    m_owners->removeGone();
    return Unit{};
}

Result<QUuid> EffectLedger::prepare(const EffectCall &call)
{
    if (!validCall(call))
        return ledgerError(LedgerFailure::InvalidRecord);
    QSqlDatabase db = database();
    const QUuid id = QUuid::createUuid();
    const QString at = timeText(now());
    SqlTransaction transaction(db, SqlDialect::Sqlite);
    if (!transaction.begin(SqlTransaction::Access::Write))
        return ledgerError(LedgerFailure::Unavailable);
    QSqlQuery insert(db);
    QSqlQuery log(db);
    const bool written =
        run(insert,
            QStringLiteral("INSERT INTO effect_calls (id, tool, tool_version, kind, origin,"
                           " argument_digest, revision_digest, state, reason_code, created_at,"
                           " updated_at, owner, owner_pid) VALUES (:id, :tool, :version, :kind,"
                           " :origin, :args, :revision, 'prepared', NULL, :at, :at, :owner,"
                           " :pid)"),
            {{QStringLiteral(":id"), idText(id)},
             {QStringLiteral(":tool"), call.tool},
             {QStringLiteral(":version"), call.toolVersion},
             {QStringLiteral(":kind"), nullableText(call.kind)},
             {QStringLiteral(":origin"), call.origin},
             {QStringLiteral(":args"), QString::fromLatin1(call.argumentDigest.toHex())},
             {QStringLiteral(":revision"), QString::fromLatin1(call.revisionDigest.toHex())},
             {QStringLiteral(":at"), at},
             {QStringLiteral(":owner"), idText(m_instance)},
             {QStringLiteral(":pid"), m_pid}}) &&
        run(log,
            QStringLiteral("INSERT INTO effect_transitions (call_id, seq, state, reason_code,"
                           " recovered, at) VALUES (:id, 0, 'prepared', NULL, 0, :at)"),
            {{QStringLiteral(":id"), idText(id)}, {QStringLiteral(":at"), at}});
    if (!written || !transaction.commit())
        return ledgerError(LedgerFailure::Unavailable);
    return id;
}

Result<Unit> EffectLedger::transition(const QUuid &id, EffectState to, const QString &reasonCode,
                                      std::optional<EffectAuthority> authority)
{
    if (!reasonCode.isEmpty() && !validReasonCode(reasonCode))
        return ledgerError(LedgerFailure::InvalidRecord);
    QSqlDatabase db = database();
    SqlTransaction transaction(db, SqlDialect::Sqlite);
    if (!transaction.begin(SqlTransaction::Access::Write))
        return ledgerError(LedgerFailure::Unavailable);
    const QString at = timeText(now());
    const auto body = [&]() -> Result<Unit> {
        QSqlQuery current(db);
        if (!run(current, QStringLiteral("SELECT state FROM effect_calls WHERE id = :id"),
                 {{QStringLiteral(":id"), idText(id)}}))
            return ledgerError(LedgerFailure::Unavailable);
        if (!current.next())
            return ledgerError(LedgerFailure::NotFound);
        const std::optional<EffectState> from = effectStateFromString(current.value(0).toString());
        if (!from)
            return ledgerError(LedgerFailure::Unavailable);
        if (!isLegalEffectTransition(*from, to))
            return ledgerError(LedgerFailure::IllegalTransition);
        QSqlQuery update(db);
        QSqlQuery log(db);
        if (!run(update,
                 QStringLiteral("UPDATE effect_calls SET state = :state, reason_code = :code,"
                                " authority = COALESCE(:authority, authority),"
                                " updated_at = :at WHERE id = :id AND state = :from"),
                 {{QStringLiteral(":state"), effectStateString(to)},
                  {QStringLiteral(":code"), nullableText(reasonCode)},
                  {QStringLiteral(":authority"),
                   nullableText(authority ? effectAuthorityString(*authority) : QString())},
                  {QStringLiteral(":at"), at},
                  {QStringLiteral(":id"), idText(id)},
                  {QStringLiteral(":from"), effectStateString(*from)}}) ||
            update.numRowsAffected() != 1 ||
            !run(log,
                 QStringLiteral("INSERT INTO effect_transitions"
                                " (call_id, seq, state, reason_code, recovered, at)"
                                " SELECT :id, COALESCE(MAX(seq), -1) + 1, :state, :code, 0, :at"
                                " FROM effect_transitions WHERE call_id = :id"),
                 {{QStringLiteral(":id"), idText(id)},
                  {QStringLiteral(":state"), effectStateString(to)},
                  {QStringLiteral(":code"), nullableText(reasonCode)},
                  {QStringLiteral(":at"), at}}))
            return ledgerError(LedgerFailure::Unavailable);
        return Unit{};
    };
    const Result<Unit> result = body();
    if (!result)
        return result;
    if (!transaction.commit())
        return ledgerError(LedgerFailure::Unavailable);
    return result;
}

Result<Unit> EffectLedger::authorize(const QUuid &id, EffectAuthority authority)
{
    return transition(id, EffectState::Authorized, QString(), authority);
}

Result<Unit> EffectLedger::markNotSent(const QUuid &id, const QString &reasonCode)
{
    if (reasonCode.isEmpty())
        return ledgerError(LedgerFailure::InvalidRecord);
    return transition(id, EffectState::NotSent, reasonCode);
}

Result<Unit> EffectLedger::beginDispatch(const QUuid &id)
{
    return transition(id, EffectState::DispatchStarted, QString());
}

Result<Unit> EffectLedger::markDispatched(const QUuid &id)
{
    return transition(id, EffectState::Dispatched, QString());
}

Result<Unit> EffectLedger::markObservedComplete(const QUuid &id)
{
    return transition(id, EffectState::ObservedComplete, QString());
}

Result<Unit> EffectLedger::markObservedNotComplete(const QUuid &id, const QString &reasonCode)
{
    return transition(id, EffectState::ObservedNotComplete, reasonCode);
}

Result<Unit> EffectLedger::markOutcomeUnknown(const QUuid &id, const QString &reasonCode)
{
    return transition(id, EffectState::OutcomeUnknown, reasonCode);
}

Result<EffectRecord> EffectLedger::record(const QUuid &id) const
{
    QSqlDatabase db = database();
    QSqlQuery query(db);
    if (!run(query,
             QStringLiteral("SELECT ") + kRecordColumns +
                 QStringLiteral(" FROM effect_calls c WHERE c.id = :id"),
             {{QStringLiteral(":id"), idText(id)}}))
        return ledgerError(LedgerFailure::Unavailable);
    if (!query.next())
        return ledgerError(LedgerFailure::NotFound);
    return decodeRecord(query);
}

Result<QList<EffectRecord>> EffectLedger::records() const
{
    QSqlDatabase db = database();
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("SELECT ") + kRecordColumns +
                    QStringLiteral(" FROM effect_calls c ORDER BY c.created_at, c.id")))
        return ledgerError(LedgerFailure::Unavailable);
    QList<EffectRecord> records;
    while (query.next()) {
        Result<EffectRecord> record = decodeRecord(query);
        if (!record)
            return record.error();
        records.append(std::move(record).value());
    }
    return records;
}

Result<QList<EffectState>> EffectLedger::history(const QUuid &id) const
{
    QSqlDatabase db = database();
    QSqlQuery query(db);
    if (!run(
            query,
            QStringLiteral("SELECT state FROM effect_transitions WHERE call_id = :id ORDER BY seq"),
            {{QStringLiteral(":id"), idText(id)}}))
        return ledgerError(LedgerFailure::Unavailable);
    QList<EffectState> states;
    while (query.next()) {
        const std::optional<EffectState> state = effectStateFromString(query.value(0).toString());
        if (!state)
            return ledgerError(LedgerFailure::Unavailable);
        states.append(*state);
    }
    if (states.isEmpty())
        return ledgerError(LedgerFailure::NotFound);
    return states;
}

} // namespace veetbot
