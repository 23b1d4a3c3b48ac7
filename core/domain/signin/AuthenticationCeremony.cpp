#include "AuthenticationCeremony.h"

#include "domain/ReasonCode.h"

#include <algorithm>

namespace veetbot {

QString ceremonyStatusString(CeremonyStatus status)
{
    switch (status) {
    case CeremonyStatus::Open:
        return QStringLiteral("open");
    case CeremonyStatus::Ready:
        return QStringLiteral("ready");
    case CeremonyStatus::Cancelled:
        return QStringLiteral("cancelled");
    case CeremonyStatus::Expired:
        return QStringLiteral("expired");
    case CeremonyStatus::Failed:
        return QStringLiteral("failed");
    }
    Q_UNREACHABLE();
    return QString();
}

std::optional<CeremonyStatus> ceremonyStatusFromString(const QString &text)
{
    for (CeremonyStatus status : kAllCeremonyStatuses) {
        if (ceremonyStatusString(status) == text)
            return status;
    }
    return std::nullopt;
}

bool isTerminalCeremonyStatus(CeremonyStatus status)
{
    return status != CeremonyStatus::Open;
}

QString ceremonyFailureCodeString(CeremonyFailureCode code)
{
    switch (code) {
    case CeremonyFailureCode::SessionEmpty:
        return QStringLiteral("session_empty");
    case CeremonyFailureCode::SessionSignedOut:
        return QStringLiteral("session_signed_out");
    case CeremonyFailureCode::SessionUnconfirmed:
        return QStringLiteral("session_unconfirmed");
    case CeremonyFailureCode::SessionWrongAccount:
        return QStringLiteral("session_wrong_account");
    case CeremonyFailureCode::SessionPublicPage:
        return QStringLiteral("session_public_page");
    case CeremonyFailureCode::ProviderUnavailable:
        return reasonCodeString(ReasonCode::ProviderUnavailable);
    case CeremonyFailureCode::ProfileUnavailable:
        return reasonCodeString(ReasonCode::ProfileUnavailable);
    case CeremonyFailureCode::InvalidRequest:
        return QStringLiteral("invalid_request");
    }
    Q_UNREACHABLE();
    return QString();
}

std::optional<CeremonyFailureCode> ceremonyFailureCodeFromString(const QString &text)
{
    for (CeremonyFailureCode code : kAllCeremonyFailureCodes) {
        if (ceremonyFailureCodeString(code) == text)
            return code;
    }
    return std::nullopt;
}

bool isCeremonyMode(const QString &mode)
{
    return mode == QStringView(kDeviceCeremonyMode) || mode == QStringView(kRemoteCeremonyMode);
}

namespace {

Error invalid()
{
    return profileError(ProfileFailure::Invalid);
}

} // namespace

bool AuthenticationCeremony::isOpenAt(const QDateTime &now) const
{
    return status == CeremonyStatus::Open && now < expiresAt;
}

AuthenticationCeremony AuthenticationCeremony::asOf(const QDateTime &now) const
{
    if (status != CeremonyStatus::Open || now < expiresAt)
        return *this;
    AuthenticationCeremony expired = *this;
    expired.status = CeremonyStatus::Expired;
    expired.finishedAt = expiresAt;
    return expired;
}

bool AuthenticationCeremony::isCeremonyId(const QString &text)
{
    if (text.size() != 36)
        return false;
    const QUuid id = QUuid::fromString(text);
    return !id.isNull() && id.toString(QUuid::WithoutBraces) == text;
}

Result<Unit> AuthenticationCeremony::validate() const
{
    if (!isCeremonyId(id) || profileId.isNull() || !isCeremonyMode(mode))
        return invalid();
    if (const Result<Unit> checked = scope().validate(); !checked)
        return checked.error();
    if (failureCode.has_value() != (status == CeremonyStatus::Failed))
        return invalid();
    if (finishedAt.has_value() != isTerminalCeremonyStatus(status))
        return invalid();
    if (!createdAt.isValid() || !expiresAt.isValid() || expiresAt <= createdAt ||
        createdAt.secsTo(expiresAt) > kMaxLifetimeSeconds)
        return invalid();
    if (finishedAt && (!finishedAt->isValid() || *finishedAt < createdAt))
        return invalid();
    return Unit{};
}

namespace CeremonyLifecycle {

Result<BrowserProfile> admit(const BrowserProfile &profile, qint64 expectedGeneration,
                             const std::optional<AuthenticationCeremony> &newestOpen,
                             const QDateTime &now)
{
    if (!now.isValid() || expectedGeneration < 0)
        return invalid();
    if (newestOpen && newestOpen->isOpenAt(now))
        return profileError(ProfileFailure::CeremonyConflict);
    // The generation check, the live-state rule and the advance itself.
    return ProfileLifecycle::advanceGeneration(profile, expectedGeneration, now);
}

Result<AuthenticationCeremony> begin(const BrowserProfile &profile, const QString &mode,
                                     const CeremonyLaunchRecord &launched, const QDateTime &now)
{
    if (!now.isValid() || !launched.expiresAt.isValid() || launched.expiresAt <= now)
        return invalid();
    AuthenticationCeremony ceremony;
    ceremony.id = launched.ceremonyId;
    ceremony.profileId = profile.id;
    ceremony.tenant = profile.tenant;
    ceremony.principal = profile.principal;
    ceremony.mode = mode;
    ceremony.status = CeremonyStatus::Open;
    ceremony.createdAt = now.toUTC();
    // Whatever the service's clock says, the record never outlives five minutes.
    ceremony.expiresAt =
        std::min(launched.expiresAt.toUTC(),
                 ceremony.createdAt.addSecs(AuthenticationCeremony::kMaxLifetimeSeconds));
    if (const Result<Unit> valid = ceremony.validate(); !valid)
        return valid.error();
    return ceremony;
}

Result<CeremonySettlement> finish(const AuthenticationCeremony &ceremony,
                                  const BrowserProfile &profile, CeremonyStatus outcome,
                                  const QString &failureCode, const std::optional<QString> &account,
                                  const QDateTime &now)
{
    if (!now.isValid() || !isTerminalCeremonyStatus(outcome) ||
        (account &&
         (outcome != CeremonyStatus::Ready || !BrowserProfile::isAccountLabel(*account))))
        return invalid();
    std::optional<CeremonyFailureCode> code;
    if (outcome == CeremonyStatus::Failed) {
        code = ceremonyFailureCodeFromString(failureCode);
        if (!code)
            return invalid();
    } else if (!failureCode.isEmpty()) {
        return invalid();
    }

    if (isTerminalCeremonyStatus(ceremony.status)) {
        if (ceremony.status != outcome || ceremony.failureCode != code)
            return profileError(ProfileFailure::CeremonyOutcomeConflict);
        return CeremonySettlement{ceremony, profile, std::nullopt};
    }

    CeremonySettlement settlement{ceremony, profile, std::nullopt};
    settlement.ceremony.status = outcome;
    settlement.ceremony.failureCode = code;
    // An expiry is recorded as the moment it happened, however late it is learned.
    const QDateTime finished = outcome == CeremonyStatus::Expired
                                   ? std::min(now.toUTC(), ceremony.expiresAt)
                                   : now.toUTC();
    settlement.ceremony.finishedAt = std::max(finished, ceremony.createdAt);
    if (outcome == CeremonyStatus::Ready) {
        Result<BrowserProfile> verified = ProfileLifecycle::recordVerified(profile, now, account);
        if (verified) {
            settlement.profile = std::move(verified).value();
        } else {
            // The session cannot be used for this profile any more (it was revoked meanwhile):
            // the sign-in ends failed, as the service itself would report it.
            settlement.ceremony.status = CeremonyStatus::Failed;
            settlement.ceremony.failureCode = CeremonyFailureCode::ProfileUnavailable;
            settlement.refusal = verified.error();
        }
    }
    return settlement;
}

} // namespace CeremonyLifecycle

} // namespace veetbot
