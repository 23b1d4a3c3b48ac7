#pragma once

#include "domain/Result.h"
#include "domain/profile/BrowserProfile.h"

#include <QDateTime>
#include <QString>
#include <QUuid>

#include <optional>

namespace veetbot {

// Where a sign-in stands. OPEN until an outcome is recorded; every other status is terminal.
enum class CeremonyStatus
{
    Open,
    Ready,
    Cancelled,
    Expired,
    Failed,
};

inline constexpr CeremonyStatus kAllCeremonyStatuses[] = {
    CeremonyStatus::Open,    CeremonyStatus::Ready,  CeremonyStatus::Cancelled,
    CeremonyStatus::Expired, CeremonyStatus::Failed,
};

// "open", "ready", "cancelled", "expired", "failed".
QString ceremonyStatusString(CeremonyStatus status);
std::optional<CeremonyStatus> ceremonyStatusFromString(const QString &text);
bool isTerminalCeremonyStatus(CeremonyStatus status);

// Why a sign-in failed: the fixed codes the isolated service answers a hand-off with.
enum class CeremonyFailureCode
{
    SessionEmpty,       // session_empty: nothing in scope remained
    SessionSignedOut,   // session_signed_out: with the session the site still asked to sign in
    SessionUnconfirmed, // session_unconfirmed: the site behaved the same without the session
    // The profile's site verification definition (SiteVerification.h):
    SessionWrongAccount, // session_wrong_account: the protected state, another account
    SessionPublicPage,   // session_public_page: the empty session shows the protected state too
    ProviderUnavailable, // tool.browser.provider_unavailable: verification could not run
    ProfileUnavailable,  // tool.browser.profile_unavailable: the profile was revoked or deleted
    InvalidRequest,      // invalid_request
};

inline constexpr CeremonyFailureCode kAllCeremonyFailureCodes[] = {
    CeremonyFailureCode::SessionEmpty,        CeremonyFailureCode::SessionSignedOut,
    CeremonyFailureCode::SessionUnconfirmed,  CeremonyFailureCode::ProviderUnavailable,
    CeremonyFailureCode::ProfileUnavailable,  CeremonyFailureCode::InvalidRequest,
    CeremonyFailureCode::SessionWrongAccount, CeremonyFailureCode::SessionPublicPage,
};

QString ceremonyFailureCodeString(CeremonyFailureCode code);
std::optional<CeremonyFailureCode> ceremonyFailureCodeFromString(const QString &text);

// The sign-in modes this program begins: in the service's own browser (remote) and on the
// owner's device (device; the workbench's own view is one).
inline constexpr char16_t kRemoteCeremonyMode[] = u"remote";
inline constexpr char16_t kDeviceCeremonyMode[] = u"device";
bool isCeremonyMode(const QString &mode);

// What the isolated service answers when it launches a ceremony: the id it minted and when
// the ceremony expires. The launch capability stays with the caller; it is never recorded.
struct CeremonyLaunchRecord
{
    QString ceremonyId;
    QDateTime expiresAt;
};

// The orchestration's durable record of one sign-in. Holds no capability, launch URL, cookie,
// token or storage state: only who began it for which profile, how, and how it ended.
struct AuthenticationCeremony
{
    // A ceremony lives at most five minutes; a longer expiry from the service is cut to it.
    static constexpr qint64 kMaxLifetimeSeconds = 5 * 60;

    QString id; // lowercase hyphenated UUID, as the service minted it
    QUuid profileId;
    QString tenant;
    QString principal;
    QString mode;
    CeremonyStatus status = CeremonyStatus::Open;
    std::optional<CeremonyFailureCode> failureCode; // exactly when FAILED
    QDateTime createdAt;
    QDateTime expiresAt;
    std::optional<QDateTime> finishedAt; // exactly when terminal

    ProfileScope scope() const { return ProfileScope{tenant, principal}; }
    // Open and not yet expired at `now`: such a ceremony blocks another begin.
    bool isOpenAt(const QDateTime &now) const;
    // The record as a reader sees it at `now`: an open ceremony past its expiry reads as
    // EXPIRED, finished at its expiry. The stored record is unchanged (an outcome the
    // service learned before the expiry can still be recorded).
    AuthenticationCeremony asOf(const QDateTime &now) const;

    // Exactly 36 characters: a UUID in lowercase hyphenated form, without braces.
    static bool isCeremonyId(const QString &text);

    // The invariants the durable schema also enforces: id form, profile id, scope, mode,
    // failure code exactly when FAILED, finish time exactly when terminal, and
    // createdAt < expiresAt <= createdAt + 5 minutes. profile.invalid otherwise.
    Result<Unit> validate() const;

    friend bool operator==(const AuthenticationCeremony &,
                           const AuthenticationCeremony &) = default;
};

// A begun ceremony: the profile with its advanced generation, and the new record.
struct CeremonyBegun
{
    BrowserProfile profile;
    AuthenticationCeremony ceremony;
};

// A finished ceremony: the record with its outcome, and the profile (READY after a ready
// outcome, otherwise as it was).
struct CeremonyFinished
{
    AuthenticationCeremony ceremony;
    BrowserProfile profile;
};

// What finishing writes: the record and the profile to store (each equal to what was read
// when it does not change), and a failure to answer once that write has committed.
struct CeremonySettlement
{
    AuthenticationCeremony ceremony;
    BrowserProfile profile;
    std::optional<Error> refusal;
};

// The ceremony rules as pure functions over what a repository read under its lock; they
// never change their input.
namespace CeremonyLifecycle {

// May a ceremony begin for this profile now? Checks, in order: an unexpired open ceremony
// (profile.ceremony_open, which is what a concurrent begin that waited for the winner sees),
// the expected generation (profile.stale_generation), a live profile
// (profile.invalid_transition for PROVISIONING or REVOKED). Returns the profile with its
// generation advanced, the status unchanged.
Result<BrowserProfile> admit(const BrowserProfile &profile, qint64 expectedGeneration,
                             const std::optional<AuthenticationCeremony> &newestOpen,
                             const QDateTime &now);

// The new OPEN record of what the launch returned. profile.invalid when the launch's id is not
// a lowercase hyphenated UUID or its expiry is not after now; an expiry beyond five minutes
// is cut to five minutes.
Result<AuthenticationCeremony> begin(const BrowserProfile &profile, const QString &mode,
                                     const CeremonyLaunchRecord &launched, const QDateTime &now);

// Records an outcome on the stored record. Checks, in order: the outcome and its failure code
// (profile.invalid: OPEN is no outcome, FAILED needs one of the fixed codes and nothing else
// takes one; `account`, the masked account a site verification definition confirmed, goes only
// with READY); then a terminal record: the same outcome again is an unchanged success, another
// is ceremony.outcome_conflict. READY moves the profile to READY (ProfileLifecycle::
// recordVerified, with the account); when the profile cannot become READY the ceremony is recorded
// as FAILED tool.browser.profile_unavailable instead and the answer is profile.invalid_transition.
// Other outcomes leave the profile alone. An open record past its expiry still takes the
// outcome: the service keeps an outcome after the expiry, so a late reader can record it.
Result<CeremonySettlement> finish(const AuthenticationCeremony &ceremony,
                                  const BrowserProfile &profile, CeremonyStatus outcome,
                                  const QString &failureCode, const std::optional<QString> &account,
                                  const QDateTime &now);

} // namespace CeremonyLifecycle

} // namespace veetbot
