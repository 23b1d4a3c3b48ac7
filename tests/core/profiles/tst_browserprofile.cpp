// The browser-profile domain: stable codes and status strings, the lifecycle rules as pure
// functions, invariants, random identifiers, and the public view.

#include "domain/profile/BrowserProfile.h"
#include "domain/web/TestOverrides.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace veetbot;

namespace veetbot {
char *toString(const ProfileStatus &status)
{
    return qstrdup(profileStatusString(status).toUtf8().constData());
}
} // namespace veetbot

class BrowserProfileTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void statusStringsRoundTrip();
    void failureCodesAreStable();
    void transitionRules();
    void reserveMakesAnUnboundReservation();
    void reserveValidatesScopeAndOrigins();
    void idsAreRandomVersion4();
    void providerReferencesAreRandomAndOpaque();
    void lifecycleFunctionsArePure();
    void checksRunInAFixedOrder();
    void advanceAndTouch();
    void recordVerifiedMakesReady();
    void aConfirmedAccountStaysWithItsSession();
    void updateKeyVersionNeedsALiveBinding();
    void clockGoingBackwardsKeepsUpdateAfterCreation();
    void validateEnforcesBindingConsistency();
    void viewOmitsReferenceKeyVersionAndScope();

private:
    static Origin origin(const QString &text);
    static QDateTime t0() { return QDateTime(QDate(2030, 1, 2), QTime(3, 4, 5, 678), Qt::UTC); }
    static ProfileScope scope() { return {QStringLiteral("tenant-a"), QStringLiteral("alice")}; }
    static BrowserProfile reserved();
    static BrowserProfile ready();
};

Origin BrowserProfileTest::origin(const QString &text)
{
    Result<Origin> parsed = Origin::parse(text, TestOverrides());
    if (!parsed)
        qFatal("test origin does not parse");
    return std::move(parsed).value();
}

BrowserProfile BrowserProfileTest::reserved()
{
    Result<BrowserProfile> profile = BrowserProfile::reserve(
        scope(),
        {origin(QStringLiteral("https://shop.de")), origin(QStringLiteral("https://a.de"))}, t0());
    if (!profile)
        qFatal("reservation failed");
    return std::move(profile).value();
}

BrowserProfile BrowserProfileTest::ready()
{
    Result<BrowserProfile> bound =
        ProfileLifecycle::bind(reserved(), 0, QStringLiteral("hosted"),
                               BrowserProfile::newProviderReference(), QStringLiteral("k1"), t0());
    if (!bound)
        qFatal("bind failed");
    Result<BrowserProfile> profile =
        ProfileLifecycle::transition(*bound, 1, ProfileStatus::Ready, t0().addSecs(1));
    if (!profile)
        qFatal("transition failed");
    return std::move(profile).value();
}

void BrowserProfileTest::statusStringsRoundTrip()
{
    const QStringList expected = {
        QStringLiteral("provisioning"), QStringLiteral("authentication_required"),
        QStringLiteral("ready"), QStringLiteral("needs_user"), QStringLiteral("revoked")};
    QStringList actual;
    for (ProfileStatus status : kAllProfileStatuses) {
        actual << profileStatusString(status);
        QCOMPARE(profileStatusFromString(profileStatusString(status)),
                 std::optional<ProfileStatus>(status));
    }
    QCOMPARE(actual, expected);
    QVERIFY(!profileStatusFromString(QStringLiteral("READY")));
    QVERIFY(!profileStatusFromString(QStringLiteral("deleted")));
    QVERIFY(!profileStatusFromString(QString()));
}

void BrowserProfileTest::failureCodesAreStable()
{
    QCOMPARE(profileFailureString(ProfileFailure::NotFound), QStringLiteral("profile.not_found"));
    QCOMPARE(profileFailureString(ProfileFailure::StaleGeneration),
             QStringLiteral("profile.stale_generation"));
    QCOMPARE(profileFailureString(ProfileFailure::Conflict), QStringLiteral("profile.conflict"));
    QCOMPARE(profileFailureString(ProfileFailure::InvalidTransition),
             QStringLiteral("profile.invalid_transition"));
    QCOMPARE(profileFailureString(ProfileFailure::Invalid), QStringLiteral("profile.invalid"));
    QCOMPARE(profileFailureString(ProfileFailure::RepositoryUnavailable),
             QStringLiteral("repository.unavailable"));
    QCOMPARE(profileFailureString(ProfileFailure::SchemaUnknown),
             QStringLiteral("repository.schema_unknown"));
    QCOMPARE(profileFailureString(ProfileFailure::PrivilegedRole),
             QStringLiteral("repository.privileged_role"));
    QCOMPARE(profileFailureString(ProfileFailure::CeremonyConflict),
             QStringLiteral("profile.ceremony_open"));
    QCOMPARE(profileFailureString(ProfileFailure::CeremonyNotFound),
             QStringLiteral("ceremony.not_found"));
    QCOMPARE(profileFailureString(ProfileFailure::CeremonyOutcomeConflict),
             QStringLiteral("ceremony.outcome_conflict"));
    QCOMPARE(profileFailureMessage(ProfileFailure::CeremonyConflict),
             QStringLiteral(
                 "A sign-in is already in progress for this profile; finish or cancel it first."));
    const Error error = profileError(ProfileFailure::NotFound);
    QVERIFY(isProfileFailure(error, ProfileFailure::NotFound));
    QVERIFY(!isProfileFailure(error, ProfileFailure::Conflict));
    QVERIFY(!error.message.isEmpty());
}

void BrowserProfileTest::transitionRules()
{
    using S = ProfileStatus;
    const QSet<std::pair<int, int>> allowed = {
        {int(S::AuthenticationRequired), int(S::Ready)},
        {int(S::NeedsUser), int(S::Ready)},
        {int(S::Ready), int(S::NeedsUser)},
        {int(S::Provisioning), int(S::Revoked)},
        {int(S::AuthenticationRequired), int(S::Revoked)},
        {int(S::Ready), int(S::Revoked)},
        {int(S::NeedsUser), int(S::Revoked)},
    };
    for (S from : kAllProfileStatuses) {
        for (S to : kAllProfileStatuses) {
            QCOMPARE(ProfileLifecycle::allowsTransition(from, to),
                     allowed.contains({int(from), int(to)}));
        }
    }
    QVERIFY(!ProfileLifecycle::isLive(S::Provisioning));
    QVERIFY(!ProfileLifecycle::isLive(S::Revoked));
    QVERIFY(ProfileLifecycle::isLive(S::NeedsUser));
}

void BrowserProfileTest::reserveMakesAnUnboundReservation()
{
    const BrowserProfile profile = reserved();
    QCOMPARE(profile.status, ProfileStatus::Provisioning);
    QCOMPARE(profile.generation, qint64(0));
    QVERIFY(!profile.providerName && !profile.providerReference && !profile.keyVersion);
    QVERIFY(!profile.lastUsedAt);
    QCOMPARE(profile.createdAt, t0());
    QCOMPARE(profile.updatedAt, t0());
    QCOMPARE(profile.scope(), scope());
    QCOMPARE(profile.allowedOrigins.first().toString(), QStringLiteral("https://a.de"));
    QVERIFY(profile.validate().ok());
}

void BrowserProfileTest::reserveValidatesScopeAndOrigins()
{
    const QList<Origin> one = {origin(QStringLiteral("https://shop.de"))};
    for (const ProfileScope &bad : {ProfileScope{QString(), QStringLiteral("p")},
                                    ProfileScope{QStringLiteral("t"), QString()},
                                    ProfileScope{QStringLiteral("t\n"), QStringLiteral("p")},
                                    ProfileScope{QStringLiteral("t"), QStringLiteral("p\u202e")},
                                    ProfileScope{QString(257, u'x'), QStringLiteral("p")}}) {
        const Result<BrowserProfile> profile = BrowserProfile::reserve(bad, one, t0());
        QVERIFY(!profile.ok());
        QVERIFY(isProfileFailure(profile.error(), ProfileFailure::Invalid));
    }
    QVERIFY(!BrowserProfile::reserve(scope(), {}, t0()).ok());
    QVERIFY(!BrowserProfile::reserve(scope(), one + one, t0()).ok()); // repeated
    QVERIFY(!BrowserProfile::reserve(scope(), one, QDateTime()).ok());
    QList<Origin> many;
    for (int i = 0; i < 65; ++i)
        many.append(origin(QStringLiteral("https://s%1.shop.de").arg(i)));
    QVERIFY(!BrowserProfile::reserve(scope(), many, t0()).ok());
    many.removeLast();
    QVERIFY(BrowserProfile::reserve(scope(), many, t0()).ok());
}

void BrowserProfileTest::idsAreRandomVersion4()
{
    QSet<QUuid> seen;
    for (int i = 0; i < 1000; ++i) {
        const QUuid id = BrowserProfile::newId();
        QCOMPARE(id.version(), QUuid::Random);
        QCOMPARE(id.variant(), QUuid::DCE);
        seen.insert(id);
    }
    QCOMPARE(seen.size(), 1000);
    QVERIFY(reserved().id != reserved().id);
}

void BrowserProfileTest::providerReferencesAreRandomAndOpaque()
{
    static const QRegularExpression base64url(QStringLiteral("^[A-Za-z0-9_-]{43}$"));
    QSet<QString> seen;
    for (int i = 0; i < 1000; ++i) {
        const QString reference = BrowserProfile::newProviderReference();
        QVERIFY2(base64url.match(reference).hasMatch(), qPrintable(reference));
        seen.insert(reference);
    }
    QCOMPARE(seen.size(), 1000);
}

void BrowserProfileTest::lifecycleFunctionsArePure()
{
    const BrowserProfile before = reserved();
    const BrowserProfile copy = before;
    const Result<BrowserProfile> bound =
        ProfileLifecycle::bind(before, 0, QStringLiteral("hosted"), QStringLiteral("ref-1"),
                               QStringLiteral("k1"), t0().addSecs(2));
    QVERIFY(bound.ok());
    QCOMPARE(before, copy);
    QCOMPARE(bound->status, ProfileStatus::AuthenticationRequired);
    QCOMPARE(bound->generation, qint64(1));
    QCOMPARE(bound->providerReference, std::optional<QString>(QStringLiteral("ref-1")));
    QCOMPARE(bound->updatedAt, t0().addSecs(2));
    QCOMPARE(bound->createdAt, before.createdAt);
    QVERIFY(bound->validate().ok());

    const Result<BrowserProfile> revoked =
        ProfileLifecycle::transition(*bound, 1, ProfileStatus::Revoked, t0().addSecs(3));
    QVERIFY(revoked.ok());
    QCOMPARE(revoked->generation, qint64(2));
    QCOMPARE(bound->status, ProfileStatus::AuthenticationRequired);
    // Nothing leaves REVOKED, not even to REVOKED.
    for (ProfileStatus to : kAllProfileStatuses) {
        const Result<BrowserProfile> next =
            ProfileLifecycle::transition(*revoked, 2, to, t0().addSecs(4));
        QVERIFY(!next.ok());
        QVERIFY(isProfileFailure(next.error(), ProfileFailure::InvalidTransition));
    }
    QVERIFY(ProfileLifecycle::checkRemovable(*revoked, 2).ok());
    QVERIFY(isProfileFailure(ProfileLifecycle::checkRemovable(*bound, 1).error(),
                             ProfileFailure::InvalidTransition));
}

void BrowserProfileTest::checksRunInAFixedOrder()
{
    const BrowserProfile profile = ready(); // generation 2
    // Malformed arguments first, even with a stale generation...
    QVERIFY(isProfileFailure(ProfileLifecycle::bind(profile, 0, QString(), QStringLiteral("r"),
                                                    QStringLiteral("k"), t0())
                                 .error(),
                             ProfileFailure::Invalid));
    QVERIFY(isProfileFailure(
        ProfileLifecycle::transition(profile, -1, ProfileStatus::Revoked, t0()).error(),
        ProfileFailure::Invalid));
    // ...then the generation, even for a forbidden transition...
    QVERIFY(isProfileFailure(
        ProfileLifecycle::transition(profile, 1, ProfileStatus::Provisioning, t0()).error(),
        ProfileFailure::StaleGeneration));
    QVERIFY(isProfileFailure(ProfileLifecycle::bind(profile, 0, QStringLiteral("hosted"),
                                                    QStringLiteral("r"), QStringLiteral("k"), t0())
                                 .error(),
                             ProfileFailure::StaleGeneration));
    // ...then the rule.
    QVERIFY(isProfileFailure(
        ProfileLifecycle::transition(profile, 2, ProfileStatus::Provisioning, t0()).error(),
        ProfileFailure::InvalidTransition));
    QVERIFY(isProfileFailure(ProfileLifecycle::bind(profile, 2, QStringLiteral("hosted"),
                                                    QStringLiteral("r"), QStringLiteral("k"), t0())
                                 .error(),
                             ProfileFailure::InvalidTransition));
}

void BrowserProfileTest::advanceAndTouch()
{
    const BrowserProfile profile = ready();
    const Result<BrowserProfile> advanced =
        ProfileLifecycle::advanceGeneration(profile, profile.generation, t0().addSecs(10));
    QVERIFY(advanced.ok());
    QCOMPARE(advanced->generation, profile.generation + 1);
    QCOMPARE(advanced->status, ProfileStatus::Ready);

    const Result<BrowserProfile> touched =
        ProfileLifecycle::touchLastUsed(profile, t0().addSecs(20));
    QVERIFY(touched.ok());
    QCOMPARE(touched->generation, profile.generation);
    QCOMPARE(touched->updatedAt, profile.updatedAt);
    QCOMPARE(touched->lastUsedAt, std::optional<QDateTime>(t0().addSecs(20)));

    QVERIFY(isProfileFailure(ProfileLifecycle::advanceGeneration(reserved(), 0, t0()).error(),
                             ProfileFailure::InvalidTransition));
    const Result<BrowserProfile> revoked =
        ProfileLifecycle::transition(profile, profile.generation, ProfileStatus::Revoked, t0());
    QVERIFY(revoked.ok());
    QVERIFY(isProfileFailure(ProfileLifecycle::touchLastUsed(*revoked, t0()).error(),
                             ProfileFailure::InvalidTransition));
}

// The masked account a site definition confirmed: recorded with READY, kept by use and by
// re-sealing under another key, dropped by a sign-in beginning and by every change of status.
void BrowserProfileTest::aConfirmedAccountStaysWithItsSession()
{
    const QString account = QStringLiteral("d\u2022\u2022\u2022@shop.de");
    const Result<BrowserProfile> confirmed =
        ProfileLifecycle::recordVerified(ready(), t0().addSecs(30), account);
    QVERIFY(confirmed.ok());
    QCOMPARE(confirmed->verifiedAccount, std::optional<QString>(account));
    QVERIFY(confirmed->validate().ok());
    QCOMPARE(BrowserProfileView::of(*confirmed).toJson().value(QLatin1String("account")),
             QJsonValue(account));
    QVERIFY(!ProfileLifecycle::recordVerified(ready(), t0(), std::nullopt)->verifiedAccount);

    const Result<BrowserProfile> used =
        ProfileLifecycle::touchLastUsed(*confirmed, t0().addSecs(40));
    const Result<BrowserProfile> resealed = ProfileLifecycle::updateKeyVersion(
        *confirmed, confirmed->generation, QStringLiteral("k2"), t0().addSecs(40));
    QVERIFY(used.ok() && resealed.ok());
    QCOMPARE(used->verifiedAccount, std::optional<QString>(account));
    QCOMPARE(resealed->verifiedAccount, std::optional<QString>(account));

    const Result<BrowserProfile> signingIn =
        ProfileLifecycle::advanceGeneration(*confirmed, confirmed->generation, t0().addSecs(40));
    QVERIFY(signingIn.ok());
    QVERIFY(!signingIn->verifiedAccount);
    for (ProfileStatus to : {ProfileStatus::NeedsUser, ProfileStatus::Revoked}) {
        const Result<BrowserProfile> changed =
            ProfileLifecycle::transition(*confirmed, confirmed->generation, to, t0().addSecs(40));
        QVERIFY(changed.ok());
        QVERIFY(!changed->verifiedAccount);
        QVERIFY(changed->validate().ok());
    }

    // Not a label: refused. A label on a profile that is not READY is not valid metadata.
    for (const QString &bad : {QString(), QStringLiteral("a\u0007b"), QStringLiteral("a\u200eb"),
                               QString(65, QLatin1Char('a'))}) {
        QVERIFY(!BrowserProfile::isAccountLabel(bad));
        const Result<BrowserProfile> refused = ProfileLifecycle::recordVerified(ready(), t0(), bad);
        QVERIFY(!refused.ok());
        QVERIFY(isProfileFailure(refused.error(), ProfileFailure::Invalid));
    }
    QVERIFY(BrowserProfile::isAccountLabel(QString(64, QLatin1Char('a'))));
    BrowserProfile notReady = *signingIn;
    notReady.status = ProfileStatus::NeedsUser;
    notReady.verifiedAccount = account;
    QVERIFY(!notReady.validate().ok());
}

void BrowserProfileTest::recordVerifiedMakesReady()
{
    const BrowserProfile profile = ready();
    const Result<BrowserProfile> needsUser =
        ProfileLifecycle::transition(profile, profile.generation, ProfileStatus::NeedsUser, t0());
    const Result<BrowserProfile> bound =
        ProfileLifecycle::bind(reserved(), 0, QStringLiteral("hosted"),
                               BrowserProfile::newProviderReference(), QStringLiteral("k1"), t0());
    QVERIFY(needsUser.ok());
    QVERIFY(bound.ok());
    // From each state a sign-in can finish in, and again from READY: a new session may be
    // another account's, so the generation advances every time.
    for (const BrowserProfile &before : {*bound, profile, *needsUser}) {
        const BrowserProfile copy = before;
        const Result<BrowserProfile> verified =
            ProfileLifecycle::recordVerified(before, t0().addSecs(30));
        QVERIFY(verified.ok());
        QCOMPARE(before, copy);
        QCOMPARE(verified->status, ProfileStatus::Ready);
        QCOMPARE(verified->generation, before.generation + 1);
        QCOMPARE(verified->updatedAt, t0().addSecs(30));
        QCOMPARE(verified->lastVerifiedAt, std::optional<QDateTime>(t0().addSecs(30)));
        QCOMPARE(verified->lastUsedAt, before.lastUsedAt);
        QVERIFY(verified->validate().ok());
    }

    const Result<BrowserProfile> revoked =
        ProfileLifecycle::transition(profile, profile.generation, ProfileStatus::Revoked, t0());
    QVERIFY(revoked.ok());
    for (const BrowserProfile &refused : {reserved(), *revoked}) {
        QVERIFY(
            isProfileFailure(ProfileLifecycle::recordVerified(refused, t0().addSecs(30)).error(),
                             ProfileFailure::InvalidTransition));
    }
    QVERIFY(isProfileFailure(ProfileLifecycle::recordVerified(profile, QDateTime()).error(),
                             ProfileFailure::Invalid));
    BrowserProfile damaged = profile;
    damaged.lastVerifiedAt = QDateTime();
    QVERIFY(!damaged.validate().ok());
}

void BrowserProfileTest::updateKeyVersionNeedsALiveBinding()
{
    const BrowserProfile profile = ready();
    const Result<BrowserProfile> rekeyed = ProfileLifecycle::updateKeyVersion(
        profile, profile.generation, QStringLiteral("k2"), t0().addSecs(5));
    QVERIFY(rekeyed.ok());
    QCOMPARE(rekeyed->keyVersion, std::optional<QString>(QStringLiteral("k2")));
    QCOMPARE(rekeyed->generation, profile.generation + 1);
    QVERIFY(isProfileFailure(
        ProfileLifecycle::updateKeyVersion(reserved(), 0, QStringLiteral("k2"), t0()).error(),
        ProfileFailure::InvalidTransition));
    QVERIFY(isProfileFailure(
        ProfileLifecycle::updateKeyVersion(profile, profile.generation, QStringLiteral("k 2"), t0())
            .error(),
        ProfileFailure::Invalid));
}

void BrowserProfileTest::clockGoingBackwardsKeepsUpdateAfterCreation()
{
    const BrowserProfile profile = reserved();
    const Result<BrowserProfile> revoked =
        ProfileLifecycle::transition(profile, 0, ProfileStatus::Revoked, t0().addSecs(-3600));
    QVERIFY(revoked.ok());
    QCOMPARE(revoked->updatedAt, profile.createdAt);
    QVERIFY(revoked->validate().ok());
}

void BrowserProfileTest::validateEnforcesBindingConsistency()
{
    QVERIFY(ready().validate().ok());
    BrowserProfile p = reserved();
    p.providerReference = QStringLiteral("ref");
    QVERIFY(!p.validate().ok()); // partial binding
    p.providerName = QStringLiteral("hosted");
    p.keyVersion = QStringLiteral("k1");
    QVERIFY(!p.validate().ok()); // PROVISIONING cannot be bound
    p.status = ProfileStatus::Revoked;
    QVERIFY(p.validate().ok()); // a bound profile that was revoked
    p = reserved();
    p.status = ProfileStatus::Revoked;
    QVERIFY(p.validate().ok()); // a reservation revoked before it was bound
    for (ProfileStatus live :
         {ProfileStatus::AuthenticationRequired, ProfileStatus::Ready, ProfileStatus::NeedsUser}) {
        p.status = live;
        QVERIFY(!p.validate().ok());
    }
    p = ready();
    p.allowedOrigins = {p.allowedOrigins.last(), p.allowedOrigins.first()};
    QVERIFY(!p.validate().ok()); // not sorted
    p = ready();
    p.generation = -1;
    QVERIFY(!p.validate().ok());
    p = ready();
    p.id = QUuid::createUuidV5(QUuid(), QStringLiteral("x"));
    QVERIFY(!p.validate().ok());
    p = ready();
    p.providerReference = QString(257, u'r');
    QVERIFY(!p.validate().ok());
}

void BrowserProfileTest::viewOmitsReferenceKeyVersionAndScope()
{
    BrowserProfile profile = ready();
    profile.keyVersion = QStringLiteral("key-version-canary");
    profile.lastUsedAt = t0().addMSecs(1500);
    profile.lastVerifiedAt = t0().addMSecs(2500);
    const BrowserProfileView view = BrowserProfileView::of(profile);
    const QJsonObject json = view.toJson();
    QStringList keys = json.keys();
    keys.sort();
    QCOMPARE(keys, (QStringList{QStringLiteral("account"), QStringLiteral("allowed_origins"),
                                QStringLiteral("created_at"), QStringLiteral("generation"),
                                QStringLiteral("id"), QStringLiteral("last_used_at"),
                                QStringLiteral("last_verified_at"), QStringLiteral("provider"),
                                QStringLiteral("status"), QStringLiteral("updated_at")}));
    QCOMPARE(json.value(QStringLiteral("id")).toString(),
             profile.id.toString(QUuid::WithoutBraces));
    QCOMPARE(json.value(QStringLiteral("status")).toString(), QStringLiteral("ready"));
    QCOMPARE(json.value(QStringLiteral("provider")).toString(), QStringLiteral("hosted"));
    QCOMPARE(json.value(QStringLiteral("generation")).toInteger(), profile.generation);
    QCOMPARE(json.value(QStringLiteral("created_at")).toString(),
             QStringLiteral("2030-01-02T03:04:05.678Z"));
    QCOMPARE(json.value(QStringLiteral("last_used_at")).toString(),
             QStringLiteral("2030-01-02T03:04:07.178Z"));
    QCOMPARE(json.value(QStringLiteral("last_verified_at")).toString(),
             QStringLiteral("2030-01-02T03:04:08.178Z"));
    QCOMPARE(json.value(QStringLiteral("allowed_origins")).toArray(),
             (QJsonArray{QStringLiteral("https://a.de"), QStringLiteral("https://shop.de")}));

    const QByteArray text = QJsonDocument(json).toJson();
    for (const QString &hidden :
         {*profile.providerReference, *profile.keyVersion, profile.tenant, profile.principal})
        QVERIFY2(!text.contains(hidden.toUtf8()), qPrintable(hidden));

    const QJsonObject unused = BrowserProfileView::of(reserved()).toJson();
    QVERIFY(unused.value(QStringLiteral("provider")).isNull());
    QVERIFY(unused.value(QStringLiteral("last_used_at")).isNull());
    QVERIFY(unused.value(QStringLiteral("last_verified_at")).isNull());
}

QTEST_GUILESS_MAIN(BrowserProfileTest)
#include "tst_browserprofile.moc"
