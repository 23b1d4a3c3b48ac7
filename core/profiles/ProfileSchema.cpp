#include "ProfileSchema.h"

#include <functional>
#include <initializer_list>

namespace veetbot::ProfileSchema {

namespace {

// Tenant row-level security on each table, enabled and enforced for the owner too. Without the
// setting current_setting(..., true) is null (or '' after a transaction set it locally), which
// matches no tenant: nothing is visible.
QStringList tenantRowSecurity(std::initializer_list<const char16_t *> tables)
{
    QStringList statements;
    for (const char16_t *table : tables) {
        const QString name = QString::fromUtf16(table);
        statements << QStringLiteral("ALTER TABLE %1 ENABLE ROW LEVEL SECURITY").arg(name)
                   << QStringLiteral("ALTER TABLE %1 FORCE ROW LEVEL SECURITY").arg(name)
                   << QStringLiteral(
                          "CREATE POLICY %1_tenant ON %1"
                          " USING (tenant = current_setting('veetbot.tenant', true))"
                          " WITH CHECK (tenant = current_setting('veetbot.tenant', true))")
                          .arg(name);
    }
    return statements;
}

// Binding consistency: name, reference and key version are null together, and null only
// for an unbound PROVISIONING reservation or a reservation revoked before it was bound.
constexpr char16_t kBindingConsistent[] =
    u"CONSTRAINT browser_profiles_binding_consistent CHECK ("
    u"(provider_name IS NULL AND provider_reference IS NULL AND key_version IS NULL"
    u" AND status IN ('provisioning', 'revoked'))"
    u" OR (provider_name IS NOT NULL AND provider_reference IS NOT NULL"
    u" AND key_version IS NOT NULL AND status <> 'provisioning'))";

constexpr char16_t kStatusClosed[] =
    u"CONSTRAINT browser_profiles_status_closed CHECK (status IN ('provisioning',"
    u" 'authentication_required', 'ready', 'needs_user', 'revoked'))";

QStringList sqliteVersion1()
{
    return {
        // Timestamps are UTC ISO 8601 text with milliseconds and a Z suffix.
        QStringLiteral("CREATE TABLE browser_profiles ("
                       "id TEXT NOT NULL PRIMARY KEY CHECK (length(id) = 36),"
                       "tenant TEXT NOT NULL CHECK (length(tenant) BETWEEN 1 AND 256),"
                       "principal TEXT NOT NULL CHECK (length(principal) BETWEEN 1 AND 256),"
                       "provider_name TEXT,"
                       "provider_reference TEXT,"
                       "status TEXT NOT NULL ") +
            QString::fromUtf16(kStatusClosed) +
            QStringLiteral(","
                           "generation INTEGER NOT NULL"
                           " CONSTRAINT browser_profiles_generation_nonnegative"
                           " CHECK (generation >= 0),"
                           "key_version TEXT,"
                           "created_at TEXT NOT NULL,"
                           "updated_at TEXT NOT NULL,"
                           "last_used_at TEXT,"
                           "CONSTRAINT browser_profiles_scope_unique"
                           " UNIQUE (id, tenant, principal),") +
            QString::fromUtf16(kBindingConsistent) + QStringLiteral(") STRICT"),
        QStringLiteral("CREATE UNIQUE INDEX browser_profiles_provider_reference_unique"
                       " ON browser_profiles (provider_reference)"
                       " WHERE provider_reference IS NOT NULL"),
        QStringLiteral("CREATE INDEX browser_profiles_scope_created"
                       " ON browser_profiles (tenant, principal, created_at)"),
        QStringLiteral("CREATE TABLE browser_profile_origins ("
                       "profile_id TEXT NOT NULL,"
                       "tenant TEXT NOT NULL,"
                       "principal TEXT NOT NULL,"
                       "origin TEXT NOT NULL CHECK (length(origin) BETWEEN 1 AND 300),"
                       "PRIMARY KEY (profile_id, origin),"
                       "CONSTRAINT browser_profile_origins_profile_fk"
                       " FOREIGN KEY (profile_id, tenant, principal)"
                       " REFERENCES browser_profiles (id, tenant, principal) ON DELETE CASCADE"
                       ") STRICT"),
        QStringLiteral("CREATE INDEX browser_profile_origins_scope"
                       " ON browser_profile_origins (tenant, principal)"),
    };
}

QStringList postgresVersion1()
{
    QStringList statements{
        QStringLiteral("CREATE TABLE browser_profiles ("
                       "id uuid NOT NULL PRIMARY KEY,"
                       "tenant text NOT NULL CHECK (length(tenant) BETWEEN 1 AND 256),"
                       "principal text NOT NULL CHECK (length(principal) BETWEEN 1 AND 256),"
                       "provider_name text,"
                       "provider_reference text,"
                       "status text NOT NULL ") +
            QString::fromUtf16(kStatusClosed) +
            QStringLiteral(","
                           "generation bigint NOT NULL"
                           " CONSTRAINT browser_profiles_generation_nonnegative"
                           " CHECK (generation >= 0),"
                           "key_version text,"
                           "created_at timestamptz NOT NULL,"
                           "updated_at timestamptz NOT NULL,"
                           "last_used_at timestamptz,"
                           "CONSTRAINT browser_profiles_scope_unique"
                           " UNIQUE (id, tenant, principal),") +
            QString::fromUtf16(kBindingConsistent) + QStringLiteral(")"),
        QStringLiteral("CREATE UNIQUE INDEX browser_profiles_provider_reference_unique"
                       " ON browser_profiles (provider_reference)"
                       " WHERE provider_reference IS NOT NULL"),
        QStringLiteral("CREATE INDEX browser_profiles_scope_created"
                       " ON browser_profiles (tenant, principal, created_at)"),
        QStringLiteral("CREATE TABLE browser_profile_origins ("
                       "profile_id uuid NOT NULL,"
                       "tenant text NOT NULL,"
                       "principal text NOT NULL,"
                       "origin text NOT NULL CHECK (length(origin) BETWEEN 1 AND 300),"
                       "PRIMARY KEY (profile_id, origin),"
                       "CONSTRAINT browser_profile_origins_profile_fk"
                       " FOREIGN KEY (profile_id, tenant, principal)"
                       " REFERENCES browser_profiles (id, tenant, principal) ON DELETE CASCADE"
                       ")"),
        QStringLiteral("CREATE INDEX browser_profile_origins_scope"
                       " ON browser_profile_origins (tenant, principal)"),
    };
    statements << tenantRowSecurity({u"browser_profiles", u"browser_profile_origins"});
    return statements;
}

// Version 2: when a profile's sign-in was last verified, and the sign-in records. A record
// holds no capability, launch URL, cookie, token or storage state. The mode set is the
// sign-in contract's (the program begins device sign-ins only so far), so adding the remote
// one needs no schema change.
constexpr char16_t kCeremonyChecks[] =
    u"CONSTRAINT browser_authentication_ceremonies_mode_closed"
    u" CHECK (mode IN ('remote', 'device')),"
    u"CONSTRAINT browser_authentication_ceremonies_status_closed"
    u" CHECK (status IN ('open', 'ready', 'cancelled', 'expired', 'failed')),"
    u"CONSTRAINT browser_authentication_ceremonies_failure_code_closed"
    u" CHECK (failure_code IN ('session_empty', 'session_signed_out', 'session_unconfirmed',"
    u" 'tool.browser.provider_unavailable', 'tool.browser.profile_unavailable',"
    u" 'invalid_request')),"
    u"CONSTRAINT browser_authentication_ceremonies_failure_consistent"
    u" CHECK ((status = 'failed') = (failure_code IS NOT NULL)),"
    u"CONSTRAINT browser_authentication_ceremonies_finish_consistent"
    u" CHECK ((status = 'open') = (finished_at IS NULL)),"
    u"CONSTRAINT browser_authentication_ceremonies_expiry_after_creation"
    u" CHECK (expires_at > created_at),"
    // The record goes with its profile.
    u"CONSTRAINT browser_authentication_ceremonies_profile_fk"
    u" FOREIGN KEY (profile_id, tenant, principal)"
    u" REFERENCES browser_profiles (id, tenant, principal) ON DELETE CASCADE";

QStringList ceremonyIndexes()
{
    return {
        QStringLiteral("CREATE INDEX browser_authentication_ceremonies_profile"
                       " ON browser_authentication_ceremonies (profile_id, tenant, principal)"),
        // Admission looks for an open, unexpired ceremony of one profile.
        QStringLiteral("CREATE INDEX browser_authentication_ceremonies_open"
                       " ON browser_authentication_ceremonies (profile_id, expires_at)"
                       " WHERE status = 'open'"),
    };
}

// The SQLite table of sign-in records, named `name`, with `checks`.
QString sqliteCeremonyTable(const QString &name, const QString &checks)
{
    return QStringLiteral("CREATE TABLE ") + name +
           QStringLiteral(" ("
                          "id TEXT NOT NULL PRIMARY KEY"
                          " CHECK (length(id) = 36 AND id = lower(id)),"
                          "profile_id TEXT NOT NULL,"
                          "tenant TEXT NOT NULL,"
                          "principal TEXT NOT NULL,"
                          "mode TEXT NOT NULL,"
                          "status TEXT NOT NULL,"
                          "failure_code TEXT,"
                          "created_at TEXT NOT NULL,"
                          "expires_at TEXT NOT NULL,"
                          "finished_at TEXT,") +
           checks + QStringLiteral(") STRICT");
}

QStringList sqliteVersion2()
{
    return QStringList{
               QStringLiteral("ALTER TABLE browser_profiles ADD COLUMN last_verified_at TEXT"),
               sqliteCeremonyTable(QStringLiteral("browser_authentication_ceremonies"),
                                   QString::fromUtf16(kCeremonyChecks)),
           } +
           ceremonyIndexes();
}

QStringList postgresVersion2()
{
    QStringList statements =
        QStringList{
            QStringLiteral("ALTER TABLE browser_profiles ADD COLUMN last_verified_at timestamptz"),
            QStringLiteral("CREATE TABLE browser_authentication_ceremonies ("
                           "id uuid NOT NULL PRIMARY KEY,"
                           "profile_id uuid NOT NULL,"
                           "tenant text NOT NULL,"
                           "principal text NOT NULL,"
                           "mode text NOT NULL,"
                           "status text NOT NULL,"
                           "failure_code text,"
                           "created_at timestamptz NOT NULL,"
                           "expires_at timestamptz NOT NULL,"
                           "finished_at timestamptz,") +
                QString::fromUtf16(kCeremonyChecks) + QStringLiteral(")"),
        } +
        ceremonyIndexes();
    statements << tenantRowSecurity({u"browser_authentication_ceremonies"});
    return statements;
}

// Version 3: the owner's task scopes. One policy row per tenant and principal holds the
// revision (its row lock serializes edits); the entries hang off it in canonical order, at
// most sixteen (ordinals 0-15) and unique; every change appends one audit record, at most
// one per revision. An entry is owner configuration (an origin and one decoded path
// segment), never page content.
constexpr char16_t kSourceClosed[] = u" CHECK (%1 IN ('owner', 'seed'))";

QString sourceCheck(const QString &column)
{
    return QString::fromUtf16(kSourceClosed).arg(column);
}

QStringList taskScopeTables(const QString &text, const QString &integer, const QString &time,
                            const QString &id, const QString &tableSuffix)
{
    return {
        QStringLiteral("CREATE TABLE browser_task_scope_policies ("
                       "tenant %1 NOT NULL CHECK (length(tenant) BETWEEN 1 AND 256),"
                       "principal %1 NOT NULL CHECK (length(principal) BETWEEN 1 AND 256),"
                       "revision %2 NOT NULL"
                       " CONSTRAINT browser_task_scope_policies_revision_positive"
                       " CHECK (revision >= 1),"
                       "last_source %1 NOT NULL"
                       " CONSTRAINT browser_task_scope_policies_source_closed")
                .arg(text, integer) +
            sourceCheck(QStringLiteral("last_source")) +
            QStringLiteral(",updated_at %1 NOT NULL,"
                           "PRIMARY KEY (tenant, principal))")
                .arg(time) +
            tableSuffix,
        QStringLiteral("CREATE TABLE browser_task_scopes ("
                       "tenant %1 NOT NULL,"
                       "principal %1 NOT NULL,"
                       "ordinal %2 NOT NULL"
                       " CONSTRAINT browser_task_scopes_ordinal_bounded"
                       " CHECK (ordinal BETWEEN 0 AND 15),"
                       "origin %1 NOT NULL CHECK (length(origin) BETWEEN 1 AND 300),"
                       "segment %1 NOT NULL CHECK (length(segment) BETWEEN 1 AND 64),"
                       "PRIMARY KEY (tenant, principal, ordinal),"
                       "CONSTRAINT browser_task_scopes_entry_unique"
                       " UNIQUE (tenant, principal, origin, segment),"
                       "CONSTRAINT browser_task_scopes_policy_fk FOREIGN KEY (tenant, principal)"
                       " REFERENCES browser_task_scope_policies (tenant, principal)"
                       " ON DELETE CASCADE)")
                .arg(text, integer) +
            tableSuffix,
        // Append-only for the application role (it is granted SELECT and INSERT only).
        QStringLiteral("CREATE TABLE browser_policy_audit ("
                       "id %4 NOT NULL PRIMARY KEY,"
                       "tenant %1 NOT NULL CHECK (length(tenant) BETWEEN 1 AND 256),"
                       "principal %1 NOT NULL CHECK (length(principal) BETWEEN 1 AND 256),"
                       "kind %1 NOT NULL CONSTRAINT browser_policy_audit_kind_closed"
                       " CHECK (kind IN ('browser.task_scopes.updated')),"
                       "recorded_at %3 NOT NULL,"
                       "revision %2 NOT NULL CHECK (revision >= 1),"
                       "source %1 NOT NULL CONSTRAINT browser_policy_audit_source_closed")
                .arg(text, integer, time, id) +
            sourceCheck(QStringLiteral("source")) +
            QStringLiteral(",entries %1 NOT NULL,"
                           "CONSTRAINT browser_policy_audit_revision_unique"
                           " UNIQUE (tenant, principal, kind, revision))")
                .arg(text) +
            tableSuffix,
    };
}

QStringList sqliteVersion3()
{
    // Ids are lower-case hyphenated UUIDs; the entries a JSON array of canonical scope URLs.
    return taskScopeTables(QStringLiteral("TEXT"), QStringLiteral("INTEGER"),
                           QStringLiteral("TEXT"),
                           QStringLiteral("TEXT CHECK (length(id) = 36 AND id = lower(id))"),
                           QStringLiteral(" STRICT"));
}

QStringList postgresVersion3()
{
    QStringList statements =
        taskScopeTables(QStringLiteral("text"), QStringLiteral("bigint"),
                        QStringLiteral("timestamptz"), QStringLiteral("uuid"), QString());
    statements << tenantRowSecurity(
        {u"browser_task_scope_policies", u"browser_task_scopes", u"browser_policy_audit"});
    return statements;
}

// Version 4: task grants. One row per grant with its pins, the configured scope it was made
// in, and its counters, whose fixed limits the constraints hold whatever writes them: thirty
// minutes exactly, at most two hundred uses, at most 4,096 typed characters. A partial unique
// index keeps one unended grant per session. Every grant's audit records (one created, one
// authorized per use, exactly one ended) are appended beside it; they hold the audit form of
// an approval view (never typed text), never anything else from a page.
constexpr char16_t kEndClosed[] =
    u" CHECK (end_reason IN ('expired', 'exhausted', 'revoked', 'superseded',"
    u" 'profile_revoked', 'signed_in_again', 'agent_version', 'policy_version',"
    u" 'scope_removed', 'session_ended'))";

QStringList taskGrantTables(const QString &text, const QString &integer, const QString &time,
                            const std::function<QString(const QString &)> &uuid,
                            const QString &thirtyMinutes, const QString &tableSuffix)
{
    return {
        QStringLiteral("CREATE TABLE browser_task_grants ("
                       "id %4 NOT NULL PRIMARY KEY,"
                       "tenant %1 NOT NULL CHECK (length(tenant) BETWEEN 1 AND 256),"
                       "principal %1 NOT NULL CHECK (length(principal) BETWEEN 1 AND 256),"
                       "session_id %6 NOT NULL,"
                       "profile_id %7 NOT NULL,"
                       "profile_generation %2 NOT NULL CHECK (profile_generation >= 1),"
                       "agent_version %1 NOT NULL"
                       " CHECK (length(agent_version) BETWEEN 1 AND 128),"
                       "policy_version %1 NOT NULL CHECK (length(policy_version) = 64),"
                       "origin %1 NOT NULL CHECK (length(origin) BETWEEN 1 AND 300),"
                       "prefix %1 NOT NULL CHECK (length(prefix) BETWEEN 1 AND 64),"
                       "approval_id %8 NOT NULL,"
                       "created_at %3 NOT NULL,"
                       "expires_at %3 NOT NULL"
                       " CONSTRAINT browser_task_grants_thirty_minutes CHECK (%5),"
                       "action_cap %2 NOT NULL"
                       " CONSTRAINT browser_task_grants_action_cap CHECK (action_cap = 200),"
                       "uses %2 NOT NULL"
                       " CONSTRAINT browser_task_grants_uses_bounded"
                       " CHECK (uses BETWEEN 0 AND 200 AND uses <= action_cap),"
                       "typed_characters %2 NOT NULL"
                       " CONSTRAINT browser_task_grants_typed_bounded"
                       " CHECK (typed_characters BETWEEN 0 AND 4096),"
                       "ended_at %3,"
                       "end_reason %1 CONSTRAINT browser_task_grants_end_closed")
                .arg(text, integer, time, uuid(QStringLiteral("id")), thirtyMinutes,
                     uuid(QStringLiteral("session_id")), uuid(QStringLiteral("profile_id")),
                     uuid(QStringLiteral("approval_id"))) +
            QString::fromUtf16(kEndClosed) +
            QStringLiteral(",CONSTRAINT browser_task_grants_end_whole"
                           " CHECK ((ended_at IS NULL) = (end_reason IS NULL)))") +
            tableSuffix,
        QStringLiteral("CREATE UNIQUE INDEX browser_task_grants_one_active"
                       " ON browser_task_grants (tenant, principal, session_id)"
                       " WHERE ended_at IS NULL"),
        QStringLiteral("CREATE INDEX browser_task_grants_scope_created"
                       " ON browser_task_grants (tenant, principal, created_at)"),
        // Append-only for the application role (it is granted SELECT and INSERT only).
        QStringLiteral("CREATE TABLE browser_task_grant_audit ("
                       "id %4 NOT NULL PRIMARY KEY,"
                       "tenant %1 NOT NULL CHECK (length(tenant) BETWEEN 1 AND 256),"
                       "principal %1 NOT NULL CHECK (length(principal) BETWEEN 1 AND 256),"
                       "grant_id %5 NOT NULL REFERENCES browser_task_grants (id),"
                       "kind %1 NOT NULL CONSTRAINT browser_task_grant_audit_kind_closed"
                       " CHECK (kind IN ('browser.task_grant.created', 'tool.call.authorized',"
                       " 'browser.task_grant.ended')),"
                       "recorded_at %3 NOT NULL,"
                       "ordinal %2 CHECK (ordinal BETWEEN 1 AND 200),"
                       "end_reason %1 CONSTRAINT browser_task_grant_audit_end_closed")
                .arg(text, integer, time, uuid(QStringLiteral("id")),
                     uuid(QStringLiteral("grant_id"))) +
            QString::fromUtf16(kEndClosed) +
            QStringLiteral(",approval_view %1 CHECK (length(approval_view) <= 16384),"
                           "CONSTRAINT browser_task_grant_audit_shape CHECK ("
                           "(kind = 'browser.task_grant.created' AND ordinal IS NULL"
                           " AND end_reason IS NULL AND approval_view IS NOT NULL) OR"
                           " (kind = 'tool.call.authorized' AND ordinal IS NOT NULL"
                           " AND end_reason IS NULL AND approval_view IS NOT NULL) OR"
                           " (kind = 'browser.task_grant.ended' AND ordinal IS NULL"
                           " AND end_reason IS NOT NULL AND approval_view IS NULL)))")
                .arg(text) +
            tableSuffix,
        QStringLiteral("CREATE UNIQUE INDEX browser_task_grant_audit_once"
                       " ON browser_task_grant_audit (grant_id, kind)"
                       " WHERE kind <> 'tool.call.authorized'"),
        QStringLiteral("CREATE UNIQUE INDEX browser_task_grant_audit_use_once"
                       " ON browser_task_grant_audit (grant_id, ordinal)"
                       " WHERE kind = 'tool.call.authorized'"),
    };
}

QStringList sqliteVersion4()
{
    // Times are UTC ISO 8601 text with milliseconds, which julianday() reads.
    return taskGrantTables(
        QStringLiteral("TEXT"), QStringLiteral("INTEGER"), QStringLiteral("TEXT"),
        [](const QString &column) {
            return QStringLiteral("TEXT CHECK (length(%1) = 36 AND %1 = lower(%1))").arg(column);
        },
        QStringLiteral("CAST(round((julianday(expires_at) - julianday(created_at)) * 86400000)"
                       " AS INTEGER) = 1800000"),
        QStringLiteral(" STRICT"));
}

QStringList postgresVersion4()
{
    QStringList statements = taskGrantTables(
        QStringLiteral("text"), QStringLiteral("bigint"), QStringLiteral("timestamptz"),
        [](const QString &) { return QStringLiteral("uuid"); },
        QStringLiteral("expires_at = created_at + interval '30 minutes'"), QString());
    statements << tenantRowSecurity({u"browser_task_grants", u"browser_task_grant_audit"});
    return statements;
}

// Version 5: standing grants. One row per grant, held to the grant's bounds: 1-16 exact
// origins (a JSON array of origin texts), a non-empty action-kind bit mask (click, type,
// select, check, press, scroll), a role from the routine roles, name and purpose of at most
// 128 characters, an expiry after the start and at most 30 days after it. The grant goes with
// its profile. Every creation and revocation appends one record to browser_grant_audit, at
// most one of each kind per grant; no page text, typed text, origin or name is ever recorded.
QString standingGrantRoleCheck()
{
    return QStringLiteral("CHECK (element_role IN ('button', 'link', 'tab', 'menuitem',"
                          " 'option', 'treeitem', 'searchbox', 'textbox', 'combobox', 'listbox',"
                          " 'checkbox', 'radio', 'switch', 'gridcell'))");
}

// The statements with the dialect's words put in for the @NAME@ markers.
QStringList standingGrantTables(Dialect dialect)
{
    const bool sqlite = dialect == Dialect::Sqlite;
    const QList<std::pair<QString, QString>> words{
        {QStringLiteral("@TEXT@"), sqlite ? QStringLiteral("TEXT") : QStringLiteral("text")},
        {QStringLiteral("@INTEGER@"),
         sqlite ? QStringLiteral("INTEGER") : QStringLiteral("integer")},
        {QStringLiteral("@TIME@"), sqlite ? QStringLiteral("TEXT") : QStringLiteral("timestamptz")},
        {QStringLiteral("@ID@"), sqlite ? QStringLiteral("TEXT CHECK (length(id) = 36 AND"
                                                         " id = lower(id))")
                                        : QStringLiteral("uuid")},
        {QStringLiteral("@UUID@"), sqlite ? QStringLiteral("TEXT") : QStringLiteral("uuid")},
        // Lowercase hex of exactly 64 digits.
        {QStringLiteral("@HEX@"), sqlite ? QStringLiteral("length(policy_version) = 64 AND"
                                                          " policy_version NOT GLOB '*[^0-9a-f]*'")
                                         : QStringLiteral("policy_version ~ '^[0-9a-f]{64}$'")},
        {QStringLiteral("@ORIGINS@"),
         sqlite ? QStringLiteral("json_valid(origins) AND json_type(origins) = 'array' AND"
                                 " json_array_length(origins) BETWEEN 1 AND 16")
                : QStringLiteral("json_typeof(CAST(origins AS json)) = 'array' AND"
                                 " json_array_length(CAST(origins AS json)) BETWEEN 1 AND 16")},
        // Thirty days exactly, to the millisecond: SQLite reads the ISO text through julianday;
        // PostgreSQL counts hours, which no time zone's daylight saving stretches.
        {QStringLiteral("@LIFETIME@"),
         sqlite ? QStringLiteral("julianday(starts_at) IS NOT NULL AND julianday(expires_at) IS"
                                 " NOT NULL AND CAST(round((julianday(expires_at) -"
                                 " julianday(starts_at)) * 86400000) AS INTEGER) <= 2592000000")
                : QStringLiteral("expires_at <= starts_at + interval '720 hours'")},
        {QStringLiteral("@ROLE@"), standingGrantRoleCheck()},
        {QStringLiteral("@STRICT@"), sqlite ? QStringLiteral(" STRICT") : QString()},
    };
    QStringList statements{
        QStringLiteral(
            "CREATE TABLE browser_standing_grants ("
            "id @ID@ NOT NULL PRIMARY KEY,"
            "tenant @TEXT@ NOT NULL CHECK (length(tenant) BETWEEN 1 AND 256),"
            "principal @TEXT@ NOT NULL CHECK (length(principal) BETWEEN 1 AND 256),"
            "profile_id @UUID@ NOT NULL,"
            "agent_version @TEXT@ NOT NULL CHECK (length(agent_version) BETWEEN 1 AND 64),"
            "policy_version @TEXT@ NOT NULL"
            " CONSTRAINT browser_standing_grants_policy_version_hex CHECK (@HEX@),"
            "origins @TEXT@ NOT NULL"
            " CONSTRAINT browser_standing_grants_origins_bounded CHECK (@ORIGINS@),"
            "action_kinds @INTEGER@ NOT NULL"
            " CONSTRAINT browser_standing_grants_action_kinds_closed"
            " CHECK (action_kinds BETWEEN 1 AND 63),"
            "element_role @TEXT@ CONSTRAINT browser_standing_grants_role_closed @ROLE@,"
            "accessible_name @TEXT@ CHECK (length(accessible_name) BETWEEN 1 AND 128),"
            "purpose @TEXT@ CHECK (length(purpose) BETWEEN 1 AND 128),"
            "starts_at @TIME@ NOT NULL,"
            "expires_at @TIME@ NOT NULL,"
            "revoked_at @TIME@,"
            "approver @TEXT@ NOT NULL CHECK (length(approver) BETWEEN 1 AND 256),"
            "created_at @TIME@ NOT NULL,"
            "CONSTRAINT browser_standing_grants_expiry_after_start"
            " CHECK (expires_at > starts_at),"
            "CONSTRAINT browser_standing_grants_lifetime_bounded CHECK (@LIFETIME@),"
            "CONSTRAINT browser_standing_grants_revoked_after_creation"
            " CHECK (revoked_at IS NULL OR revoked_at >= created_at),"
            "CONSTRAINT browser_standing_grants_profile_fk"
            " FOREIGN KEY (profile_id, tenant, principal)"
            " REFERENCES browser_profiles (id, tenant, principal) ON DELETE CASCADE)@STRICT@"),
        QStringLiteral("CREATE INDEX browser_standing_grants_scope_created"
                       " ON browser_standing_grants (tenant, principal, created_at)"),
        QStringLiteral("CREATE INDEX browser_standing_grants_profile"
                       " ON browser_standing_grants (profile_id, tenant, principal)"),
        // Append-only for the application role (it is granted SELECT and INSERT only).
        QStringLiteral("CREATE TABLE browser_grant_audit ("
                       "id @ID@ NOT NULL PRIMARY KEY,"
                       "tenant @TEXT@ NOT NULL CHECK (length(tenant) BETWEEN 1 AND 256),"
                       "principal @TEXT@ NOT NULL CHECK (length(principal) BETWEEN 1 AND 256),"
                       "grant_id @UUID@ NOT NULL,"
                       "kind @TEXT@ NOT NULL CONSTRAINT browser_grant_audit_kind_closed"
                       " CHECK (kind IN ('browser.grant.created', 'browser.grant.revoked')),"
                       "recorded_at @TIME@ NOT NULL,"
                       "CONSTRAINT browser_grant_audit_once UNIQUE (grant_id, kind))@STRICT@"),
        QStringLiteral("CREATE INDEX browser_grant_audit_scope"
                       " ON browser_grant_audit (tenant, principal, recorded_at)"),
    };
    for (QString &statement : statements) {
        for (const auto &[marker, word] : words)
            statement.replace(marker, word);
    }
    return statements;
}

QStringList sqliteVersion5()
{
    return standingGrantTables(Dialect::Sqlite);
}

QStringList postgresVersion5()
{
    QStringList statements = standingGrantTables(Dialect::Postgres);
    statements << tenantRowSecurity({u"browser_standing_grants", u"browser_grant_audit"});
    return statements;
}

// Version 6: the activity timeline. One summary row per run (kept), and its events (removed
// after seven days). Every text column is a closed word, a stable code, an origin or a plain
// path segment; the constraints hold the closed lists and the bounds.
QStringList activityTables(Dialect dialect)
{
    const bool sqlite = dialect == Dialect::Sqlite;
    const QString text = sqlite ? QStringLiteral("TEXT") : QStringLiteral("text");
    const QString integer = sqlite ? QStringLiteral("INTEGER") : QStringLiteral("bigint");
    const QString time = sqlite ? QStringLiteral("TEXT") : QStringLiteral("timestamptz");
    const auto uuid = [sqlite](const QString &column) {
        return sqlite
                   ? QStringLiteral("TEXT CHECK (length(%1) = 36 AND %1 = lower(%1))").arg(column)
                   : QStringLiteral("uuid");
    };
    const QString suffix = sqlite ? QStringLiteral(" STRICT") : QString();
    return {
        QStringLiteral("CREATE TABLE activity_runs ("
                       "id %4 NOT NULL PRIMARY KEY,"
                       "tenant %1 NOT NULL CHECK (length(tenant) BETWEEN 1 AND 256),"
                       "principal %1 NOT NULL CHECK (length(principal) BETWEEN 1 AND 256),"
                       "kind %1 NOT NULL CHECK (kind IN ('mcp')),"
                       "profile_id %1 CHECK (length(profile_id) = 36),"
                       "website %1 CHECK (length(website) BETWEEN 1 AND 300),"
                       "started_at %3 NOT NULL,"
                       "ended_at %3,"
                       "end_reason %1 CHECK (end_reason IN ('input_ended', 'interrupted')),"
                       "tool_calls %2 NOT NULL CHECK (tool_calls >= 0),"
                       "acts %2 NOT NULL CHECK (acts >= 0),"
                       "last_approval_source %1 CHECK (length(last_approval_source) <= 32),"
                       "CHECK ((ended_at IS NULL) = (end_reason IS NULL)))")
                .arg(text, integer, time, uuid(QStringLiteral("id"))) +
            suffix,
        QStringLiteral("CREATE INDEX activity_runs_scope_started"
                       " ON activity_runs (tenant, principal, started_at)"),
        QStringLiteral(
            "CREATE TABLE activity_events ("
            "id %4 NOT NULL PRIMARY KEY,"
            "tenant %1 NOT NULL CHECK (length(tenant) BETWEEN 1 AND 256),"
            "principal %1 NOT NULL CHECK (length(principal) BETWEEN 1 AND 256),"
            "run_id %5 NOT NULL REFERENCES activity_runs (id) ON DELETE CASCADE,"
            "seq %2 NOT NULL CHECK (seq >= 1),"
            "recorded_at %3 NOT NULL,"
            "kind %1 NOT NULL CHECK (kind IN ('tool.call', 'observation',"
            " 'task_grant.created', 'task_grant.used')),"
            "tool %1 CHECK (tool IN ('browser.navigate', 'browser.observe', 'browser.act')),"
            "action_kind %1 CHECK (action_kind IN ('click', 'type', 'select', 'check', 'press',"
            " 'scroll')),"
            "target_role %1 CHECK (length(target_role) <= 32),"
            "approval_source %1 CHECK (approval_source IN ('owner_approval', 'task_grant',"
            " 'standing_grant', 'ordinary_interaction', 'scroll_permission', 'none')),"
            "outcome %1 CHECK (outcome IN ('succeeded', 'refused', 'failed', 'uncertain',"
            " 'cancelled')),"
            "code %1 CHECK (length(code) <= 64),"
            "elapsed_ms %2 CHECK (elapsed_ms >= 0),"
            "origin %1 CHECK (length(origin) BETWEEN 1 AND 300),"
            "path_segment %1 CHECK (length(path_segment) BETWEEN 1 AND 64),"
            "elements %2 CHECK (elements >= 0),"
            "regions %2 CHECK (regions >= 0),"
            "grant_id %1 CHECK (length(grant_id) = 36),"
            "ordinal %2 CHECK (ordinal BETWEEN 1 AND 200),"
            "UNIQUE (run_id, seq))")
                .arg(text, integer, time, uuid(QStringLiteral("id")),
                     uuid(QStringLiteral("run_id"))) +
            suffix,

        QStringLiteral("CREATE INDEX activity_events_scope_recorded"
                       " ON activity_events (tenant, principal, recorded_at)"),
    };
}

QStringList sqliteVersion6()
{
    return activityTables(Dialect::Sqlite);
}

QStringList postgresVersion6()
{
    QStringList statements = activityTables(Dialect::Postgres);
    statements << tenantRowSecurity({u"activity_runs", u"activity_events"});
    return statements;
}

// Version 7: task runs (`veetbot run`). One row per run with its closed status and outcome,
// the SHA-256 of the owner's task (never the task), the model's name and the run's counters
// held to the run ceilings (usage_in and usage_out: the model's prompt and completion tokens); one
// row per attempt (a resumed run has several) naming the effect-ledger instance that wrote its
// acts. The activity timeline learns the task run: kind "task", a task run's final statuses as end
// reasons, and "model.call" events. SQLite cannot change a CHECK constraint in place, so its
// timeline tables are rebuilt (rows kept, events still cascading from their run); PostgreSQL
// replaces the three constraints.
QString taskRunStatusList()
{
    return QStringLiteral("'running', 'completed', 'failed', 'refused', 'budget_exhausted',"
                          " 'cancelled', 'needs_user'");
}

QString activityEndReasonList()
{
    return QStringLiteral("'input_ended', 'interrupted', 'completed', 'failed', 'refused',"
                          " 'budget_exhausted', 'cancelled', 'needs_user'");
}

QString activityEventKindList()
{
    return QStringLiteral("'tool.call', 'observation', 'task_grant.created', 'task_grant.used',"
                          " 'model.call'");
}

QStringList taskRunTables(Dialect dialect)
{
    const bool sqlite = dialect == Dialect::Sqlite;
    const QString text = sqlite ? QStringLiteral("TEXT") : QStringLiteral("text");
    const QString integer = sqlite ? QStringLiteral("INTEGER") : QStringLiteral("bigint");
    const QString time = sqlite ? QStringLiteral("TEXT") : QStringLiteral("timestamptz");
    const auto uuid = [sqlite](const QString &column) {
        return sqlite
                   ? QStringLiteral("TEXT CHECK (length(%1) = 36 AND %1 = lower(%1))").arg(column)
                   : QStringLiteral("uuid");
    };
    const QString hex = sqlite ? QStringLiteral("length(task_digest) = 64 AND"
                                                " task_digest NOT GLOB '*[^0-9a-f]*'")
                               : QStringLiteral("task_digest ~ '^[0-9a-f]{64}$'");
    const QString suffix = sqlite ? QStringLiteral(" STRICT") : QString();
    return {
        QStringLiteral("CREATE TABLE task_runs ("
                       "id %4 NOT NULL PRIMARY KEY,"
                       "tenant %1 NOT NULL CHECK (length(tenant) BETWEEN 1 AND 256),"
                       "principal %1 NOT NULL CHECK (length(principal) BETWEEN 1 AND 256),"
                       "profile_id %1 NOT NULL CHECK (length(profile_id) = 36),"
                       "task_digest %1 NOT NULL CHECK (%5),"
                       "model %1 NOT NULL CHECK (length(model) BETWEEN 1 AND 128),"
                       "status %1 NOT NULL CHECK (status IN (%6)),"
                       "outcome %1 NOT NULL CHECK (outcome IN ('none', 'read_only', 'verified',"
                       " 'unverified', 'outcome_unknown')),"
                       "stop_code %1 CHECK (length(stop_code) BETWEEN 1 AND 64),"
                       "steps %2 NOT NULL CHECK (steps BETWEEN 0 AND 160),"
                       "model_calls %2 NOT NULL CHECK (model_calls BETWEEN 0 AND 120),"
                       "tool_calls %2 NOT NULL CHECK (tool_calls BETWEEN 0 AND 160),"
                       "stale_recoveries %2 NOT NULL CHECK (stale_recoveries BETWEEN 0 AND 3),"
                       "acts %2 NOT NULL CHECK (acts BETWEEN 0 AND 160),"
                       "usage_in %2 NOT NULL CHECK (usage_in >= 0),"
                       "usage_out %2 NOT NULL CHECK (usage_out >= 0),"
                       "cost_micro_usd %2 NOT NULL CHECK (cost_micro_usd >= 0),"
                       "started_at %3 NOT NULL,"
                       "updated_at %3 NOT NULL,"
                       "ended_at %3,"
                       "CHECK ((ended_at IS NULL) = (status = 'running')))")
                .arg(text, integer, time, uuid(QStringLiteral("id")), hex, taskRunStatusList()) +
            suffix,
        QStringLiteral("CREATE INDEX task_runs_scope_started"
                       " ON task_runs (tenant, principal, started_at)"),
        QStringLiteral(
            "CREATE TABLE task_run_attempts ("
            "run_id %4 NOT NULL REFERENCES task_runs (id) ON DELETE CASCADE,"
            "tenant %1 NOT NULL CHECK (length(tenant) BETWEEN 1 AND 256),"
            "principal %1 NOT NULL CHECK (length(principal) BETWEEN 1 AND 256),"
            "seq %2 NOT NULL CHECK (seq BETWEEN 1 AND 16),"
            "ledger_owner %1 NOT NULL CHECK (length(ledger_owner) = 36),"
            "pid %2 NOT NULL CHECK (pid > 0),"
            "started_at %3 NOT NULL,"
            "ended_at %3,"
            "end_status %1 CHECK (end_status IN (%5, 'interrupted') AND end_status <> 'running'),"
            "PRIMARY KEY (run_id, seq),"
            "CHECK ((ended_at IS NULL) = (end_status IS NULL)))")
                .arg(text, integer, time, uuid(QStringLiteral("run_id")), taskRunStatusList()) +
            suffix,
    };
}

// SQLite: the timeline tables of version 6 with the wider closed lists, rebuilt inside the
// migration's transaction with foreign keys on. The new tables are made and filled under new
// names, the old ones dropped (events first, so dropping a run cascades to nothing), and the
// new ones renamed: a rename rewrites the events' reference to their runs' table.
QStringList sqliteActivityRebuild()
{
    const QString uuid = QStringLiteral("TEXT CHECK (length(%1) = 36 AND %1 = lower(%1))");
    return {
        QStringLiteral("CREATE TABLE activity_runs_v7 ("
                       "id %1 NOT NULL PRIMARY KEY,"
                       "tenant TEXT NOT NULL CHECK (length(tenant) BETWEEN 1 AND 256),"
                       "principal TEXT NOT NULL CHECK (length(principal) BETWEEN 1 AND 256),"
                       "kind TEXT NOT NULL CHECK (kind IN ('mcp', 'task')),"
                       "profile_id TEXT CHECK (length(profile_id) = 36),"
                       "website TEXT CHECK (length(website) BETWEEN 1 AND 300),"
                       "started_at TEXT NOT NULL,"
                       "ended_at TEXT,"
                       "end_reason TEXT CHECK (end_reason IN (%2)),"
                       "tool_calls INTEGER NOT NULL CHECK (tool_calls >= 0),"
                       "acts INTEGER NOT NULL CHECK (acts >= 0),"
                       "last_approval_source TEXT CHECK (length(last_approval_source) <= 32),"
                       "CHECK ((ended_at IS NULL) = (end_reason IS NULL))) STRICT")
            .arg(uuid.arg(QStringLiteral("id")), activityEndReasonList()),
        QStringLiteral("INSERT INTO activity_runs_v7 SELECT id, tenant, principal, kind,"
                       " profile_id, website, started_at, ended_at, end_reason, tool_calls, acts,"
                       " last_approval_source FROM activity_runs"),
        QStringLiteral(
            "CREATE TABLE activity_events_v7 ("
            "id %1 NOT NULL PRIMARY KEY,"
            "tenant TEXT NOT NULL CHECK (length(tenant) BETWEEN 1 AND 256),"
            "principal TEXT NOT NULL CHECK (length(principal) BETWEEN 1 AND 256),"
            "run_id %2 NOT NULL REFERENCES activity_runs_v7 (id) ON DELETE CASCADE,"
            "seq INTEGER NOT NULL CHECK (seq >= 1),"
            "recorded_at TEXT NOT NULL,"
            "kind TEXT NOT NULL CHECK (kind IN (%3)),"
            "tool TEXT CHECK (tool IN ('browser.navigate', 'browser.observe', 'browser.act')),"
            "action_kind TEXT CHECK (action_kind IN ('click', 'type', 'select', 'check', 'press',"
            " 'scroll')),"
            "target_role TEXT CHECK (length(target_role) <= 32),"
            "approval_source TEXT CHECK (approval_source IN ('owner_approval', 'task_grant',"
            " 'standing_grant', 'ordinary_interaction', 'scroll_permission', 'none')),"
            "outcome TEXT CHECK (outcome IN ('succeeded', 'refused', 'failed', 'uncertain',"
            " 'cancelled')),"
            "code TEXT CHECK (length(code) <= 64),"
            "elapsed_ms INTEGER CHECK (elapsed_ms >= 0),"
            "origin TEXT CHECK (length(origin) BETWEEN 1 AND 300),"
            "path_segment TEXT CHECK (length(path_segment) BETWEEN 1 AND 64),"
            "elements INTEGER CHECK (elements >= 0),"
            "regions INTEGER CHECK (regions >= 0),"
            "grant_id TEXT CHECK (length(grant_id) = 36),"
            "ordinal INTEGER CHECK (ordinal BETWEEN 1 AND 200),"
            "UNIQUE (run_id, seq)) STRICT")
            .arg(uuid.arg(QStringLiteral("id")), uuid.arg(QStringLiteral("run_id")),
                 activityEventKindList()),
        QStringLiteral("INSERT INTO activity_events_v7 SELECT id, tenant, principal, run_id, seq,"
                       " recorded_at, kind, tool, action_kind, target_role, approval_source,"
                       " outcome, code, elapsed_ms, origin, path_segment, elements, regions,"
                       " grant_id, ordinal FROM activity_events"),
        QStringLiteral("DROP TABLE activity_events"),
        QStringLiteral("DROP TABLE activity_runs"),
        QStringLiteral("ALTER TABLE activity_runs_v7 RENAME TO activity_runs"),
        QStringLiteral("ALTER TABLE activity_events_v7 RENAME TO activity_events"),
        QStringLiteral("CREATE INDEX activity_runs_scope_started"
                       " ON activity_runs (tenant, principal, started_at)"),
        QStringLiteral("CREATE INDEX activity_events_scope_recorded"
                       " ON activity_events (tenant, principal, recorded_at)"),
    };
}

QStringList sqliteVersion7()
{
    return taskRunTables(Dialect::Sqlite) + sqliteActivityRebuild();
}

// Version 8: sign-in interruptions. A task run counts how often it waited for the owner to sign
// in again (at most twice); the timeline learns "sign_in.required" (a run met a sign-in wall) and
// "sign_in.resumed" (a verified sign-in let it go on). SQLite rebuilds the events table for its
// wider kind list as version 7 did (the runs table stays); PostgreSQL replaces the constraint.
QString activityEventKindListV8()
{
    return activityEventKindList() + QStringLiteral(", 'sign_in.required', 'sign_in.resumed'");
}

QString signInSuspensionsColumn(Dialect dialect)
{
    return QStringLiteral("ALTER TABLE task_runs ADD COLUMN sign_in_suspensions %1 NOT NULL"
                          " DEFAULT 0 CHECK (sign_in_suspensions BETWEEN 0 AND 2)")
        .arg(dialect == Dialect::Sqlite ? QStringLiteral("INTEGER") : QStringLiteral("bigint"));
}

QStringList sqliteVersion8()
{
    // The events table as version 7 made it, under a new name and with the wider list.
    const QStringList v7 = sqliteActivityRebuild();
    QString events = v7.at(2);
    events.replace(QStringLiteral("activity_events_v7"), QStringLiteral("activity_events_v8"))
        .replace(QStringLiteral("REFERENCES activity_runs_v7"),
                 QStringLiteral("REFERENCES activity_runs"))
        .replace(activityEventKindList(), activityEventKindListV8());
    return {signInSuspensionsColumn(Dialect::Sqlite),
            events,
            QStringLiteral("INSERT INTO activity_events_v8 SELECT id, tenant, principal, run_id,"
                           " seq, recorded_at, kind, tool, action_kind, target_role,"
                           " approval_source, outcome, code, elapsed_ms, origin, path_segment,"
                           " elements, regions, grant_id, ordinal FROM activity_events"),
            QStringLiteral("DROP TABLE activity_events"),
            QStringLiteral("ALTER TABLE activity_events_v8 RENAME TO activity_events"),
            QStringLiteral("CREATE INDEX activity_events_scope_recorded"
                           " ON activity_events (tenant, principal, recorded_at)")};
}

QStringList postgresVersion8()
{
    return {signInSuspensionsColumn(Dialect::Postgres),
            QStringLiteral("ALTER TABLE activity_events DROP CONSTRAINT"
                           " activity_events_kind_check, ADD CONSTRAINT"
                           " activity_events_kind_check CHECK (kind IN (%1))")
                .arg(activityEventKindListV8())};
}

QStringList postgresVersion7()
{
    QStringList statements = taskRunTables(Dialect::Postgres);
    statements << tenantRowSecurity({u"task_runs", u"task_run_attempts"});
    statements << QStringLiteral(
                      "ALTER TABLE activity_runs DROP CONSTRAINT activity_runs_kind_check,"
                      " ADD CONSTRAINT activity_runs_kind_check"
                      " CHECK (kind IN ('mcp', 'task'))")
               << QStringLiteral("ALTER TABLE activity_runs DROP CONSTRAINT"
                                 " activity_runs_end_reason_check, ADD CONSTRAINT"
                                 " activity_runs_end_reason_check CHECK (end_reason IN (%1))")
                      .arg(activityEndReasonList())
               << QStringLiteral("ALTER TABLE activity_events DROP CONSTRAINT"
                                 " activity_events_kind_check, ADD CONSTRAINT"
                                 " activity_events_kind_check CHECK (kind IN (%1))")
                      .arg(activityEventKindList());
    return statements;
}

// Version 9: schedules (`veetbot schedules`). One row per schedule: its pins (the profile and
// its generation, an optional standing grant, the agent and policy versions), the owner's task
// and calendar, the model, budget and deadline, its state, and what its last occurrence did.
// No credential, cookie or key: the model's endpoint is kept without a query (where a key could
// hide), user information or fragment (isStorable). No reference to the profile's row: a schedule
// whose profile was deleted stays, and its next occurrence says so (schedule.profile_not_ready).
QStringList scheduleTables(Dialect dialect)
{
    const bool sqlite = dialect == Dialect::Sqlite;
    const QString text = sqlite ? QStringLiteral("TEXT") : QStringLiteral("text");
    const QString integer = sqlite ? QStringLiteral("INTEGER") : QStringLiteral("bigint");
    const QString time = sqlite ? QStringLiteral("TEXT") : QStringLiteral("timestamptz");
    const QString uuid = sqlite ? QStringLiteral("TEXT CHECK (length(id) = 36 AND id = lower(id))")
                                : QStringLiteral("uuid");
    const QString hex = sqlite ? QStringLiteral("length(policy_version) = 64 AND"
                                                " policy_version NOT GLOB '*[^0-9a-f]*'")
                               : QStringLiteral("policy_version ~ '^[0-9a-f]{64}$'");
    const QString suffix = sqlite ? QStringLiteral(" STRICT") : QString();
    return {QStringLiteral(
                "CREATE TABLE schedules ("
                "id %4 NOT NULL PRIMARY KEY,"
                "tenant %1 NOT NULL CHECK (length(tenant) BETWEEN 1 AND 256),"
                "principal %1 NOT NULL CHECK (length(principal) BETWEEN 1 AND 256),"
                "profile_id %1 NOT NULL CHECK (length(profile_id) = 36),"
                "profile_generation %2 NOT NULL CHECK (profile_generation >= 1),"
                "task %1 NOT NULL CHECK (length(task) BETWEEN 1 AND 16384),"
                "calendar %1 NOT NULL CHECK (length(calendar) BETWEEN 1 AND 128),"
                "standing_grant %1 CHECK (length(standing_grant) = 36),"
                "model_endpoint %1 NOT NULL CHECK (length(model_endpoint) BETWEEN 1 AND 2048),"
                "model %1 NOT NULL CHECK (length(model) BETWEEN 1 AND 128),"
                "budget %2 NOT NULL CHECK (budget BETWEEN 1024 AND 1048576),"
                "deadline_minutes %2 NOT NULL CHECK (deadline_minutes BETWEEN 1 AND 1440),"
                "agent_version %1 NOT NULL CHECK (length(agent_version) BETWEEN 1 AND 128),"
                "policy_version %1 NOT NULL CHECK (%5),"
                "state %1 NOT NULL CHECK (state IN ('active', 'paused')),"
                "created_at %3 NOT NULL,"
                "updated_at %3 NOT NULL,"
                "last_occurrence_at %3,"
                "last_run %1 CHECK (length(last_run) = 36),"
                "last_status %1 CHECK (length(last_status) BETWEEN 1 AND 32),"
                "last_code %1 CHECK (length(last_code) BETWEEN 1 AND 64),"
                "CHECK ((last_occurrence_at IS NULL) = (last_status IS NULL)))")
                    .arg(text, integer, time, uuid, hex) +
                suffix,
            QStringLiteral("CREATE INDEX schedules_scope_created"
                           " ON schedules (tenant, principal, created_at)")};
}

QStringList sqliteVersion9()
{
    return scheduleTables(Dialect::Sqlite);
}

QStringList postgresVersion9()
{
    QStringList statements = scheduleTables(Dialect::Postgres);
    statements << tenantRowSecurity({u"schedules"});
    return statements;
}

// Version 10: the sign-in records' two failure codes of site verification definitions
// (session_wrong_account, session_public_page). The checks are version 2's with the wider list.
const QString kFailureCodesV2 = QStringLiteral("'invalid_request')),");
QString ceremonyChecksV10()
{
    QString checks = QString::fromUtf16(kCeremonyChecks);
    checks.replace(kFailureCodesV2, QStringLiteral("'invalid_request', 'session_wrong_account',"
                                                   " 'session_public_page')),"));
    return checks;
}

// SQLite alters no check: the table is built again under its new checks, its rows copied,
// and its indexes made again.
QStringList sqliteVersion10()
{
    const QString columns = QStringLiteral("id, profile_id, tenant, principal, mode, status, "
                                           "failure_code, created_at, expires_at, finished_at");
    return QStringList{
               sqliteCeremonyTable(QStringLiteral("browser_authentication_ceremonies_v10"),
                                   ceremonyChecksV10()),
               QStringLiteral("INSERT INTO browser_authentication_ceremonies_v10 (%1)"
                              " SELECT %1 FROM browser_authentication_ceremonies")
                   .arg(columns),
               QStringLiteral("DROP TABLE browser_authentication_ceremonies"),
               QStringLiteral("ALTER TABLE browser_authentication_ceremonies_v10"
                              " RENAME TO browser_authentication_ceremonies"),
           } +
           ceremonyIndexes();
}

QStringList postgresVersion10()
{
    QString failureCodes = ceremonyChecksV10();
    const QString name =
        QStringLiteral("CONSTRAINT browser_authentication_ceremonies_failure_code_closed");
    failureCodes = failureCodes.mid(failureCodes.indexOf(name));
    failureCodes = failureCodes.left(failureCodes.indexOf(QStringLiteral(")),")) + 2);
    return {QStringLiteral("ALTER TABLE browser_authentication_ceremonies"
                           " DROP CONSTRAINT browser_authentication_ceremonies_failure_code_closed,"
                           " ADD ") +
            failureCodes};
}

// Version 11: the masked account a site verification definition confirmed at the sign-in that
// made the profile READY (BrowserProfile::verifiedAccount), only on a READY profile. SQLite
// adds the column with its check (it cannot add a table constraint); PostgreSQL adds the same
// check as a table constraint, since it names two columns.
const QString kVerifiedAccountReady =
    QStringLiteral("CONSTRAINT browser_profiles_verified_account_ready"
                   " CHECK (verified_account IS NULL OR (status = 'ready'"
                   " AND length(verified_account) BETWEEN 1 AND 64))");

} // namespace

QList<Migration> migrations(Dialect dialect)
{
    if (dialect == Dialect::Postgres)
        return {Migration{1, postgresVersion1()},
                Migration{2, postgresVersion2()},
                Migration{3, postgresVersion3()},
                Migration{4, postgresVersion4()},
                Migration{5, postgresVersion5()},
                Migration{6, postgresVersion6()},
                Migration{7, postgresVersion7()},
                Migration{8, postgresVersion8()},
                Migration{9, postgresVersion9()},
                Migration{10, postgresVersion10()},
                Migration{11,
                          {QStringLiteral("ALTER TABLE browser_profiles"
                                          " ADD COLUMN verified_account text, ADD ") +
                           kVerifiedAccountReady}}};
    return {Migration{1, sqliteVersion1()},
            Migration{2, sqliteVersion2()},
            Migration{3, sqliteVersion3()},
            Migration{4, sqliteVersion4()},
            Migration{5, sqliteVersion5()},
            Migration{6, sqliteVersion6()},
            Migration{7, sqliteVersion7()},
            Migration{8, sqliteVersion8()},
            Migration{9, sqliteVersion9()},
            Migration{10, sqliteVersion10()},
            Migration{11,
                      {QStringLiteral("ALTER TABLE browser_profiles"
                                      " ADD COLUMN verified_account TEXT ") +
                       kVerifiedAccountReady}}};
}

} // namespace veetbot::ProfileSchema
