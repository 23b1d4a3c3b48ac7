// The standing grant as a pure value and its rules: the bounds a grant holds, creation
// against the profile, revocation once, and the authorizer that allows only an exact,
// routine, covered act (one row per reason it denies).

#include "domain/authority/StandingGrant.h"
#include "domain/web/TestOverrides.h"

#include <QTest>

#include <functional>

using namespace veetbot;

namespace {

// What a row changes in the allowed baseline.
using Mutation = std::function<void(StandingGrant &, BrowserProfile &, StandingGrantUse &)>;
// What a creation row changes in the accepted request or its profile.
using RequestChange = std::function<void(BrowserProfile &, StandingGrantRequest &)>;

const QDateTime kNow(QDate(2030, 1, 2), QTime(3, 4, 5, 678), Qt::UTC);
const QString kPolicy = QString(64, u'a');
const QString kAgent = QStringLiteral("veetbot 0.9.0");

Origin origin(const QString &text)
{
    return *Origin::parse(text, TestOverrides());
}

ProfileScope owner()
{
    return ProfileScope{QStringLiteral("tenant-a"), QStringLiteral("owner@tenant-a")};
}

BrowserProfile readyProfile()
{
    BrowserProfile profile;
    profile.id = QUuid::fromString(QStringLiteral("4f1d2c3b-1a2b-4c3d-8e9f-0a1b2c3d4e5f"));
    profile.tenant = owner().tenant;
    profile.principal = owner().principal;
    profile.providerName = QStringLiteral("hosted");
    profile.providerReference = QStringLiteral("reference");
    profile.keyVersion = QStringLiteral("k1");
    profile.allowedOrigins = {origin(QStringLiteral("https://www.acme-news.com")),
                              origin(QStringLiteral("https://www.acme-shop.com"))};
    profile.status = ProfileStatus::Ready;
    profile.generation = 7;
    profile.createdAt = kNow.addDays(-1);
    profile.updatedAt = kNow.addDays(-1);
    return profile;
}

StandingGrant grantFor(const BrowserProfile &profile)
{
    return StandingGrant{
        .id = QUuid::fromString(QStringLiteral("9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d")),
        .tenant = profile.tenant,
        .principal = profile.principal,
        .profileId = profile.id,
        .agentVersion = kAgent,
        .policyVersion = kPolicy,
        .origins = {origin(QStringLiteral("https://www.acme-shop.com"))},
        .actionKinds = {ActRequest::Kind::Click, ActRequest::Kind::Scroll},
        .role = std::nullopt,
        .accessibleName = std::nullopt,
        .purpose = std::nullopt,
        .startsAt = kNow.addSecs(-3600),
        .expiresAt = kNow.addDays(7),
        .revokedAt = std::nullopt,
        .approver = profile.principal,
        .createdAt = kNow.addSecs(-3600)};
}

ElementFacts button(const QString &name, const QString &visibleText = QString())
{
    ElementFacts facts;
    facts.role = QStringLiteral("button");
    facts.accessibleName = name;
    facts.visibleText = visibleText.isNull() ? name : visibleText;
    return facts;
}

ActRequest click()
{
    return *ActRequest::click(QStringLiteral("r1"), QStringLiteral("e5"));
}

StandingGrantUse useOf(const BrowserProfile &profile)
{
    return StandingGrantUse{.scope = owner(),
                            .profileId = profile.id,
                            .profileGeneration = profile.generation,
                            .agentVersion = kAgent,
                            .policyVersion = kPolicy,
                            .pageOrigin = origin(QStringLiteral("https://www.acme-shop.com")),
                            .pageUrl =
                                QUrl(QStringLiteral("https://www.acme-shop.com/catalogue/shoes")),
                            .request = click(),
                            .facts = button(QStringLiteral("Next")),
                            .purpose = std::nullopt,
                            .actionDeadline = kNow.addSecs(60),
                            .now = kNow};
}

StandingGrantRequest requestFor(const BrowserProfile &profile)
{
    return StandingGrantRequest{.profileId = profile.id,
                                .agentVersion = kAgent,
                                .policyVersion = kPolicy,
                                .origins = {origin(QStringLiteral("https://www.acme-shop.com"))},
                                .actionKinds = {ActRequest::Kind::Scroll, ActRequest::Kind::Click},
                                .role = std::nullopt,
                                .accessibleName = std::nullopt,
                                .purpose = std::nullopt,
                                .lifetimeMs = qint64(12) * 3600 * 1000};
}

} // namespace

Q_DECLARE_METATYPE(Mutation)
Q_DECLARE_METATYPE(RequestChange)

class TestStandingGrant : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void baselineIsValid();
    void bounds_data();
    void bounds();
    void actionKindMaskRoundTrips();
    void createPinsScopeTimeAndApprover();
    void createRefuses_data();
    void createRefuses();
    void revokeOnce();
    void authorize_data();
    void authorize();
    void denialStringsAreStableAndDistinct();
    void failuresAreStableAndContentFree();
};

void TestStandingGrant::baselineIsValid()
{
    const BrowserProfile profile = readyProfile();
    QVERIFY(profile.validate());
    QVERIFY(grantFor(profile).validate());
    QCOMPARE(StandingGrantRules::authorize(grantFor(profile), profile, useOf(profile)),
             StandingGrantDecision::allow());
    QVERIFY(!StandingGrantDecision().allowed); // nothing is allowed by omission
}

void TestStandingGrant::bounds_data()
{
    using GrantChange = std::function<void(StandingGrant &)>;
    QTest::addColumn<Mutation>("change");
    QTest::addColumn<bool>("valid");
    const auto row = [](const char *name, GrantChange change, bool valid) {
        QTest::newRow(name) << Mutation([change](StandingGrant &grant, BrowserProfile &,
                                                 StandingGrantUse &) { change(grant); })
                            << valid;
    };
    const Origin shop = origin(QStringLiteral("https://www.acme-shop.com"));
    row(
        "null id", [](StandingGrant &g) { g.id = QUuid(); }, false);
    row(
        "empty tenant", [](StandingGrant &g) { g.tenant.clear(); }, false);
    row(
        "null profile", [](StandingGrant &g) { g.profileId = QUuid(); }, false);
    row(
        "empty agent version", [](StandingGrant &g) { g.agentVersion.clear(); }, false);
    row(
        "agent version of 65", [](StandingGrant &g) { g.agentVersion = QString(65, u'v'); }, false);
    row(
        "agent version with a control character",
        [](StandingGrant &g) { g.agentVersion = QStringLiteral("veetbot\n1"); }, false);
    row(
        "upper-case policy version", [](StandingGrant &g) { g.policyVersion = QString(64, u'A'); },
        false);
    row(
        "short policy version", [](StandingGrant &g) { g.policyVersion = QString(63, u'a'); },
        false);
    row(
        "no origin", [](StandingGrant &g) { g.origins.clear(); }, false);
    row(
        "repeated origin",
        [shop](StandingGrant &g) {
            g.origins = {shop, shop};
        },
        false);
    row(
        "unsorted origins",
        [](StandingGrant &g) {
            g.origins = {origin(QStringLiteral("https://www.b-shop.com")),
                         origin(QStringLiteral("https://www.a-shop.com"))};
        },
        false);
    row(
        "sixteen origins",
        [](StandingGrant &g) {
            g.origins.clear();
            for (int i = 10; i < 26; ++i)
                g.origins << origin(QStringLiteral("https://www.shop%1.com").arg(i));
        },
        true);
    row(
        "seventeen origins",
        [](StandingGrant &g) {
            g.origins.clear();
            for (int i = 10; i < 27; ++i)
                g.origins << origin(QStringLiteral("https://www.shop%1.com").arg(i));
        },
        false);
    row(
        "no action kind", [](StandingGrant &g) { g.actionKinds.clear(); }, false);
    row(
        "repeated action kind",
        [](StandingGrant &g) {
            g.actionKinds = {ActRequest::Kind::Click, ActRequest::Kind::Click};
        },
        false);
    row(
        "every action kind",
        [](StandingGrant &g) {
            g.actionKinds =
                QList<ActRequest::Kind>(std::begin(kAllActKinds), std::end(kAllActKinds));
        },
        true);
    row(
        "a routine role", [](StandingGrant &g) { g.role = QStringLiteral("link"); }, true);
    row(
        "an unknown role", [](StandingGrant &g) { g.role = QStringLiteral("dialog"); }, false);
    row(
        "an empty role", [](StandingGrant &g) { g.role = QString(); }, false);
    row(
        "a name of 128", [](StandingGrant &g) { g.accessibleName = QString(128, u'n'); }, true);
    row(
        "a name of 129", [](StandingGrant &g) { g.accessibleName = QString(129, u'n'); }, false);
    row(
        "a blank name", [](StandingGrant &g) { g.accessibleName = QStringLiteral("  "); }, false);
    row(
        "a purpose", [](StandingGrant &g) { g.purpose = QStringLiteral("Morning news digest"); },
        true);
    row(
        "a purpose of 129", [](StandingGrant &g) { g.purpose = QString(129, u'p'); }, false);
    row(
        "a purpose with a newline",
        [](StandingGrant &g) { g.purpose = QStringLiteral("news\ndigest"); }, false);
    row(
        "a purpose with a bidi override",
        [](StandingGrant &g) { g.purpose = QString::fromUtf8("news \u202Edigest"); }, false);
    row(
        "a purpose with a zero-width space",
        [](StandingGrant &g) { g.purpose = QString::fromUtf8("news\u200Bdigest"); }, false);
    row(
        "expiry at the start", [](StandingGrant &g) { g.expiresAt = g.startsAt; }, false);
    row(
        "expiry before the start", [](StandingGrant &g) { g.expiresAt = g.startsAt.addMSecs(-1); },
        false);
    row(
        "thirty days exactly", [](StandingGrant &g) { g.expiresAt = g.startsAt.addDays(30); },
        true);
    row(
        "thirty days and a millisecond",
        [](StandingGrant &g) { g.expiresAt = g.startsAt.addDays(30).addMSecs(1); }, false);
    row(
        "revoked before creation", [](StandingGrant &g) { g.revokedAt = g.createdAt.addMSecs(-1); },
        false);
    row(
        "revoked", [](StandingGrant &g) { g.revokedAt = g.createdAt.addSecs(5); }, true);
    row(
        "no approver", [](StandingGrant &g) { g.approver.clear(); }, false);
}

void TestStandingGrant::bounds()
{
    QFETCH(Mutation, change);
    QFETCH(bool, valid);
    BrowserProfile profile = readyProfile();
    StandingGrant grant = grantFor(profile);
    StandingGrantUse use = useOf(profile);
    change(grant, profile, use);
    const Result<Unit> checked = grant.validate();
    QCOMPARE(checked.ok(), valid);
    if (!valid)
        QCOMPARE(checked.error(), standingGrantError(StandingGrantFailure::Invalid));
}

void TestStandingGrant::actionKindMaskRoundTrips()
{
    const QList<ActRequest::Kind> all(std::begin(kAllActKinds), std::end(kAllActKinds));
    QCOMPARE(actionKindMask(all), 63);
    QCOMPARE(actionKindsFromMask(63), std::optional(all));
    QCOMPARE(actionKindMask({ActRequest::Kind::Click}), 1);
    QCOMPARE(actionKindMask({ActRequest::Kind::Scroll}), 32);
    QCOMPARE(actionKindsFromMask(33), std::optional(QList<ActRequest::Kind>{
                                          ActRequest::Kind::Click, ActRequest::Kind::Scroll}));
    QCOMPARE(actionKindsFromMask(0), std::nullopt);
    QCOMPARE(actionKindsFromMask(64), std::nullopt);
    QCOMPARE(actionKindsFromMask(-1), std::nullopt);
}

void TestStandingGrant::createPinsScopeTimeAndApprover()
{
    const BrowserProfile profile = readyProfile();
    const QDateTime at = kNow.addMSecs(1); // sub-millisecond parts are not kept
    const Result<StandingGrant> grant =
        StandingGrantRules::create(owner(), profile, requestFor(profile), at);
    QVERIFY(grant);
    QVERIFY(!grant->id.isNull());
    QCOMPARE(grant->scope(), owner());
    QCOMPARE(grant->approver, owner().principal);
    QCOMPARE(grant->profileId, profile.id);
    QCOMPARE(grant->startsAt, at);
    QCOMPARE(grant->createdAt, at);
    QCOMPARE(grant->expiresAt, at.addSecs(12 * 3600));
    QVERIFY(!grant->isRevoked());
    // Kinds are kept in their canonical order.
    QCOMPARE(grant->actionKinds,
             (QList<ActRequest::Kind>{ActRequest::Kind::Click, ActRequest::Kind::Scroll}));
    QVERIFY(grant->validate());
    const Result<StandingGrant> another =
        StandingGrantRules::create(owner(), profile, requestFor(profile), at);
    QVERIFY(another && another->id != grant->id);
}

void TestStandingGrant::createRefuses_data()
{
    QTest::addColumn<RequestChange>("change");
    QTest::addColumn<QString>("code");
    const auto row = [](const char *name, RequestChange change, const char *code) {
        QTest::newRow(name) << change << QString::fromLatin1(code);
    };
    row(
        "authentication required",
        [](BrowserProfile &p, StandingGrantRequest &) {
            p.status = ProfileStatus::AuthenticationRequired;
        },
        "grant.profile_not_ready");
    row(
        "needs user",
        [](BrowserProfile &p, StandingGrantRequest &) { p.status = ProfileStatus::NeedsUser; },
        "grant.profile_not_ready");
    row(
        "an origin the profile does not allow",
        [](BrowserProfile &, StandingGrantRequest &r) {
            r.origins << origin(QStringLiteral("https://www.elsewhere.com"));
        },
        "grant.origin_not_allowed");
    row(
        "no origin", [](BrowserProfile &, StandingGrantRequest &r) { r.origins.clear(); },
        "grant.invalid");
    row(
        "a repeated origin",
        [](BrowserProfile &, StandingGrantRequest &r) { r.origins << r.origins.constFirst(); },
        "grant.invalid");
    row(
        "no kind", [](BrowserProfile &, StandingGrantRequest &r) { r.actionKinds.clear(); },
        "grant.invalid");
    row(
        "no lifetime", [](BrowserProfile &, StandingGrantRequest &r) { r.lifetimeMs = 0; },
        "grant.invalid");
    row(
        "thirty-one days",
        [](BrowserProfile &, StandingGrantRequest &r) {
            r.lifetimeMs = qint64(31) * 24 * 3600 * 1000;
        },
        "grant.invalid");
    row(
        "another profile",
        [](BrowserProfile &, StandingGrantRequest &r) { r.profileId = BrowserProfile::newId(); },
        "grant.invalid");
    row(
        "an unknown role",
        [](BrowserProfile &, StandingGrantRequest &r) { r.role = QStringLiteral("alertdialog"); },
        "grant.invalid");
    row(
        "a bad policy version",
        [](BrowserProfile &, StandingGrantRequest &r) { r.policyVersion = QStringLiteral("v1"); },
        "grant.invalid");
}

void TestStandingGrant::createRefuses()
{
    QFETCH(RequestChange, change);
    QFETCH(QString, code);
    BrowserProfile profile = readyProfile();
    StandingGrantRequest request = requestFor(profile);
    change(profile, request);
    const Result<StandingGrant> grant = StandingGrantRules::create(owner(), profile, request, kNow);
    QVERIFY(!grant);
    QCOMPARE(grant.error().code, code);
}

void TestStandingGrant::revokeOnce()
{
    const StandingGrant grant = grantFor(readyProfile());
    const StandingGrant revoked = StandingGrantRules::revoke(grant, kNow);
    QCOMPARE(revoked.revokedAt, std::optional(kNow));
    QVERIFY(revoked.validate());
    QCOMPARE(StandingGrantRules::revoke(revoked, kNow.addDays(1)), revoked);
}

void TestStandingGrant::authorize_data()
{
    QTest::addColumn<Mutation>("change");
    QTest::addColumn<QString>("reason");
    const auto row = [](const char *name, Mutation change, const char *reason) {
        QTest::newRow(name) << change << QString::fromLatin1(reason);
    };
    using G = StandingGrant;
    using P = BrowserProfile;
    using U = StandingGrantUse;
    const auto facts = [](ElementFacts value) {
        return [value](G &, P &, U &u) { u.facts = value; };
    };

    row(
        "the baseline", [](G &, P &, U &) {}, "allowed");
    row(
        "a routine link",
        [](G &g, P &, U &u) {
            g.role = QStringLiteral("link");
            u.facts.role = QStringLiteral("link");
            u.facts.accessibleName = u.facts.visibleText = QStringLiteral("More");
        },
        "allowed");
    row(
        "name and role constraints met",
        [](G &g, P &, U &) {
            g.role = QStringLiteral("button");
            g.accessibleName = QStringLiteral("Next");
        },
        "allowed");
    row(
        "purpose met",
        [](G &g, P &, U &u) {
            g.purpose = QStringLiteral("Morning digest");
            u.purpose = QStringLiteral("Morning digest");
        },
        "allowed");
    row(
        "a scroll",
        [](G &, P &, U &u) {
            u.request = *ActRequest::scroll(QStringLiteral("r1"), QStringLiteral("e5"), 400);
        },
        "allowed");
    row(
        "the deadline just before expiry",
        [](G &g, P &, U &u) { u.actionDeadline = g.expiresAt.addMSecs(-1); }, "allowed");

    // Each reason, one row at a time.
    row(
        "malformed grant", [](G &g, P &, U &) { g.origins.clear(); }, "malformed");
    row(
        "malformed use: no deadline", [](G &, P &, U &u) { u.actionDeadline = QDateTime(); },
        "malformed");
    row(
        "malformed use: no time", [](G &, P &, U &u) { u.now = QDateTime(); }, "malformed");
    row(
        "malformed use: no scope", [](G &, P &, U &u) { u.scope = ProfileScope(); }, "malformed");
    row(
        "another principal", [](G &, P &, U &u) { u.scope.principal = QStringLiteral("someone"); },
        "scope");
    row(
        "another tenant", [](G &, P &, U &u) { u.scope.tenant = QStringLiteral("tenant-b"); },
        "scope");
    row(
        "the profile changed hands", [](G &, P &p, U &) { p.principal = QStringLiteral("other"); },
        "scope");
    row(
        "another profile in the use", [](G &, P &, U &u) { u.profileId = BrowserProfile::newId(); },
        "profile");
    row(
        "no profile in the use", [](G &, P &, U &u) { u.profileId = QUuid(); }, "profile");
    row(
        "the grant names another profile",
        [](G &g, P &, U &) { g.profileId = BrowserProfile::newId(); }, "profile");
    row(
        "profile needs the user", [](G &, P &p, U &) { p.status = ProfileStatus::NeedsUser; },
        "profile_not_ready");
    row(
        "profile revoked", [](G &, P &p, U &) { p.status = ProfileStatus::Revoked; },
        "profile_not_ready");
    row(
        "profile generation moved", [](G &, P &p, U &) { ++p.generation; }, "generation_changed");
    row(
        "no generation pinned", [](G &, P &, U &u) { u.profileGeneration = -1; },
        "generation_changed");
    row(
        "revoked", [](G &g, P &, U &) { g.revokedAt = g.createdAt.addSecs(1); }, "revoked");
    row(
        "revoked in the future", [](G &g, P &, U &u) { g.revokedAt = u.now.addDays(1); },
        "revoked");
    row(
        "not started",
        [](G &g, P &, U &u) {
            g.startsAt = u.now.addMSecs(1);
            g.expiresAt = g.startsAt.addDays(1);
        },
        "not_started");
    row(
        "expired", [](G &g, P &, U &u) { g.expiresAt = u.now; }, "expired");
    row(
        "expires before the deadline",
        [](G &g, P &, U &u) { u.actionDeadline = g.expiresAt.addMSecs(1); }, "expired");
    row(
        "expires at the deadline", [](G &g, P &, U &u) { u.actionDeadline = g.expiresAt; },
        "expired");
    row(
        "another agent version",
        [](G &, P &, U &u) { u.agentVersion = QStringLiteral("veetbot 0.9.1"); }, "agent_version");
    row(
        "no agent version", [](G &, P &, U &u) { u.agentVersion.clear(); }, "agent_version");
    row(
        "another policy version", [](G &, P &, U &u) { u.policyVersion = QString(64, u'b'); },
        "policy_version");
    row(
        "no policy version", [](G &, P &, U &u) { u.policyVersion.clear(); }, "policy_version");
    row(
        "an origin of the profile but not the grant",
        [](G &, P &, U &u) {
            u.pageOrigin = origin(QStringLiteral("https://www.acme-news.com"));
            u.pageUrl = QUrl(QStringLiteral("https://www.acme-news.com/today"));
        },
        "origin");
    row(
        "no page origin", [](G &, P &, U &u) { u.pageOrigin.reset(); }, "origin");
    row(
        "a page off the pinned origin",
        [](G &, P &, U &u) { u.pageUrl = QUrl(QStringLiteral("https://www.acme-news.com/today")); },
        "origin");
    row(
        "a page on another port",
        [](G &, P &, U &u) {
            u.pageUrl = QUrl(QStringLiteral("https://www.acme-shop.com:8443/today"));
        },
        "origin");
    row(
        "a page over http",
        [](G &, P &, U &u) { u.pageUrl = QUrl(QStringLiteral("http://www.acme-shop.com/today")); },
        "origin");
    row(
        "an origin the profile no longer allows",
        [](G &, P &p, U &) {
            p.allowedOrigins = {origin(QStringLiteral("https://www.acme-news.com"))};
        },
        "origin");
    row(
        "a kind the grant lacks",
        [](G &, P &, U &u) {
            u.request = *ActRequest::press(QStringLiteral("r1"), QStringLiteral("e5"),
                                           ActRequest::Key::Enter);
        },
        "action_kind");
    row(
        "another role", [](G &g, P &, U &) { g.role = QStringLiteral("link"); }, "role");
    row(
        "another name", [](G &g, P &, U &) { g.accessibleName = QStringLiteral("More"); }, "name");
    row(
        "a name differing in case",
        [](G &g, P &, U &) { g.accessibleName = QStringLiteral("next"); }, "name");
    row(
        "a purpose the session lacks",
        [](G &g, P &, U &) { g.purpose = QStringLiteral("Morning digest"); }, "purpose");
    row(
        "another purpose",
        [](G &g, P &, U &u) {
            g.purpose = QStringLiteral("Morning digest");
            u.purpose = QStringLiteral("Evening digest");
        },
        "purpose");

    // Routine only.
    row("Delete account", facts(button(QStringLiteral("Delete account"))), "not_routine");
    row("Cyrillic lookalike Delete", facts(button(QString::fromUtf8("D\u0435lete"))),
        "not_routine");
    row("aria-label Next, visible text Continue",
        facts(button(QStringLiteral("Next"), QStringLiteral("Continue"))), "not_routine");
    row("an unknown word", facts(button(QStringLiteral("Frobnicate"))), "not_routine");
    row(
        "a label cut short", [](G &, P &, U &u) { u.facts.visibleTextWhole = false; },
        "not_routine");
    row(
        "a title saying otherwise",
        [](G &, P &, U &u) {
            u.facts.labels = {LabelText{LabelSource::Title, QStringLiteral("Publish"), true}};
        },
        "not_routine");
    row(
        "a delete inside a dialog",
        [](G &, P &, U &u) { u.facts.dialogName = QStringLiteral("Delete your account"); },
        "not_routine");
    row(
        "a scroll on an unlabelled element",
        [](G &, P &, U &u) {
            u.request = *ActRequest::scroll(QStringLiteral("r1"), QStringLiteral("e5"), 400);
            u.facts = ElementFacts{};
            u.facts.role = QStringLiteral("region");
        },
        "not_routine");
    row(
        "a role that is not a control",
        [](G &, P &, U &u) { u.facts.role = QStringLiteral("heading"); }, "not_routine");

    // Covered by the same rules as ordinary interaction.
    row(
        "a disabled button", [](G &, P &, U &u) { u.facts.disabled = true; }, "not_covered");
    row(
        "a click that submits a form to an unknown target",
        [](G &, P &, U &u) { u.facts.inForm = true; }, "not_covered");
    row(
        "a page on a sensitive path",
        [](G &, P &, U &u) {
            u.pageUrl = QUrl(QStringLiteral("https://www.acme-shop.com/admin/users"));
        },
        "not_covered");
}

void TestStandingGrant::authorize()
{
    QFETCH(Mutation, change);
    QFETCH(QString, reason);
    BrowserProfile profile = readyProfile();
    StandingGrant grant = grantFor(profile);
    StandingGrantUse use = useOf(profile);
    change(grant, profile, use);
    const StandingGrantDecision decision = StandingGrantRules::authorize(grant, profile, use);
    QCOMPARE(decision.reason(), reason);
    QCOMPARE(decision.allowed, reason == QLatin1String("allowed"));
}

void TestStandingGrant::denialStringsAreStableAndDistinct()
{
    const QStringList expected{
        QStringLiteral("unavailable"),
        QStringLiteral("not_found"),
        QStringLiteral("malformed"),
        QStringLiteral("scope"),
        QStringLiteral("profile"),
        QStringLiteral("profile_not_ready"),
        QStringLiteral("generation_changed"),
        QStringLiteral("revoked"),
        QStringLiteral("not_started"),
        QStringLiteral("expired"),
        QStringLiteral("agent_version"),
        QStringLiteral("policy_version"),
        QStringLiteral("origin"),
        QStringLiteral("action_kind"),
        QStringLiteral("role"),
        QStringLiteral("name"),
        QStringLiteral("purpose"),
        QStringLiteral("not_routine"),
        QStringLiteral("not_covered"),
    };
    QStringList seen;
    for (int i = 0; i <= int(StandingGrantDenial::NotCovered); ++i)
        seen << standingGrantDenialString(StandingGrantDenial(i));
    QCOMPARE(seen, expected);
}

void TestStandingGrant::failuresAreStableAndContentFree()
{
    const QList<std::pair<StandingGrantFailure, QString>> codes{
        {StandingGrantFailure::Invalid, QStringLiteral("grant.invalid")},
        {StandingGrantFailure::OriginNotAllowed, QStringLiteral("grant.origin_not_allowed")},
        {StandingGrantFailure::NotFound, QStringLiteral("grant.not_found")},
        {StandingGrantFailure::ProfileNotReady, QStringLiteral("grant.profile_not_ready")},
        {StandingGrantFailure::CeremonyPending, QStringLiteral("grant.ceremony_pending")},
    };
    for (const auto &[failure, code] : codes) {
        QCOMPARE(standingGrantFailureString(failure), code);
        const Error error = standingGrantError(failure);
        QVERIFY(isStandingGrantFailure(error, failure));
        QVERIFY(!error.message.isEmpty());
        for (const QString &word : {QStringLiteral("acme"), QStringLiteral("owner@"),
                                    QStringLiteral("tenant-a"), QStringLiteral("Next")})
            QVERIFY2(!error.message.contains(word), qPrintable(error.message));
    }
}

QTEST_APPLESS_MAIN(TestStandingGrant)
#include "tst_standinggrant.moc"
