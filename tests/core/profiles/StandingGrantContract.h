#pragma once

#include "ProfileRepositoryContract.h"
#include "domain/authority/StandingGrant.h"
#include "ports/StandingGrantStore.h"

#include <functional>
#include <memory>

// The StandingGrantStore contract, for adapters that store grants beside the profiles (the SQL
// ones): creation against the profile and its newest sign-in, reads, revocation once, the
// audit, scoping, and an authorizer that reads the store again on every call. An adapter's
// test derives from this class instead of ProfileRepositoryContract and gets both contracts.
class StandingGrantContract : public ProfileRepositoryContract
{
    Q_OBJECT

protected:
    veetbot::StandingGrantStore &grants();
    // Another store instance on the same data, as a second process would open it.
    MetadataPorts secondRepository();
    static veetbot::StandingGrantStore &grantsOf(const MetadataPorts &ports);

    // A READY profile whose newest sign-in ended ready.
    veetbot::Result<veetbot::BrowserProfile> signedInProfile(const veetbot::ProfileScope &scope);
    // Clicks and scrolls on the profile's first origin for twelve hours.
    static veetbot::StandingGrantRequest requestFor(const veetbot::BrowserProfile &profile);
    // A routine click on "Next" on the grant's first origin, pinned to the profile as it is.
    veetbot::StandingGrantUse useOf(const veetbot::StandingGrant &grant,
                                    const veetbot::BrowserProfile &profile) const;

private Q_SLOTS:
    void grantCreateRoundTrips();
    void grantCreationNeedsAFinishedSignIn();
    void grantCreationRefusalsStoreNothing();
    void grantRevocationIsOnceAndEffectiveAtTheNextUse();
    void grantAuthorizeReadsTheStoreEveryTime();
    void grantAuthorizeDeniesTheUnknown();
    void grantsAreScoped();
    void grantsGoWithTheirProfile();
};

// Checks on a SQL store shared by the SQLite and PostgreSQL tests.
namespace StandingGrantStoreChecks {
// Raw grant and audit inserts that break a schema constraint fail: an expiry not after the
// start or more than 30 days after it, no or an unknown action kind, no origin, seventeen or
// an origins text that is not a JSON array, a role outside the routine roles, a name or
// purpose of 129 characters, a policy version that is not 64 lower-case hex digits, a
// revocation before creation, a grant of no profile or of another principal's profile; an
// audit record of an unknown kind, or a second one of a kind for one grant. db must be inside
// a transaction (for PostgreSQL, as the application role with the tenant set).
void verifyConstraints(QSqlDatabase &db, const QString &tenant);
} // namespace StandingGrantStoreChecks
