#include "ProfileSchema.h"

namespace veetbot::ProfileSchema {

namespace {

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
    // Tenant row-level security, enforced for the owner too. Without the setting
    // current_setting(..., true) is null (or '' after a transaction set it locally), which
    // matches no tenant: nothing is visible.
    for (const char16_t *table : {u"browser_profiles", u"browser_profile_origins"}) {
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

} // namespace

QList<Migration> migrations(Dialect dialect)
{
    if (dialect == Dialect::Postgres)
        return {Migration{1, postgresVersion1()}};
    return {Migration{1, sqliteVersion1()}};
}

} // namespace veetbot::ProfileSchema
