#pragma once

#include "domain/Result.h"
#include "domain/authority/StandingGrant.h"
#include "domain/profile/BrowserProfile.h"

#include <QList>
#include <QUuid>

#include <optional>

namespace veetbot {

// Durable standing grants (docs/authority.md): the owner's explicit creation and revocation,
// and the authorizer the tool pipeline asks after deterministic policy required an approval.
// Metadata only: no method accepts or returns page text, typed text or browser material.
// Every method is confined to one tenant and principal; another scope's grant is reported
// exactly like an unknown one. Reads are never cached in a process, so a revocation applies to
// the next authorization. Failures are Result errors with the codes of StandingGrantFailure
// and ProfileFailure (profile.not_found, profile.invalid, repository.unavailable).
class StandingGrantStore
{
public:
    virtual ~StandingGrantStore() = default;

    // In one unit of work: locks the scoped profile (profile.not_found), requires it READY
    // (grant.profile_not_ready) with a newest sign-in that has a recorded outcome
    // (grant.ceremony_pending while it is open and unexpired, or when there is none), and the
    // grant's origins among its allowed ones (grant.origin_not_allowed); stores the grant,
    // starting now with the scope's principal as approver, and appends its
    // browser.grant.created record. grant.invalid for a request out of bounds.
    virtual Result<StandingGrant> createStandingGrant(const ProfileScope &scope,
                                                      const StandingGrantRequest &request) = 0;
    // grant.not_found for an unknown id or another scope's.
    virtual Result<StandingGrant> standingGrant(const ProfileScope &scope,
                                                const QUuid &grantId) const = 0;
    // The scope's grants (of one profile when given), oldest first; revoked and expired ones
    // included.
    virtual Result<QList<StandingGrant>>
    standingGrants(const ProfileScope &scope, const std::optional<QUuid> &profileId) const = 0;
    // Sets the revocation time once and appends its browser.grant.revoked record, in one unit
    // of work; a grant revoked already is answered unchanged with no second record.
    virtual Result<StandingGrant> revokeStandingGrant(const ProfileScope &scope,
                                                      const QUuid &grantId) = 0;
    // The grant changes, oldest first.
    virtual Result<QList<StandingGrantAuditRecord>>
    standingGrantAudit(const ProfileScope &scope) const = 0;

    // Whether the grant stands in for an approval of `use`: re-reads the grant and its profile
    // in one tenant-scoped unit of work and applies StandingGrantRules::authorize. An unknown
    // grant or profile denies with not_found, any store failure with unavailable: never an
    // error that a caller could mistake for an allow.
    virtual StandingGrantDecision authorize(const ProfileScope &scope, const QUuid &grantId,
                                            const StandingGrantUse &use) const = 0;
};

} // namespace veetbot
