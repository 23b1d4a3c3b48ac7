#pragma once

#include "domain/Result.h"
#include "domain/web/Origin.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QUuid>

#include <optional>

namespace veetbot {

// Stable failures of profile metadata operations, sign-in records included. The codes are
// wire strings ("profile.not_found", ...); the messages are fixed and never name a profile,
// ceremony, tenant, principal, reference or database detail.
enum class ProfileFailure
{
    NotFound,                // profile.not_found: unknown id, or another principal's/tenant's
    StaleGeneration,         // profile.stale_generation: the expected generation is not current
    Conflict,                // profile.conflict: the id or the provider reference is taken
    InvalidTransition,       // profile.invalid_transition: the lifecycle forbids it
    Invalid,                 // profile.invalid: malformed input
    RepositoryUnavailable,   // repository.unavailable
    SchemaUnknown,           // repository.schema_unknown: missing, unknown or newer schema
    PrivilegedRole,          // repository.privileged_role: owner, superuser or BYPASSRLS
    CeremonyConflict,        // profile.ceremony_open: an unexpired sign-in is still open
    CeremonyNotFound,        // ceremony.not_found: unknown id, or another principal's/tenant's
    CeremonyOutcomeConflict, // ceremony.outcome_conflict: it already ended another way
};

QString profileFailureString(ProfileFailure failure);
QString profileFailureMessage(ProfileFailure failure);
Error profileError(ProfileFailure failure);
bool isProfileFailure(const Error &error, ProfileFailure failure);

enum class ProfileStatus
{
    Provisioning,
    AuthenticationRequired,
    Ready,
    NeedsUser,
    Revoked,
};

inline constexpr ProfileStatus kAllProfileStatuses[] = {
    ProfileStatus::Provisioning, ProfileStatus::AuthenticationRequired,
    ProfileStatus::Ready,        ProfileStatus::NeedsUser,
    ProfileStatus::Revoked,
};

// "provisioning", "authentication_required", "ready", "needs_user", "revoked".
QString profileStatusString(ProfileStatus status);
std::optional<ProfileStatus> profileStatusFromString(const QString &text);

// The owner of a profile. Every repository operation is confined to one scope; another
// scope's profiles are indistinguishable from unknown ones.
struct ProfileScope
{
    QString tenant;
    QString principal;

    // Both 1-256 characters without control characters; profile.invalid otherwise.
    Result<Unit> validate() const;
    friend bool operator==(const ProfileScope &, const ProfileScope &) = default;
};

// Durable metadata of one browser profile. Holds no cookie, token, storage or key bytes:
// the provider's encrypted material is reachable only through the opaque provider
// reference, which only the control plane interprets.
struct BrowserProfile
{
    static constexpr int kMaxOrigins = 64;
    static constexpr int kMaxScopeLength = 256;
    static constexpr int kMaxProviderNameLength = 64;
    static constexpr int kMaxProviderReferenceLength = 256;
    static constexpr int kMaxKeyVersionLength = 128;
    static constexpr int kMaxAccountLabelLength = 64;

    QUuid id;
    QString tenant;
    QString principal;
    std::optional<QString> providerName;
    std::optional<QString> providerReference;
    // Exact normalized public HTTPS origins: 1-64, unique, sorted ascending.
    QList<Origin> allowedOrigins;
    ProfileStatus status = ProfileStatus::Provisioning;
    qint64 generation = 0;
    std::optional<QString> keyVersion;
    QDateTime createdAt;
    QDateTime updatedAt;
    std::optional<QDateTime> lastUsedAt;
    // When a sign-in last ended ready: the service had verified the session from its own
    // address. Absent until the first one.
    std::optional<QDateTime> lastVerifiedAt;
    // The masked account a site verification definition confirmed at the sign-in that made
    // this generation READY (SiteDefinition::accountLabel, docs/signin.md "Which
    // account"): what Website Access says the website is signed in as. Absent without a
    // definition. Bound to the session it confirmed: a sign-in beginning and every change of
    // status drop it; re-sealing the same session under another key keeps it. 1-64 characters
    // without control characters, and only on a READY profile.
    std::optional<QString> verifiedAccount;

    ProfileScope scope() const { return ProfileScope{tenant, principal}; }
    bool isBound() const { return providerReference.has_value(); }

    // A fresh PROVISIONING reservation at generation 0 with a random v4 id and no binding.
    // Origins are sorted; duplicates, none or more than 64 are profile.invalid.
    static Result<BrowserProfile> reserve(const ProfileScope &scope, QList<Origin> origins,
                                          const QDateTime &now);
    // A random version-4 UUID from OpenSSL RAND_bytes.
    static QUuid newId();
    // 256 random bits from OpenSSL RAND_bytes, base64url without padding (43 characters).
    static QString newProviderReference();
    // A verifiedAccount: 1-64 characters without control characters.
    static bool isAccountLabel(const QString &text);
    // Sorts; profile.invalid when empty, above 64 or when an origin repeats.
    static Result<QList<Origin>> normalizeOrigins(QList<Origin> origins);

    // Every invariant the durable schema also enforces (ids, scope, sorted unique origins,
    // non-negative generation, binding consistency, timestamps). profile.invalid otherwise.
    Result<Unit> validate() const;

    friend bool operator==(const BrowserProfile &, const BrowserProfile &) = default;
};

// The lifecycle as pure functions: each returns the successor metadata or a stable failure
// and never changes its input. Checks run in a fixed order: malformed arguments
// (profile.invalid), then the expected generation (profile.stale_generation), then the
// lifecycle rule (profile.invalid_transition). Every generation-guarded change increments
// the generation by one; touching last use never does.
namespace ProfileLifecycle {

// AUTHENTICATION_REQUIRED, READY or NEEDS_USER, the states a lease may refer to.
bool isLive(ProfileStatus status);
// The rules of transition(): AUTHENTICATION_REQUIRED/NEEDS_USER -> READY,
// READY -> NEEDS_USER, PROVISIONING or any live state -> REVOKED. Entering
// AUTHENTICATION_REQUIRED happens only through bind(); nothing leaves REVOKED.
bool allowsTransition(ProfileStatus from, ProfileStatus to);

// PROVISIONING -> AUTHENTICATION_REQUIRED, recording the provider binding.
Result<BrowserProfile> bind(const BrowserProfile &profile, qint64 expectedGeneration,
                            const QString &providerName, const QString &providerReference,
                            const QString &keyVersion, const QDateTime &now);
Result<BrowserProfile> transition(const BrowserProfile &profile, qint64 expectedGeneration,
                                  ProfileStatus to, const QDateTime &now);
// A sign-in begins (or a ready outcome is recorded again): the generation advances and the
// status stays. Only for a live profile.
Result<BrowserProfile> advanceGeneration(const BrowserProfile &profile, qint64 expectedGeneration,
                                         const QDateTime &now);
// A sign-in ended ready: AUTHENTICATION_REQUIRED, NEEDS_USER or READY -> READY, the
// generation advances (also for a profile that was READY already, since the session may now
// be another account's) and the verification time is now. profile.invalid_transition for
// any other state. Not generation-guarded: the outcome belongs to the ceremony that
// advanced the generation when it began, and later writes do not make it stale. `account` is
// the masked account the service confirmed with a site verification definition, or none;
// profile.invalid when it is not a valid label.
Result<BrowserProfile> recordVerified(const BrowserProfile &profile, const QDateTime &now,
                                      const std::optional<QString> &account = std::nullopt);
// Records use; the generation and the update time stay. Not for a REVOKED profile.
Result<BrowserProfile> touchLastUsed(const BrowserProfile &profile, const QDateTime &now);
// The material was re-sealed under another key version. Only for a bound live profile.
Result<BrowserProfile> updateKeyVersion(const BrowserProfile &profile, qint64 expectedGeneration,
                                        const QString &keyVersion, const QDateTime &now);
// Deletion is allowed only from REVOKED.
Result<Unit> checkRemovable(const BrowserProfile &profile, qint64 expectedGeneration);

} // namespace ProfileLifecycle

// What commands and public views show of a profile: no provider reference, no key version,
// no tenant or principal id.
struct BrowserProfileView
{
    QUuid id;
    std::optional<QString> providerName;
    QList<Origin> allowedOrigins;
    ProfileStatus status = ProfileStatus::Provisioning;
    qint64 generation = 0;
    QDateTime createdAt;
    QDateTime updatedAt;
    std::optional<QDateTime> lastUsedAt;
    std::optional<QDateTime> lastVerifiedAt;
    std::optional<QString> verifiedAccount;

    static BrowserProfileView of(const BrowserProfile &profile);
    // {"id", "provider", "allowed_origins", "status", "generation", "created_at",
    //  "updated_at", "last_used_at", "last_verified_at", "account"}; times are UTC ISO 8601
    //  with milliseconds, or null when absent; "account" is the masked verified account or
    //  null.
    QJsonObject toJson() const;
    friend bool operator==(const BrowserProfileView &, const BrowserProfileView &) = default;
};

} // namespace veetbot
