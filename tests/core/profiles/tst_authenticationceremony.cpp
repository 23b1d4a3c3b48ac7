// The sign-in record: status and failure-code strings, the id form, the record's invariants,
// and the admission and outcome rules as pure functions.

#include "domain/signin/AuthenticationCeremony.h"
#include "domain/web/TestOverrides.h"

#include <QTest>

using namespace veetbot;

namespace veetbot {
char *toString(const CeremonyStatus &status)
{
    return qstrdup(ceremonyStatusString(status).toUtf8().constData());
}
char *toString(const ProfileStatus &status)
{
    return qstrdup(profileStatusString(status).toUtf8().constData());
}
} // namespace veetbot

#define VERIFY_FAILURE(result, failure)                                                            \
    do {                                                                                           \
        const auto &verifyResult_ = (result);                                                      \
        QVERIFY2(!verifyResult_.ok(), "expected a failure, got success");                          \
        QCOMPARE(verifyResult_.error(), profileError(failure));                                    \
    } while (false)

class AuthenticationCeremonyTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void statusStringsRoundTrip();
    void failureCodesAreTheServicesCodes();
    void theTwoModesAreKnown();
    void idsAreLowercaseHyphenatedUuids();
    void beginRecordsWhatTheLaunchReturned();
    void beginCutsTheExpiryToFiveMinutes();
    void beginRefusesAMalformedLaunch();
    void admitRefusesWhileAnotherIsOpen();
    void admitChecksGenerationThenState();
    void readingPastExpiryReportsExpired();
    void readyMakesTheProfileReady();
    void otherOutcomesLeaveTheProfileAlone();
    void outcomeArgumentsAreChecked();
    void terminalIsTerminal();
    void readyForARevokedProfileFails();
    void lateOutcomesAreStillRecorded();
    void validateEnforcesInvariants();

private:
    static QDateTime t0() { return QDateTime(QDate(2030, 1, 2), QTime(3, 4, 5, 678), Qt::UTC); }
    static QString ceremonyId() { return QStringLiteral("7d444840-9dc0-11d1-b245-5ffdce74fad2"); }
    static BrowserProfile profileIn(ProfileStatus status);
    static AuthenticationCeremony openCeremony(const BrowserProfile &profile);
};

BrowserProfile AuthenticationCeremonyTest::profileIn(ProfileStatus status)
{
    Result<Origin> origin = Origin::parse(QStringLiteral("https://shop.de"), TestOverrides());
    Result<BrowserProfile> profile = BrowserProfile::reserve(
        ProfileScope{QStringLiteral("tenant-a"), QStringLiteral("alice")}, {*origin}, t0());
    if (!profile)
        qFatal("reservation failed");
    if (status == ProfileStatus::Provisioning)
        return *profile;
    profile =
        ProfileLifecycle::bind(*profile, 0, QStringLiteral("hosted"),
                               BrowserProfile::newProviderReference(), QStringLiteral("k1"), t0());
    if (profile && (status == ProfileStatus::Ready || status == ProfileStatus::NeedsUser))
        profile = ProfileLifecycle::transition(*profile, 1, ProfileStatus::Ready, t0());
    if (profile && status == ProfileStatus::NeedsUser)
        profile = ProfileLifecycle::transition(*profile, 2, ProfileStatus::NeedsUser, t0());
    if (profile && status == ProfileStatus::Revoked)
        profile = ProfileLifecycle::transition(*profile, 1, ProfileStatus::Revoked, t0());
    if (!profile || profile->status != status)
        qFatal("profile set-up failed");
    return *profile;
}

AuthenticationCeremony AuthenticationCeremonyTest::openCeremony(const BrowserProfile &profile)
{
    Result<AuthenticationCeremony> ceremony =
        CeremonyLifecycle::begin(profile, QString::fromUtf16(kDeviceCeremonyMode),
                                 CeremonyLaunchRecord{ceremonyId(), t0().addSecs(300)}, t0());
    if (!ceremony)
        qFatal("begin failed");
    return *ceremony;
}

void AuthenticationCeremonyTest::statusStringsRoundTrip()
{
    QStringList actual;
    for (CeremonyStatus status : kAllCeremonyStatuses) {
        actual << ceremonyStatusString(status);
        QCOMPARE(ceremonyStatusFromString(ceremonyStatusString(status)),
                 std::optional<CeremonyStatus>(status));
        QCOMPARE(isTerminalCeremonyStatus(status), status != CeremonyStatus::Open);
    }
    QCOMPARE(actual, (QStringList{QStringLiteral("open"), QStringLiteral("ready"),
                                  QStringLiteral("cancelled"), QStringLiteral("expired"),
                                  QStringLiteral("failed")}));
    QVERIFY(!ceremonyStatusFromString(QStringLiteral("OPEN")));
    QVERIFY(!ceremonyStatusFromString(QStringLiteral("needs_user")));
    QVERIFY(!ceremonyStatusFromString(QString()));
}

void AuthenticationCeremonyTest::failureCodesAreTheServicesCodes()
{
    QStringList actual;
    for (CeremonyFailureCode code : kAllCeremonyFailureCodes) {
        actual << ceremonyFailureCodeString(code);
        QCOMPARE(ceremonyFailureCodeFromString(ceremonyFailureCodeString(code)),
                 std::optional<CeremonyFailureCode>(code));
    }
    QCOMPARE(actual, (QStringList{
                         QStringLiteral("session_empty"), QStringLiteral("session_signed_out"),
                         QStringLiteral("session_unconfirmed"),
                         QStringLiteral("tool.browser.provider_unavailable"),
                         QStringLiteral("tool.browser.profile_unavailable"),
                         QStringLiteral("invalid_request"), QStringLiteral("session_wrong_account"),
                         QStringLiteral("session_public_page")}));
    QVERIFY(!ceremonyFailureCodeFromString(QStringLiteral("tool.browser.url_disallowed")));
    QVERIFY(!ceremonyFailureCodeFromString(QString()));
}

void AuthenticationCeremonyTest::theTwoModesAreKnown()
{
    QVERIFY(isCeremonyMode(QStringLiteral("device")));
    QVERIFY(isCeremonyMode(QStringLiteral("remote")));
    QVERIFY(!isCeremonyMode(QStringLiteral("Device")));
    QVERIFY(!isCeremonyMode(QStringLiteral("hosted")));
    QVERIFY(!isCeremonyMode(QString()));
}

void AuthenticationCeremonyTest::idsAreLowercaseHyphenatedUuids()
{
    QVERIFY(AuthenticationCeremony::isCeremonyId(ceremonyId()));
    QVERIFY(AuthenticationCeremony::isCeremonyId(
        BrowserProfile::newId().toString(QUuid::WithoutBraces)));
    const QStringList malformed = {ceremonyId().toUpper(),
                                   u'{' + ceremonyId() + u'}',
                                   ceremonyId().remove(u'-'),
                                   ceremonyId().left(35),
                                   ceremonyId() + u'\n',
                                   QStringLiteral("not-a-uuid"),
                                   QUuid().toString(QUuid::WithoutBraces),
                                   QString()};
    for (const QString &text : malformed)
        QVERIFY2(!AuthenticationCeremony::isCeremonyId(text), qPrintable(text));
}

void AuthenticationCeremonyTest::beginRecordsWhatTheLaunchReturned()
{
    const BrowserProfile profile = profileIn(ProfileStatus::AuthenticationRequired);
    const AuthenticationCeremony ceremony = openCeremony(profile);
    QCOMPARE(ceremony.id, ceremonyId());
    QCOMPARE(ceremony.profileId, profile.id);
    QCOMPARE(ceremony.scope(), profile.scope());
    QCOMPARE(ceremony.mode, QStringLiteral("device"));
    QCOMPARE(ceremony.status, CeremonyStatus::Open);
    QVERIFY(!ceremony.failureCode);
    QCOMPARE(ceremony.createdAt, t0());
    QCOMPARE(ceremony.expiresAt, t0().addSecs(300));
    QVERIFY(!ceremony.finishedAt);
    QVERIFY(ceremony.validate().ok());
    QVERIFY(ceremony.isOpenAt(t0().addSecs(299)));
    QVERIFY(!ceremony.isOpenAt(t0().addSecs(300)));
}

void AuthenticationCeremonyTest::beginCutsTheExpiryToFiveMinutes()
{
    const BrowserProfile profile = profileIn(ProfileStatus::Ready);
    const Result<AuthenticationCeremony> ceremony =
        CeremonyLifecycle::begin(profile, QStringLiteral("device"),
                                 CeremonyLaunchRecord{ceremonyId(), t0().addSecs(3600)}, t0());
    QVERIFY(ceremony.ok());
    QCOMPARE(ceremony->expiresAt, t0().addSecs(300));
    const Result<AuthenticationCeremony> shorter =
        CeremonyLifecycle::begin(profile, QStringLiteral("device"),
                                 CeremonyLaunchRecord{ceremonyId(), t0().addSecs(90)}, t0());
    QVERIFY(shorter.ok());
    QCOMPARE(shorter->expiresAt, t0().addSecs(90));
}

void AuthenticationCeremonyTest::beginRefusesAMalformedLaunch()
{
    const BrowserProfile profile = profileIn(ProfileStatus::Ready);
    const QString device = QStringLiteral("device");
    const QList<CeremonyLaunchRecord> malformed = {
        {ceremonyId().toUpper(), t0().addSecs(300)},
        {QStringLiteral("launch"), t0().addSecs(300)},
        {ceremonyId(), t0()},
        {ceremonyId(), t0().addSecs(-1)},
        {ceremonyId(), QDateTime()},
    };
    for (const CeremonyLaunchRecord &launched : malformed)
        VERIFY_FAILURE(CeremonyLifecycle::begin(profile, device, launched, t0()),
                       ProfileFailure::Invalid);
    VERIFY_FAILURE(CeremonyLifecycle::begin(profile, QStringLiteral("hosted"),
                                            CeremonyLaunchRecord{ceremonyId(), t0().addSecs(300)},
                                            t0()),
                   ProfileFailure::Invalid);
}

void AuthenticationCeremonyTest::admitRefusesWhileAnotherIsOpen()
{
    const BrowserProfile profile = profileIn(ProfileStatus::Ready);
    const AuthenticationCeremony open = openCeremony(profile);
    // Refused while it is open, before the generation is even looked at: a concurrent begin
    // that waited for the winner sees the winner's ceremony, not its generation.
    VERIFY_FAILURE(CeremonyLifecycle::admit(profile, profile.generation, open, t0().addSecs(299)),
                   ProfileFailure::CeremonyConflict);
    VERIFY_FAILURE(
        CeremonyLifecycle::admit(profile, profile.generation - 1, open, t0().addSecs(299)),
        ProfileFailure::CeremonyConflict);
    // An expired one does not block.
    const Result<BrowserProfile> admitted =
        CeremonyLifecycle::admit(profile, profile.generation, open, t0().addSecs(300));
    QVERIFY(admitted.ok());
    QCOMPARE(admitted->generation, profile.generation + 1);
    QCOMPARE(admitted->status, ProfileStatus::Ready);
    QCOMPARE(admitted->updatedAt, t0().addSecs(300));
    // Nor does a finished one.
    AuthenticationCeremony cancelled = open;
    cancelled.status = CeremonyStatus::Cancelled;
    cancelled.finishedAt = t0();
    QVERIFY(CeremonyLifecycle::admit(profile, profile.generation, cancelled, t0()).ok());
}

void AuthenticationCeremonyTest::admitChecksGenerationThenState()
{
    for (ProfileStatus status :
         {ProfileStatus::AuthenticationRequired, ProfileStatus::Ready, ProfileStatus::NeedsUser}) {
        const BrowserProfile profile = profileIn(status);
        const Result<BrowserProfile> admitted =
            CeremonyLifecycle::admit(profile, profile.generation, std::nullopt, t0());
        QVERIFY(admitted.ok());
        QCOMPARE(admitted->status, status);
        QCOMPARE(admitted->generation, profile.generation + 1);
        VERIFY_FAILURE(
            CeremonyLifecycle::admit(profile, profile.generation + 1, std::nullopt, t0()),
            ProfileFailure::StaleGeneration);
    }
    for (ProfileStatus status : {ProfileStatus::Provisioning, ProfileStatus::Revoked}) {
        const BrowserProfile profile = profileIn(status);
        VERIFY_FAILURE(CeremonyLifecycle::admit(profile, profile.generation, std::nullopt, t0()),
                       ProfileFailure::InvalidTransition);
        VERIFY_FAILURE(
            CeremonyLifecycle::admit(profile, profile.generation + 1, std::nullopt, t0()),
            ProfileFailure::StaleGeneration);
    }
    const BrowserProfile profile = profileIn(ProfileStatus::Ready);
    VERIFY_FAILURE(CeremonyLifecycle::admit(profile, -1, std::nullopt, t0()),
                   ProfileFailure::Invalid);
    VERIFY_FAILURE(CeremonyLifecycle::admit(profile, profile.generation, std::nullopt, QDateTime()),
                   ProfileFailure::Invalid);
}

void AuthenticationCeremonyTest::readingPastExpiryReportsExpired()
{
    const AuthenticationCeremony open = openCeremony(profileIn(ProfileStatus::Ready));
    QCOMPARE(open.asOf(t0().addSecs(299)), open);
    const AuthenticationCeremony expired = open.asOf(t0().addSecs(301));
    QCOMPARE(expired.status, CeremonyStatus::Expired);
    QCOMPARE(expired.finishedAt, std::optional<QDateTime>(open.expiresAt));
    QVERIFY(!expired.failureCode);
    QVERIFY(expired.validate().ok());
    // A recorded outcome is what it is, however late it is read.
    AuthenticationCeremony ready = open;
    ready.status = CeremonyStatus::Ready;
    ready.finishedAt = t0().addSecs(10);
    QCOMPARE(ready.asOf(t0().addSecs(3600)), ready);
}

void AuthenticationCeremonyTest::readyMakesTheProfileReady()
{
    for (ProfileStatus status :
         {ProfileStatus::AuthenticationRequired, ProfileStatus::NeedsUser, ProfileStatus::Ready}) {
        const BrowserProfile profile = profileIn(status);
        const AuthenticationCeremony open = openCeremony(profile);
        const Result<CeremonySettlement> settled = CeremonyLifecycle::finish(
            open, profile, CeremonyStatus::Ready, QString(), {}, t0().addSecs(60));
        QVERIFY(settled.ok());
        QVERIFY(!settled->refusal);
        QCOMPARE(settled->ceremony.status, CeremonyStatus::Ready);
        QCOMPARE(settled->ceremony.finishedAt, std::optional<QDateTime>(t0().addSecs(60)));
        QVERIFY(settled->ceremony.validate().ok());
        QCOMPARE(settled->profile.status, ProfileStatus::Ready);
        QCOMPARE(settled->profile.generation, profile.generation + 1);
        QCOMPARE(settled->profile.lastVerifiedAt, std::optional<QDateTime>(t0().addSecs(60)));
    }
}

void AuthenticationCeremonyTest::otherOutcomesLeaveTheProfileAlone()
{
    const BrowserProfile profile = profileIn(ProfileStatus::AuthenticationRequired);
    const AuthenticationCeremony open = openCeremony(profile);
    const QList<std::pair<CeremonyStatus, QString>> outcomes = {
        {CeremonyStatus::Cancelled, QString()},
        {CeremonyStatus::Expired, QString()},
        {CeremonyStatus::Failed, QStringLiteral("session_signed_out")},
        {CeremonyStatus::Failed, QStringLiteral("tool.browser.provider_unavailable")},
    };
    for (const auto &[outcome, code] : outcomes) {
        const Result<CeremonySettlement> settled =
            CeremonyLifecycle::finish(open, profile, outcome, code, {}, t0().addSecs(60));
        QVERIFY(settled.ok());
        QVERIFY(!settled->refusal);
        QCOMPARE(settled->profile, profile);
        QCOMPARE(settled->ceremony.status, outcome);
        QCOMPARE(settled->ceremony.failureCode, ceremonyFailureCodeFromString(code));
        QVERIFY(settled->ceremony.validate().ok());
    }
    QCOMPARE(open.status, CeremonyStatus::Open);
}

void AuthenticationCeremonyTest::outcomeArgumentsAreChecked()
{
    const BrowserProfile profile = profileIn(ProfileStatus::Ready);
    const AuthenticationCeremony open = openCeremony(profile);
    const QList<std::pair<CeremonyStatus, QString>> malformed = {
        {CeremonyStatus::Open, QString()},
        {CeremonyStatus::Failed, QString()},
        {CeremonyStatus::Failed, QStringLiteral("needs_user")},
        {CeremonyStatus::Ready, QStringLiteral("session_empty")},
        {CeremonyStatus::Cancelled, QStringLiteral("session_empty")},
    };
    for (const auto &[outcome, code] : malformed)
        VERIFY_FAILURE(CeremonyLifecycle::finish(open, profile, outcome, code, {}, t0()),
                       ProfileFailure::Invalid);
}

void AuthenticationCeremonyTest::terminalIsTerminal()
{
    const BrowserProfile profile = profileIn(ProfileStatus::AuthenticationRequired);
    const Result<CeremonySettlement> failed =
        CeremonyLifecycle::finish(openCeremony(profile), profile, CeremonyStatus::Failed,
                                  QStringLiteral("session_empty"), {}, t0().addSecs(5));
    QVERIFY(failed.ok());
    // The same outcome again changes nothing and answers the record.
    const Result<CeremonySettlement> again =
        CeremonyLifecycle::finish(failed->ceremony, profile, CeremonyStatus::Failed,
                                  QStringLiteral("session_empty"), {}, t0().addSecs(9));
    QVERIFY(again.ok());
    QCOMPARE(again->ceremony, failed->ceremony);
    QCOMPARE(again->profile, profile);
    QVERIFY(!again->refusal);
    // Any other outcome, another failure code included, conflicts.
    VERIFY_FAILURE(CeremonyLifecycle::finish(failed->ceremony, profile, CeremonyStatus::Failed,
                                             QStringLiteral("session_unconfirmed"), {}, t0()),
                   ProfileFailure::CeremonyOutcomeConflict);
    for (CeremonyStatus other :
         {CeremonyStatus::Ready, CeremonyStatus::Cancelled, CeremonyStatus::Expired})
        VERIFY_FAILURE(
            CeremonyLifecycle::finish(failed->ceremony, profile, other, QString(), {}, t0()),
            ProfileFailure::CeremonyOutcomeConflict);

    // A ready outcome repeated does not advance the profile again.
    const Result<CeremonySettlement> ready = CeremonyLifecycle::finish(
        openCeremony(profile), profile, CeremonyStatus::Ready, QString(), {}, t0().addSecs(5));
    QVERIFY(ready.ok());
    const Result<CeremonySettlement> readyAgain = CeremonyLifecycle::finish(
        ready->ceremony, ready->profile, CeremonyStatus::Ready, QString(), {}, t0().addSecs(9));
    QVERIFY(readyAgain.ok());
    QCOMPARE(readyAgain->profile, ready->profile);
    QCOMPARE(readyAgain->ceremony, ready->ceremony);
}

void AuthenticationCeremonyTest::readyForARevokedProfileFails()
{
    const BrowserProfile ready = profileIn(ProfileStatus::Ready);
    const AuthenticationCeremony open = openCeremony(ready);
    const Result<BrowserProfile> revoked =
        ProfileLifecycle::transition(ready, ready.generation, ProfileStatus::Revoked, t0());
    QVERIFY(revoked.ok());
    const Result<CeremonySettlement> settled = CeremonyLifecycle::finish(
        open, *revoked, CeremonyStatus::Ready, QString(), {}, t0().addSecs(20));
    // Not an error of the rule itself: the record is written, and then refused.
    QVERIFY(settled.ok());
    QCOMPARE(settled->refusal,
             std::optional<Error>(profileError(ProfileFailure::InvalidTransition)));
    QCOMPARE(settled->profile, *revoked);
    QCOMPARE(settled->ceremony.status, CeremonyStatus::Failed);
    QCOMPARE(settled->ceremony.failureCode,
             std::optional<CeremonyFailureCode>(CeremonyFailureCode::ProfileUnavailable));
    QVERIFY(settled->ceremony.validate().ok());
}

void AuthenticationCeremonyTest::lateOutcomesAreStillRecorded()
{
    const BrowserProfile profile = profileIn(ProfileStatus::AuthenticationRequired);
    const AuthenticationCeremony open = openCeremony(profile);
    const QDateTime late = t0().addSecs(3600);
    const Result<CeremonySettlement> ready =
        CeremonyLifecycle::finish(open, profile, CeremonyStatus::Ready, QString(), {}, late);
    QVERIFY(ready.ok());
    QCOMPARE(ready->profile.status, ProfileStatus::Ready);
    QCOMPARE(ready->ceremony.finishedAt, std::optional<QDateTime>(late));
    // An expiry learned late is recorded at the moment it happened.
    const Result<CeremonySettlement> expired =
        CeremonyLifecycle::finish(open, profile, CeremonyStatus::Expired, QString(), {}, late);
    QVERIFY(expired.ok());
    QCOMPARE(expired->ceremony.finishedAt, std::optional<QDateTime>(open.expiresAt));
    QCOMPARE(expired->ceremony, open.asOf(late));
}

void AuthenticationCeremonyTest::validateEnforcesInvariants()
{
    const AuthenticationCeremony valid = openCeremony(profileIn(ProfileStatus::Ready));
    QVERIFY(valid.validate().ok());
    QList<AuthenticationCeremony> invalid;
    AuthenticationCeremony c = valid;
    c.id = c.id.toUpper();
    invalid << c;
    c = valid;
    c.profileId = QUuid();
    invalid << c;
    c = valid;
    c.tenant.clear();
    invalid << c;
    c = valid;
    c.principal = QStringLiteral("bad\nprincipal");
    invalid << c;
    c = valid;
    c.mode = QStringLiteral("hosted");
    invalid << c;
    c = valid;
    c.failureCode = CeremonyFailureCode::SessionEmpty; // open with a failure code
    invalid << c;
    c = valid;
    c.finishedAt = t0(); // open with a finish time
    invalid << c;
    c = valid;
    c.status = CeremonyStatus::Cancelled; // terminal without a finish time
    invalid << c;
    c = valid;
    c.status = CeremonyStatus::Failed; // failed without a code
    c.finishedAt = t0();
    invalid << c;
    c = valid;
    c.status = CeremonyStatus::Ready;
    c.finishedAt = t0().addSecs(-1); // finished before it began
    invalid << c;
    c = valid;
    c.expiresAt = c.createdAt;
    invalid << c;
    c = valid;
    c.expiresAt = c.createdAt.addSecs(301);
    invalid << c;
    c = valid;
    c.createdAt = QDateTime();
    invalid << c;
    for (const AuthenticationCeremony &ceremony : std::as_const(invalid))
        VERIFY_FAILURE(ceremony.validate(), ProfileFailure::Invalid);
}

QTEST_GUILESS_MAIN(AuthenticationCeremonyTest)
#include "tst_authenticationceremony.moc"
