#include "BrowserProfile.h"

#include <QJsonArray>
#include <QJsonValue>

#include <openssl/rand.h>

#include <algorithm>
#include <limits>

namespace veetbot {

QString profileFailureString(ProfileFailure failure)
{
    switch (failure) {
    case ProfileFailure::NotFound:
        return QStringLiteral("profile.not_found");
    case ProfileFailure::StaleGeneration:
        return QStringLiteral("profile.stale_generation");
    case ProfileFailure::Conflict:
        return QStringLiteral("profile.conflict");
    case ProfileFailure::InvalidTransition:
        return QStringLiteral("profile.invalid_transition");
    case ProfileFailure::Invalid:
        return QStringLiteral("profile.invalid");
    case ProfileFailure::RepositoryUnavailable:
        return QStringLiteral("repository.unavailable");
    case ProfileFailure::SchemaUnknown:
        return QStringLiteral("repository.schema_unknown");
    case ProfileFailure::PrivilegedRole:
        return QStringLiteral("repository.privileged_role");
    case ProfileFailure::CeremonyConflict:
        return QStringLiteral("profile.ceremony_open");
    case ProfileFailure::CeremonyNotFound:
        return QStringLiteral("ceremony.not_found");
    case ProfileFailure::CeremonyOutcomeConflict:
        return QStringLiteral("ceremony.outcome_conflict");
    }
    Q_UNREACHABLE();
    return QString();
}

QString profileFailureMessage(ProfileFailure failure)
{
    switch (failure) {
    case ProfileFailure::NotFound:
        return QStringLiteral("The browser profile was not found.");
    case ProfileFailure::StaleGeneration:
        return QStringLiteral("The browser profile changed; read it again and retry.");
    case ProfileFailure::Conflict:
        return QStringLiteral("The browser profile conflicts with an existing one.");
    case ProfileFailure::InvalidTransition:
        return QStringLiteral("The browser profile's state does not allow this change.");
    case ProfileFailure::Invalid:
        return QStringLiteral("The browser profile data is not valid.");
    case ProfileFailure::RepositoryUnavailable:
        return QStringLiteral("The profile store is not available.");
    case ProfileFailure::SchemaUnknown:
        return QStringLiteral("The profile store has a schema version this program does not know.");
    case ProfileFailure::PrivilegedRole:
        return QStringLiteral("The profile store connection must not use a privileged role.");
    case ProfileFailure::CeremonyConflict:
        return QStringLiteral(
            "A sign-in is already in progress for this profile; finish or cancel it first.");
    case ProfileFailure::CeremonyNotFound:
        return QStringLiteral("The sign-in was not found.");
    case ProfileFailure::CeremonyOutcomeConflict:
        return QStringLiteral("The sign-in has already ended with another outcome.");
    }
    Q_UNREACHABLE();
    return QString();
}

Error profileError(ProfileFailure failure)
{
    return Error{profileFailureString(failure), profileFailureMessage(failure)};
}

bool isProfileFailure(const Error &error, ProfileFailure failure)
{
    return error.code == profileFailureString(failure);
}

QString profileStatusString(ProfileStatus status)
{
    switch (status) {
    case ProfileStatus::Provisioning:
        return QStringLiteral("provisioning");
    case ProfileStatus::AuthenticationRequired:
        return QStringLiteral("authentication_required");
    case ProfileStatus::Ready:
        return QStringLiteral("ready");
    case ProfileStatus::NeedsUser:
        return QStringLiteral("needs_user");
    case ProfileStatus::Revoked:
        return QStringLiteral("revoked");
    }
    Q_UNREACHABLE();
    return QString();
}

std::optional<ProfileStatus> profileStatusFromString(const QString &text)
{
    for (ProfileStatus status : kAllProfileStatuses) {
        if (profileStatusString(status) == text)
            return status;
    }
    return std::nullopt;
}

namespace {

Error invalid()
{
    return profileError(ProfileFailure::Invalid);
}

bool hasControlCharacter(const QString &text)
{
    return std::any_of(text.cbegin(), text.cend(), [](QChar c) {
        const char16_t u = c.unicode();
        return u < 0x20 || (u >= 0x7f && u < 0xa0) || c.category() == QChar::Other_Format;
    });
}

bool isScopeId(const QString &text)
{
    return !text.isEmpty() && text.size() <= BrowserProfile::kMaxScopeLength &&
           !hasControlCharacter(text);
}

// Opaque control-plane tokens: printable ASCII without spaces, bounded.
bool isOpaqueToken(const QString &text, int maxLength)
{
    if (text.isEmpty() || text.size() > maxLength)
        return false;
    return std::all_of(text.cbegin(), text.cend(), [](QChar c) {
        const char16_t u = c.unicode();
        return u > 0x20 && u < 0x7f;
    });
}

bool isRandomUuid(const QUuid &id)
{
    return !id.isNull() && id.variant() == QUuid::DCE && id.version() == QUuid::Random;
}

bool isValidOptionalTime(const std::optional<QDateTime> &time)
{
    return !time || time->isValid();
}

Result<qint64> nextGeneration(const BrowserProfile &profile)
{
    if (profile.generation >= std::numeric_limits<qint64>::max())
        return invalid();
    return profile.generation + 1;
}

Result<Unit> checkGeneration(const BrowserProfile &profile, qint64 expectedGeneration)
{
    if (expectedGeneration < 0)
        return invalid();
    if (profile.generation != expectedGeneration)
        return profileError(ProfileFailure::StaleGeneration);
    return Unit{};
}

Error invalidTransition()
{
    return profileError(ProfileFailure::InvalidTransition);
}

} // namespace

Result<Unit> ProfileScope::validate() const
{
    if (!isScopeId(tenant) || !isScopeId(principal))
        return invalid();
    return Unit{};
}

bool BrowserProfile::isAccountLabel(const QString &text)
{
    return !text.isEmpty() && text.size() <= kMaxAccountLabelLength && !hasControlCharacter(text);
}

Result<QList<Origin>> BrowserProfile::normalizeOrigins(QList<Origin> origins)
{
    if (origins.isEmpty() || origins.size() > kMaxOrigins)
        return invalid();
    std::sort(origins.begin(), origins.end());
    if (std::adjacent_find(origins.cbegin(), origins.cend()) != origins.cend())
        return invalid();
    return origins;
}

Result<BrowserProfile> BrowserProfile::reserve(const ProfileScope &scope, QList<Origin> origins,
                                               const QDateTime &now)
{
    if (const Result<Unit> checked = scope.validate(); !checked)
        return checked.error();
    Result<QList<Origin>> normalized = normalizeOrigins(std::move(origins));
    if (!normalized)
        return normalized.error();
    if (!now.isValid())
        return invalid();
    BrowserProfile profile;
    profile.id = newId();
    profile.tenant = scope.tenant;
    profile.principal = scope.principal;
    profile.allowedOrigins = std::move(normalized).value();
    profile.status = ProfileStatus::Provisioning;
    profile.generation = 0;
    profile.createdAt = now.toUTC();
    profile.updatedAt = profile.createdAt;
    return profile;
}

QUuid BrowserProfile::newId()
{
    QByteArray bytes(16, Qt::Uninitialized);
    if (RAND_bytes(reinterpret_cast<unsigned char *>(bytes.data()), int(bytes.size())) != 1)
        qFatal("RAND_bytes failed");
    bytes[6] = char((bytes[6] & 0x0f) | 0x40); // version 4
    bytes[8] = char((bytes[8] & 0x3f) | 0x80); // RFC 4122 variant
    return QUuid::fromRfc4122(bytes);
}

QString BrowserProfile::newProviderReference()
{
    QByteArray bytes(32, Qt::Uninitialized);
    if (RAND_bytes(reinterpret_cast<unsigned char *>(bytes.data()), int(bytes.size())) != 1)
        qFatal("RAND_bytes failed");
    return QString::fromLatin1(
        bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

Result<Unit> BrowserProfile::validate() const
{
    if (!isRandomUuid(id))
        return invalid();
    if (const Result<Unit> checked = scope().validate(); !checked)
        return checked.error();
    if (allowedOrigins.isEmpty() || allowedOrigins.size() > kMaxOrigins)
        return invalid();
    for (qsizetype i = 1; i < allowedOrigins.size(); ++i) {
        if (!(allowedOrigins[i - 1] < allowedOrigins[i]))
            return invalid(); // not sorted, or repeated
    }
    if (generation < 0)
        return invalid();

    // Binding consistency: the three binding fields are present together, absent only for
    // a PROVISIONING reservation or a reservation revoked before it was ever bound.
    const bool anyBinding = providerName || providerReference || keyVersion;
    const bool fullBinding = providerName && providerReference && keyVersion;
    if (anyBinding && !fullBinding)
        return invalid();
    if (fullBinding) {
        if (status == ProfileStatus::Provisioning)
            return invalid();
        if (!isOpaqueToken(*providerName, kMaxProviderNameLength) ||
            !isOpaqueToken(*providerReference, kMaxProviderReferenceLength) ||
            !isOpaqueToken(*keyVersion, kMaxKeyVersionLength))
            return invalid();
    } else if (status != ProfileStatus::Provisioning && status != ProfileStatus::Revoked) {
        return invalid();
    }

    if (!createdAt.isValid() || !updatedAt.isValid() || updatedAt < createdAt ||
        !isValidOptionalTime(lastUsedAt) || !isValidOptionalTime(lastVerifiedAt))
        return invalid();
    if (verifiedAccount &&
        (status != ProfileStatus::Ready || !BrowserProfile::isAccountLabel(*verifiedAccount)))
        return invalid();
    return Unit{};
}

namespace ProfileLifecycle {

bool isLive(ProfileStatus status)
{
    return status == ProfileStatus::AuthenticationRequired || status == ProfileStatus::Ready ||
           status == ProfileStatus::NeedsUser;
}

bool allowsTransition(ProfileStatus from, ProfileStatus to)
{
    switch (to) {
    case ProfileStatus::Provisioning:
    case ProfileStatus::AuthenticationRequired:
        return false; // bind() only
    case ProfileStatus::Ready:
        return from == ProfileStatus::AuthenticationRequired || from == ProfileStatus::NeedsUser;
    case ProfileStatus::NeedsUser:
        return from == ProfileStatus::Ready;
    case ProfileStatus::Revoked:
        return from == ProfileStatus::Provisioning || isLive(from);
    }
    return false;
}

Result<BrowserProfile> bind(const BrowserProfile &profile, qint64 expectedGeneration,
                            const QString &providerName, const QString &providerReference,
                            const QString &keyVersion, const QDateTime &now)
{
    if (!isOpaqueToken(providerName, BrowserProfile::kMaxProviderNameLength) ||
        !isOpaqueToken(providerReference, BrowserProfile::kMaxProviderReferenceLength) ||
        !isOpaqueToken(keyVersion, BrowserProfile::kMaxKeyVersionLength) || !now.isValid())
        return invalid();
    if (const Result<Unit> checked = checkGeneration(profile, expectedGeneration); !checked)
        return checked.error();
    if (profile.status != ProfileStatus::Provisioning || profile.isBound())
        return invalidTransition();
    const Result<qint64> generation = nextGeneration(profile);
    if (!generation)
        return generation.error();
    BrowserProfile next = profile;
    next.providerName = providerName;
    next.providerReference = providerReference;
    next.keyVersion = keyVersion;
    next.status = ProfileStatus::AuthenticationRequired;
    next.generation = *generation;
    next.verifiedAccount.reset();
    next.updatedAt = std::max(now.toUTC(), profile.createdAt);
    return next;
}

Result<BrowserProfile> transition(const BrowserProfile &profile, qint64 expectedGeneration,
                                  ProfileStatus to, const QDateTime &now)
{
    if (!now.isValid())
        return invalid();
    if (const Result<Unit> checked = checkGeneration(profile, expectedGeneration); !checked)
        return checked.error();
    if (!allowsTransition(profile.status, to))
        return invalidTransition();
    const Result<qint64> generation = nextGeneration(profile);
    if (!generation)
        return generation.error();
    BrowserProfile next = profile;
    next.status = to;
    next.generation = *generation;
    next.verifiedAccount.reset(); // the confirmation was the old generation's
    next.updatedAt = std::max(now.toUTC(), profile.createdAt);
    return next;
}

Result<BrowserProfile> advanceGeneration(const BrowserProfile &profile, qint64 expectedGeneration,
                                         const QDateTime &now)
{
    if (!now.isValid())
        return invalid();
    if (const Result<Unit> checked = checkGeneration(profile, expectedGeneration); !checked)
        return checked.error();
    if (!isLive(profile.status))
        return invalidTransition();
    const Result<qint64> generation = nextGeneration(profile);
    if (!generation)
        return generation.error();
    BrowserProfile next = profile;
    next.generation = *generation;
    next.verifiedAccount.reset(); // a sign-in begins: the session may become another account's
    next.updatedAt = std::max(now.toUTC(), profile.createdAt);
    return next;
}

Result<BrowserProfile> recordVerified(const BrowserProfile &profile, const QDateTime &now,
                                      const std::optional<QString> &account)
{
    if (!now.isValid() || (account && !BrowserProfile::isAccountLabel(*account)))
        return invalid();
    if (profile.status != ProfileStatus::Ready &&
        !allowsTransition(profile.status, ProfileStatus::Ready))
        return invalidTransition();
    const Result<qint64> generation = nextGeneration(profile);
    if (!generation)
        return generation.error();
    BrowserProfile next = profile;
    next.status = ProfileStatus::Ready;
    next.generation = *generation;
    next.updatedAt = std::max(now.toUTC(), profile.createdAt);
    next.lastVerifiedAt = now.toUTC();
    next.verifiedAccount = account;
    return next;
}

Result<BrowserProfile> touchLastUsed(const BrowserProfile &profile, const QDateTime &now)
{
    if (!now.isValid())
        return invalid();
    if (profile.status == ProfileStatus::Revoked)
        return invalidTransition();
    BrowserProfile next = profile;
    next.lastUsedAt = now.toUTC();
    return next;
}

Result<BrowserProfile> updateKeyVersion(const BrowserProfile &profile, qint64 expectedGeneration,
                                        const QString &keyVersion, const QDateTime &now)
{
    if (!isOpaqueToken(keyVersion, BrowserProfile::kMaxKeyVersionLength) || !now.isValid())
        return invalid();
    if (const Result<Unit> checked = checkGeneration(profile, expectedGeneration); !checked)
        return checked.error();
    if (!isLive(profile.status) || !profile.isBound())
        return invalidTransition();
    const Result<qint64> generation = nextGeneration(profile);
    if (!generation)
        return generation.error();
    BrowserProfile next = profile;
    next.keyVersion = keyVersion;
    next.generation = *generation;
    next.updatedAt = std::max(now.toUTC(), profile.createdAt);
    return next;
}

Result<Unit> checkRemovable(const BrowserProfile &profile, qint64 expectedGeneration)
{
    if (const Result<Unit> checked = checkGeneration(profile, expectedGeneration); !checked)
        return checked.error();
    if (profile.status != ProfileStatus::Revoked)
        return invalidTransition();
    return Unit{};
}

} // namespace ProfileLifecycle

namespace {

QJsonValue timeValue(const QDateTime &time)
{
    return time.toUTC().toString(Qt::ISODateWithMs);
}

} // namespace

BrowserProfileView BrowserProfileView::of(const BrowserProfile &profile)
{
    BrowserProfileView view;
    view.id = profile.id;
    view.providerName = profile.providerName;
    view.allowedOrigins = profile.allowedOrigins;
    view.status = profile.status;
    view.generation = profile.generation;
    view.createdAt = profile.createdAt;
    view.updatedAt = profile.updatedAt;
    view.lastUsedAt = profile.lastUsedAt;
    view.lastVerifiedAt = profile.lastVerifiedAt;
    view.verifiedAccount = profile.verifiedAccount;
    return view;
}

QJsonObject BrowserProfileView::toJson() const
{
    QJsonArray origins;
    for (const Origin &origin : allowedOrigins)
        origins.append(origin.toString());
    return QJsonObject{
        {QStringLiteral("id"), id.toString(QUuid::WithoutBraces)},
        {QStringLiteral("provider"),
         providerName ? QJsonValue(*providerName) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("allowed_origins"), origins},
        {QStringLiteral("status"), profileStatusString(status)},
        {QStringLiteral("generation"), double(generation)},
        {QStringLiteral("created_at"), timeValue(createdAt)},
        {QStringLiteral("updated_at"), timeValue(updatedAt)},
        {QStringLiteral("last_used_at"),
         lastUsedAt ? timeValue(*lastUsedAt) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("last_verified_at"),
         lastVerifiedAt ? timeValue(*lastVerifiedAt) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("account"),
         verifiedAccount ? QJsonValue(*verifiedAccount) : QJsonValue(QJsonValue::Null)},
    };
}

} // namespace veetbot
