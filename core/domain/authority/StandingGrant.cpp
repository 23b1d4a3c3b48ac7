#include "StandingGrant.h"

#include "GrantCoverage.h"
#include "domain/action/ActionConsequence.h"

#include <algorithm>
#include <iterator>

namespace veetbot {

QString standingGrantFailureString(StandingGrantFailure failure)
{
    switch (failure) {
    case StandingGrantFailure::Invalid:
        return QStringLiteral("grant.invalid");
    case StandingGrantFailure::OriginNotAllowed:
        return QStringLiteral("grant.origin_not_allowed");
    case StandingGrantFailure::NotFound:
        return QStringLiteral("grant.not_found");
    case StandingGrantFailure::ProfileNotReady:
        return QStringLiteral("grant.profile_not_ready");
    case StandingGrantFailure::CeremonyPending:
        return QStringLiteral("grant.ceremony_pending");
    }
    Q_UNREACHABLE();
    return QString();
}

QString standingGrantFailureMessage(StandingGrantFailure failure)
{
    switch (failure) {
    case StandingGrantFailure::Invalid:
        return QStringLiteral("A standing grant needs 1-16 exact origins, at least one action "
                              "kind, a lifetime of at most 30 days, and an element role, name "
                              "or purpose within their bounds.");
    case StandingGrantFailure::OriginNotAllowed:
        return QStringLiteral("A standing grant's origins must be among the profile's allowed "
                              "origins.");
    case StandingGrantFailure::NotFound:
        return QStringLiteral("The standing grant was not found.");
    case StandingGrantFailure::ProfileNotReady:
        return QStringLiteral("A standing grant needs a READY browser profile.");
    case StandingGrantFailure::CeremonyPending:
        return QStringLiteral("The profile's newest sign-in has no recorded outcome; finish or "
                              "cancel it before creating a standing grant.");
    }
    Q_UNREACHABLE();
    return QString();
}

Error standingGrantError(StandingGrantFailure failure)
{
    return Error{standingGrantFailureString(failure), standingGrantFailureMessage(failure)};
}

bool isStandingGrantFailure(const Error &error, StandingGrantFailure failure)
{
    return error.code == standingGrantFailureString(failure);
}

QStringList standingGrantRoles()
{
    return routineRoles();
}

bool isPolicyVersion(const QString &text)
{
    return text.size() == StandingGrant::kPolicyVersionLength &&
           std::all_of(text.cbegin(), text.cend(), [](QChar c) {
               return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f');
           });
}

namespace {

Error invalid()
{
    return standingGrantError(StandingGrantFailure::Invalid);
}

// Owner-written text a grant keeps (an accessible name, a purpose): 1-max characters, not
// blank, and nothing that does not print: no control or format characters, surrogates,
// private-use or unassigned code points, line or paragraph separators.
bool isPrintableText(const QString &text, int maxLength)
{
    if (text.isEmpty() || text.size() > maxLength || text.trimmed().isEmpty())
        return false;
    const QList<uint> codePoints = text.toUcs4();
    return std::all_of(codePoints.cbegin(), codePoints.cend(),
                       [](uint c) {
                           switch (QChar::category(char32_t(c))) {
                           case QChar::Other_Control:
                           case QChar::Other_Format:
                           case QChar::Other_Surrogate:
                           case QChar::Other_PrivateUse:
                           case QChar::Other_NotAssigned:
                           case QChar::Separator_Line:
                           case QChar::Separator_Paragraph:
                               return false;
                           default:
                               return true;
                           }
                       }) &&
           !text.contains(QChar::ReplacementCharacter);
}

bool isAgentVersion(const QString &text)
{
    if (text.isEmpty() || text.size() > StandingGrant::kMaxAgentVersionLength ||
        text.trimmed() != text)
        return false;
    return std::all_of(text.cbegin(), text.cend(),
                       [](QChar c) { return c.unicode() >= 0x20 && c.unicode() <= 0x7e; });
}

int kindIndex(ActRequest::Kind kind)
{
    const auto *found = std::find(std::begin(kAllActKinds), std::end(kAllActKinds), kind);
    return int(std::distance(std::begin(kAllActKinds), found));
}

bool isCanonicalKinds(const QList<ActRequest::Kind> &kinds)
{
    if (kinds.isEmpty())
        return false;
    for (qsizetype i = 0; i < kinds.size(); ++i) {
        const int index = kindIndex(kinds.at(i));
        if (index >= int(std::size(kAllActKinds)))
            return false;
        if (i > 0 && index <= kindIndex(kinds.at(i - 1)))
            return false;
    }
    return true;
}

bool isCanonicalOrigins(const QList<Origin> &origins)
{
    if (origins.isEmpty() || origins.size() > StandingGrant::kMaxOrigins)
        return false;
    return std::adjacent_find(origins.cbegin(), origins.cend(),
                              [](const Origin &a, const Origin &b) { return !(a < b); }) ==
           origins.cend();
}

// Times are kept with millisecond precision in UTC, as the store keeps them.
QDateTime storedTime(const QDateTime &time)
{
    return QDateTime::fromMSecsSinceEpoch(time.toMSecsSinceEpoch(), Qt::UTC);
}

// Whether a page URL lies on exactly this origin (scheme, host, port). The origin was read
// from the URL by trusted composition; this only refuses a use whose two pins disagree.
bool isOnOrigin(const QUrl &url, const Origin &origin)
{
    return url.isValid() && url.scheme() == QLatin1String("https") &&
           url.host(QUrl::FullyEncoded).toLower() == origin.host() &&
           url.port(443) == origin.port();
}

} // namespace

Result<Unit> StandingGrant::validate() const
{
    const bool valid = !id.isNull() && scope().validate() && !profileId.isNull() &&
                       isAgentVersion(agentVersion) && isPolicyVersion(policyVersion) &&
                       isCanonicalOrigins(origins) && isCanonicalKinds(actionKinds) &&
                       (!role || isRoutineRole(*role)) &&
                       (!accessibleName || isPrintableText(*accessibleName, kMaxNameLength)) &&
                       (!purpose || isPrintableText(*purpose, kMaxPurposeLength)) &&
                       startsAt.isValid() && expiresAt.isValid() && createdAt.isValid() &&
                       startsAt < expiresAt && startsAt.msecsTo(expiresAt) <= kMaxLifetimeMs &&
                       (!revokedAt || (revokedAt->isValid() && *revokedAt >= createdAt)) &&
                       ProfileScope{tenant, approver}.validate();
    if (!valid)
        return invalid();
    return Unit{};
}

int actionKindMask(const QList<ActRequest::Kind> &kinds)
{
    int mask = 0;
    for (const ActRequest::Kind kind : kinds)
        mask |= 1 << kindIndex(kind);
    return mask;
}

std::optional<QList<ActRequest::Kind>> actionKindsFromMask(int mask)
{
    const int all = (1 << int(std::size(kAllActKinds))) - 1;
    if (mask <= 0 || (mask & ~all) != 0)
        return std::nullopt;
    QList<ActRequest::Kind> kinds;
    for (int i = 0; i < int(std::size(kAllActKinds)); ++i) {
        if (mask & (1 << i))
            kinds << kAllActKinds[i];
    }
    return kinds;
}

QString standingGrantDenialString(StandingGrantDenial denial)
{
    switch (denial) {
    case StandingGrantDenial::Unavailable:
        return QStringLiteral("unavailable");
    case StandingGrantDenial::NotFound:
        return QStringLiteral("not_found");
    case StandingGrantDenial::Malformed:
        return QStringLiteral("malformed");
    case StandingGrantDenial::Scope:
        return QStringLiteral("scope");
    case StandingGrantDenial::Profile:
        return QStringLiteral("profile");
    case StandingGrantDenial::ProfileNotReady:
        return QStringLiteral("profile_not_ready");
    case StandingGrantDenial::GenerationChanged:
        return QStringLiteral("generation_changed");
    case StandingGrantDenial::Revoked:
        return QStringLiteral("revoked");
    case StandingGrantDenial::NotStarted:
        return QStringLiteral("not_started");
    case StandingGrantDenial::Expired:
        return QStringLiteral("expired");
    case StandingGrantDenial::AgentVersion:
        return QStringLiteral("agent_version");
    case StandingGrantDenial::PolicyVersion:
        return QStringLiteral("policy_version");
    case StandingGrantDenial::Origin:
        return QStringLiteral("origin");
    case StandingGrantDenial::ActionKind:
        return QStringLiteral("action_kind");
    case StandingGrantDenial::Role:
        return QStringLiteral("role");
    case StandingGrantDenial::Name:
        return QStringLiteral("name");
    case StandingGrantDenial::Purpose:
        return QStringLiteral("purpose");
    case StandingGrantDenial::NotRoutine:
        return QStringLiteral("not_routine");
    case StandingGrantDenial::NotCovered:
        return QStringLiteral("not_covered");
    }
    return QStringLiteral("unavailable");
}

QString StandingGrantDecision::reason() const
{
    return allowed ? QStringLiteral("allowed") : standingGrantDenialString(denial);
}

namespace StandingGrantRules {

StandingGrantDecision authorize(const StandingGrant &grant, const BrowserProfile &profileNow,
                                const StandingGrantUse &use)
{
    using D = StandingGrantDenial;
    const auto deny = [](D why) { return StandingGrantDecision::deny(why); };

    if (!grant.validate() || !use.scope.validate() || !use.now.isValid() ||
        !use.actionDeadline.isValid() || !withinBounds(use.facts))
        return deny(D::Malformed);
    if (grant.scope() != use.scope || profileNow.scope() != use.scope)
        return deny(D::Scope);
    if (use.profileId.isNull() || grant.profileId != use.profileId ||
        profileNow.id != use.profileId)
        return deny(D::Profile);
    if (profileNow.status != ProfileStatus::Ready)
        return deny(D::ProfileNotReady);
    if (use.profileGeneration < 0 || profileNow.generation != use.profileGeneration)
        return deny(D::GenerationChanged);
    if (grant.isRevoked())
        return deny(D::Revoked);
    if (use.now < grant.startsAt)
        return deny(D::NotStarted);
    if (grant.expiresAt <= use.now || grant.expiresAt <= use.actionDeadline)
        return deny(D::Expired);
    if (use.agentVersion != grant.agentVersion)
        return deny(D::AgentVersion);
    if (use.policyVersion != grant.policyVersion)
        return deny(D::PolicyVersion);
    if (!use.pageOrigin || !grant.origins.contains(*use.pageOrigin) ||
        !profileNow.allowedOrigins.contains(*use.pageOrigin) ||
        !isOnOrigin(use.pageUrl, *use.pageOrigin))
        return deny(D::Origin);
    if (!grant.covers(use.request.kind()))
        return deny(D::ActionKind);
    if (grant.role && *grant.role != use.facts.role)
        return deny(D::Role);
    if (grant.accessibleName && *grant.accessibleName != use.facts.accessibleName)
        return deny(D::Name);
    if (grant.purpose && use.purpose != grant.purpose)
        return deny(D::Purpose);
    // Routine only, and only when every label source reads as the same routine word: unknown
    // and every named consequence stay with a fresh approval.
    if (classifyAction(use.facts, use.request).consequence != BrowserActionConsequence::Routine ||
        !everyLabelReadsSameRoutineWord(use.facts))
        return deny(D::NotRoutine);
    if (GrantCoverage::refuseAct(use.request, use.facts, use.pageUrl,
                                 GrantCoverage::Coverer::StandingGrant))
        return deny(D::NotCovered);
    return StandingGrantDecision::allow();
}

Result<StandingGrant> create(const ProfileScope &scope, const BrowserProfile &profile,
                             const StandingGrantRequest &request, const QDateTime &now)
{
    if (!scope.validate() || profile.scope() != scope || profile.id != request.profileId ||
        !now.isValid())
        return invalid();
    QList<Origin> origins = request.origins;
    std::sort(origins.begin(), origins.end());
    QList<ActRequest::Kind> kinds = request.actionKinds;
    std::sort(kinds.begin(), kinds.end(),
              [](ActRequest::Kind a, ActRequest::Kind b) { return kindIndex(a) < kindIndex(b); });
    if (request.lifetimeMs <= 0 || request.lifetimeMs > StandingGrant::kMaxLifetimeMs ||
        !isCanonicalOrigins(origins) || !isCanonicalKinds(kinds))
        return invalid();
    if (profile.status != ProfileStatus::Ready)
        return standingGrantError(StandingGrantFailure::ProfileNotReady);
    for (const Origin &origin : std::as_const(origins)) {
        if (!profile.allowedOrigins.contains(origin))
            return standingGrantError(StandingGrantFailure::OriginNotAllowed);
    }
    const QDateTime time = storedTime(now);
    StandingGrant grant{.id = BrowserProfile::newId(),
                        .tenant = scope.tenant,
                        .principal = scope.principal,
                        .profileId = profile.id,
                        .agentVersion = request.agentVersion,
                        .policyVersion = request.policyVersion,
                        .origins = std::move(origins),
                        .actionKinds = std::move(kinds),
                        .role = request.role,
                        .accessibleName = request.accessibleName,
                        .purpose = request.purpose,
                        .startsAt = time,
                        .expiresAt = time.addMSecs(request.lifetimeMs),
                        .revokedAt = std::nullopt,
                        .approver = scope.principal,
                        .createdAt = time};
    if (const Result<Unit> valid = grant.validate(); !valid)
        return valid.error();
    return grant;
}

StandingGrant revoke(const StandingGrant &grant, const QDateTime &now)
{
    if (grant.isRevoked())
        return grant;
    StandingGrant revoked = grant;
    revoked.revokedAt = std::max(storedTime(now), grant.createdAt);
    return revoked;
}

} // namespace StandingGrantRules

} // namespace veetbot
