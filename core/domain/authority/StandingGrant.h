#pragma once

#include "domain/Result.h"
#include "domain/action/ActRequest.h"
#include "domain/observation/ElementFacts.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/web/Origin.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QUrl>
#include <QUuid>

#include <optional>

namespace veetbot {

// Stable failures of standing grants. The codes are wire strings ("grant.invalid", ...); the
// messages are fixed and never name a URL, origin, element name, purpose or principal.
enum class StandingGrantFailure
{
    Invalid,          // grant.invalid: a field out of its bounds
    OriginNotAllowed, // grant.origin_not_allowed: an origin the profile does not allow
    NotFound,         // grant.not_found: unknown id, or another principal's/tenant's
    ProfileNotReady,  // grant.profile_not_ready: the profile is not READY
    CeremonyPending,  // grant.ceremony_pending: the profile's newest sign-in has no outcome
};

QString standingGrantFailureString(StandingGrantFailure failure);
QString standingGrantFailureMessage(StandingGrantFailure failure);
Error standingGrantError(StandingGrantFailure failure);
bool isStandingGrantFailure(const Error &error, StandingGrantFailure failure);
// A policy version as grants and schedules pin it: 64 lower-case hex digits
// (PolicySettings::version()).
bool isPolicyVersion(const QString &text);

// The roles a grant's element-role constraint may name: the roles the consequence classifier
// reads as an ordinary control (isRoutineRole), since a grant covers routine interaction only.
QStringList standingGrantRoles();

// Durable owner authority for unattended routine interaction on one browser profile
// (docs/authority.md). Metadata only: it holds no browser material, page text or typed text,
// and it is never created, widened or selected by a model, a tool argument or page content.
// A value that fails validate() authorizes nothing.
struct StandingGrant
{
    static constexpr int kMaxOrigins = 16;
    static constexpr int kMaxAgentVersionLength = 64;
    static constexpr int kPolicyVersionLength = 64;
    static constexpr int kMaxNameLength = 128;
    static constexpr int kMaxPurposeLength = 128;
    static constexpr qint64 kMaxLifetimeMs = qint64(30) * 24 * 60 * 60 * 1000;

    QUuid id;
    QString tenant;
    QString principal;
    QUuid profileId;
    QString agentVersion;  // the program that may use it, e.g. "veetbot 0.9.0"
    QString policyVersion; // PolicySettings::version() when it was made: 64 lower-case hex
    // Exact origins, 1-16, unique, sorted; each among the profile's when it was made.
    QList<Origin> origins;
    // The action kinds it covers: non-empty, unique, in the order of kAllActKinds.
    QList<ActRequest::Kind> actionKinds;
    std::optional<QString> role;           // one of standingGrantRoles()
    std::optional<QString> accessibleName; // 1-128 characters, matched exactly
    std::optional<QString> purpose;        // 1-128 printable characters, matched exactly
    QDateTime startsAt;
    QDateTime expiresAt; // after startsAt, at most 30 days after it
    std::optional<QDateTime> revokedAt;
    QString approver; // the principal that created it
    QDateTime createdAt;

    ProfileScope scope() const { return ProfileScope{tenant, principal}; }
    bool isRevoked() const { return revokedAt.has_value(); }
    bool covers(ActRequest::Kind kind) const { return actionKinds.contains(kind); }

    // Every invariant the durable schema also enforces; grant.invalid otherwise.
    Result<Unit> validate() const;

    friend bool operator==(const StandingGrant &, const StandingGrant &) = default;
};

// The action kinds as a bit mask (bit i for kAllActKinds[i]) and back; a mask with an unknown
// bit, or none, is nullopt.
int actionKindMask(const QList<ActRequest::Kind> &kinds);
std::optional<QList<ActRequest::Kind>> actionKindsFromMask(int mask);

// What the owner asks for when creating a grant, before the store pins it to its scope, its
// profile's current state and the time.
struct StandingGrantRequest
{
    QUuid profileId;
    QString agentVersion;
    QString policyVersion;
    QList<Origin> origins;
    QList<ActRequest::Kind> actionKinds;
    std::optional<QString> role;
    std::optional<QString> accessibleName;
    std::optional<QString> purpose;
    // From creation; at most StandingGrant::kMaxLifetimeMs.
    qint64 lifetimeMs = 0;
};

// The audit kinds of grant changes.
inline constexpr char16_t kGrantCreatedKind[] = u"browser.grant.created";
inline constexpr char16_t kGrantRevokedKind[] = u"browser.grant.revoked";

// One appended record of a grant change. No page text, typed text, origin or element name.
struct StandingGrantAuditRecord
{
    QUuid id;
    QString tenant;
    QString principal;
    QUuid grantId;
    QString kind;
    QDateTime at;

    friend bool operator==(const StandingGrantAuditRecord &,
                           const StandingGrantAuditRecord &) = default;
};

// One act an unattended run asks a grant to stand in for an approval, as trusted composition
// describes it after deterministic policy required an approval. Every field is a pin: one
// that is missing or differs denies.
struct StandingGrantUse
{
    ProfileScope scope;
    QUuid profileId;
    qint64 profileGeneration = -1; // the generation the session pinned when it started
    QString agentVersion;
    QString policyVersion;
    std::optional<Origin> pageOrigin;
    QUrl pageUrl; // the page the act runs on; its origin must be pageOrigin
    ActRequest request;
    ElementFacts facts; // of the observation that named the element
    std::optional<QString> purpose;
    QDateTime actionDeadline;
    QDateTime now;
};

// Why a grant does not stand in for an approval: a closed list of content-free reasons, in
// the order the rule checks them.
enum class StandingGrantDenial
{
    Unavailable,       // the store could not answer (or no decision was made)
    NotFound,          // no such grant in the scope
    Malformed,         // the grant or the use breaks its own invariants
    Scope,             // another tenant or principal
    Profile,           // another profile
    ProfileNotReady,   // the profile is not READY now
    GenerationChanged, // the profile's generation moved since the session pinned it
    Revoked,           //
    NotStarted,        // now is before the start
    Expired,           // the expiry is not after the action deadline
    AgentVersion,      //
    PolicyVersion,     //
    Origin,            // the page is not on one of the grant's origins
    ActionKind,        //
    Role,              // the element's role is not the grant's
    Name,              // the element's accessible name is not the grant's
    Purpose,           // the session's purpose is not the grant's
    NotRoutine,        // the classifier does not read the act as routine, or the labels differ
    NotCovered,        // GrantCoverage::refuseAct() refuses it
};
// "unavailable", "not_found", ..., "not_covered"; stable audit strings.
QString standingGrantDenialString(StandingGrantDenial denial);

// The authorizer's answer. Default-constructed it denies: nothing is allowed by omission.
struct StandingGrantDecision
{
    bool allowed = false;
    StandingGrantDenial denial = StandingGrantDenial::Unavailable; // meaningful when denied

    static StandingGrantDecision allow() { return {true, StandingGrantDenial::Unavailable}; }
    static StandingGrantDecision deny(StandingGrantDenial why) { return {false, why}; }
    // "allowed", or the denial's string.
    QString reason() const;

    friend bool operator==(const StandingGrantDecision &, const StandingGrantDecision &) = default;
};

namespace StandingGrantRules {

// Whether `grant` stands in for an approval of `use` on the profile as it is now. Pure and
// deny-biased: allowed only when the grant and the use hold their invariants; tenant,
// principal and profile match exactly; the profile is READY at the generation the session
// pinned; the grant is not revoked, has started and expires after the action deadline; the
// agent and policy versions match; the page is on one of its origins; the action kind is one
// of its kinds; its role and name constraints (when set) and purpose (when set) match
// exactly; the classifier reads the act as routine with every label source reading as the
// same routine word; and GrantCoverage::refuseAct() finds nothing. Anything else denies with
// the first reason broken.
StandingGrantDecision authorize(const StandingGrant &grant, const BrowserProfile &profileNow,
                                const StandingGrantUse &use);

// A grant for `request` by the owner of `scope` on `profile` at `now`: grant.profile_not_ready
// unless the profile is READY, grant.origin_not_allowed for an origin the profile does not
// allow, grant.invalid for anything out of bounds. The store checks the sign-in beside it.
Result<StandingGrant> create(const ProfileScope &scope, const BrowserProfile &profile,
                             const StandingGrantRequest &request, const QDateTime &now);

// The grant revoked at `now`; one revoked already is answered unchanged.
StandingGrant revoke(const StandingGrant &grant, const QDateTime &now);

} // namespace StandingGrantRules

} // namespace veetbot
