// The profile service's sign-in ceremonies with an injected clock: ids and capabilities,
// one open ceremony per profile, the capability checked without being spent and spent once,
// cancellation, expiry after five minutes, outcomes kept a day, and owners that only see
// their own ceremonies. Also the browser admission a verification shares with leases.

#include "service/server/CeremonyRegistry.h"
#include "service/server/LeaseRegistry.h"

#include <QRegularExpression>
#include <QTest>

using namespace veetbot;

class TestCeremonyRegistry : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void beginMintsAnIdAndACapability();
    void oneOpenCeremonyPerProfile();
    void theCapabilityIsCheckedThenSpentOnce();
    void aCapabilityOpensOnlyItsOwnMode();
    void outcomesAndCancellation();
    void anOpenCeremonyExpires();
    void outcomesAreKeptADay();
    void anotherOwnerSeesNothing();
    void revocationCancels();
    void verificationsCountAgainstTheBrowserLimit();

private:
    CeremonyRegistry::Owner owner(int profile = 1) const;
    QDateTime m_now;
    std::unique_ptr<CeremonyRegistry> m_ceremonies;
};

namespace {
constexpr qint64 kMinute = 60 * 1000;
constexpr CeremonyRegistry::Mode kDevice = CeremonyRegistry::Mode::Device;
constexpr CeremonyRegistry::Mode kRemote = CeremonyRegistry::Mode::Remote;
} // namespace

void TestCeremonyRegistry::init()
{
    m_now = QDateTime::fromMSecsSinceEpoch(1'700'000'000'000, Qt::UTC);
    m_ceremonies = std::make_unique<CeremonyRegistry>([this] { return m_now; });
}

CeremonyRegistry::Owner TestCeremonyRegistry::owner(int profile) const
{
    return {
        QUuid(QStringLiteral("00000000-0000-4000-8000-%1").arg(profile, 12, 10, QLatin1Char('0'))),
        QStringLiteral("tenant"), QStringLiteral("principal"), QStringLiteral("reference")};
}

void TestCeremonyRegistry::beginMintsAnIdAndACapability()
{
    const auto begun =
        m_ceremonies->begin(owner(), {QStringLiteral("https://shop.example")}, kDevice);
    QVERIFY(begun.ok());
    static const QRegularExpression uuid(
        QStringLiteral("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"));
    QVERIFY(uuid.match(begun->ceremony.id).hasMatch());
    // 256 random bits, base64url: 43 characters.
    QCOMPARE(begun->capability.size(), 43);
    QCOMPARE(begun->ceremony.expiresAt, m_now.addMSecs(5 * kMinute));
    QCOMPARE(begun->ceremony.state, CeremonyRegistry::State::Open);
    const auto other =
        m_ceremonies->begin(owner(2), {QStringLiteral("https://shop.example")}, kDevice);
    QVERIFY(other.ok());
    QVERIFY(other->ceremony.id != begun->ceremony.id && other->capability != begun->capability);
}

void TestCeremonyRegistry::oneOpenCeremonyPerProfile()
{
    QVERIFY(m_ceremonies->begin(owner(), {}, kDevice).ok());
    const auto second = m_ceremonies->begin(owner(), {}, kDevice);
    QVERIFY(!second.ok());
    QCOMPARE(second.error().code, QStringLiteral("ceremony.open"));
    // Another profile is not held back.
    QVERIFY(m_ceremonies->begin(owner(2), {}, kDevice).ok());
}

void TestCeremonyRegistry::theCapabilityIsCheckedThenSpentOnce()
{
    const auto begun = m_ceremonies->begin(owner(), {}, kDevice);
    QVERIFY(begun.ok());
    const QString id = begun->ceremony.id;
    const QByteArray capability = begun->capability.toLatin1();
    QVERIFY(!m_ceremonies->matches(id, kDevice, "wrong"));
    QVERIFY(!m_ceremonies->matches(id, kDevice, ""));
    QVERIFY(!m_ceremonies->matches(id, kDevice, QByteArray(200, 'a')));
    QVERIFY(!m_ceremonies->matches(QStringLiteral("00000000-0000-4000-8000-000000000000"), kDevice,
                                   capability));
    // Checking does not spend it.
    QVERIFY(m_ceremonies->matches(id, kDevice, capability));
    QVERIFY(m_ceremonies->matches(id, kDevice, capability));
    QVERIFY(!m_ceremonies->claim(id, kDevice, "wrong"));
    const auto claimed = m_ceremonies->claim(id, kDevice, capability);
    QVERIFY(claimed.has_value());
    QCOMPARE(claimed->state, CeremonyRegistry::State::Verifying);
    // Spent: a repeat is refused, and the check fails too.
    QVERIFY(!m_ceremonies->claim(id, kDevice, capability));
    QVERIFY(!m_ceremonies->matches(id, kDevice, capability));
    QVERIFY(m_ceremonies->isVerifying(id));
}

void TestCeremonyRegistry::aCapabilityOpensOnlyItsOwnMode()
{
    const auto remote = m_ceremonies->begin(owner(1), {}, kRemote);
    const auto device = m_ceremonies->begin(owner(2), {}, kDevice);
    QVERIFY(remote.ok() && device.ok());
    QCOMPARE(remote->ceremony.mode, kRemote);
    const QByteArray remoteCapability = remote->capability.toLatin1();
    const QByteArray deviceCapability = device->capability.toLatin1();
    // A remote capability cannot hand off, and a device one opens no view or finish.
    QVERIFY(!m_ceremonies->matches(remote->ceremony.id, kDevice, remoteCapability));
    QVERIFY(!m_ceremonies->claim(remote->ceremony.id, kDevice, remoteCapability));
    QVERIFY(!m_ceremonies->peek(device->ceremony.id, kRemote, deviceCapability));
    QVERIFY(!m_ceremonies->claim(device->ceremony.id, kRemote, deviceCapability));
    // Each still opens its own: the refusals spent nothing.
    QVERIFY(m_ceremonies->peek(remote->ceremony.id, kRemote, remoteCapability));
    QVERIFY(m_ceremonies->claim(remote->ceremony.id, kRemote, remoteCapability));
    QVERIFY(m_ceremonies->claim(device->ceremony.id, kDevice, deviceCapability));
    // Live while verifying: a third begin for either profile is refused.
    QVERIFY(m_ceremonies->isLive(owner(1).profileId));
    QVERIFY(!m_ceremonies->isLive(owner(3).profileId));
    QCOMPARE(m_ceremonies->begin(owner(1), {}, kRemote).error().code,
             QStringLiteral("ceremony.open"));
}

void TestCeremonyRegistry::outcomesAndCancellation()
{
    const auto ready = m_ceremonies->begin(owner(1), {}, kDevice);
    const auto failed = m_ceremonies->begin(owner(2), {}, kDevice);
    const auto cancelled = m_ceremonies->begin(owner(3), {}, kDevice);
    QVERIFY(ready.ok() && failed.ok() && cancelled.ok());
    QVERIFY(m_ceremonies->claim(ready->ceremony.id, kDevice, ready->capability.toLatin1()));
    QVERIFY(m_ceremonies->claim(failed->ceremony.id, kDevice, failed->capability.toLatin1()));
    QVERIFY(m_ceremonies->claim(cancelled->ceremony.id, kDevice, cancelled->capability.toLatin1()));
    m_ceremonies->finish(ready->ceremony.id, CeremonyRegistry::State::Ready);
    m_ceremonies->finish(failed->ceremony.id, CeremonyRegistry::State::Failed,
                         QStringLiteral("session_signed_out"));
    // Cancelled while verifying: the late outcome does not replace it, and it is no longer
    // verifying (a verification then seals nothing).
    QVERIFY(m_ceremonies->cancel(cancelled->ceremony.id, owner(3)).ok());
    QVERIFY(!m_ceremonies->isVerifying(cancelled->ceremony.id));
    m_ceremonies->finish(cancelled->ceremony.id, CeremonyRegistry::State::Ready);
    QCOMPARE(m_ceremonies->status(ready->ceremony.id, owner(1))->state,
             CeremonyRegistry::State::Ready);
    const auto failedStatus = m_ceremonies->status(failed->ceremony.id, owner(2));
    QCOMPARE(failedStatus->state, CeremonyRegistry::State::Failed);
    QCOMPARE(failedStatus->code, QStringLiteral("session_signed_out"));
    QCOMPARE(m_ceremonies->status(cancelled->ceremony.id, owner(3))->state,
             CeremonyRegistry::State::Cancelled);
    // Cancelling a ceremony that ended keeps its outcome.
    QCOMPARE(m_ceremonies->cancel(ready->ceremony.id, owner(1))->state,
             CeremonyRegistry::State::Ready);
    // An ended ceremony no longer blocks a new one.
    QVERIFY(m_ceremonies->begin(owner(1), {}, kDevice).ok());
}

void TestCeremonyRegistry::anOpenCeremonyExpires()
{
    const auto begun = m_ceremonies->begin(owner(), {}, kDevice);
    QVERIFY(begun.ok());
    m_now = m_now.addMSecs(5 * kMinute - 1);
    QVERIFY(m_ceremonies->matches(begun->ceremony.id, kDevice, begun->capability.toLatin1()));
    m_now = m_now.addMSecs(1);
    QVERIFY(!m_ceremonies->matches(begun->ceremony.id, kDevice, begun->capability.toLatin1()));
    QVERIFY(!m_ceremonies->claim(begun->ceremony.id, kDevice, begun->capability.toLatin1()));
    QCOMPARE(m_ceremonies->status(begun->ceremony.id, owner())->state,
             CeremonyRegistry::State::Expired);
    QVERIFY(m_ceremonies->begin(owner(), {}, kDevice).ok());
}

void TestCeremonyRegistry::outcomesAreKeptADay()
{
    const auto begun = m_ceremonies->begin(owner(), {}, kDevice);
    QVERIFY(begun.ok());
    QVERIFY(m_ceremonies->cancel(begun->ceremony.id, owner()).ok());
    m_now = m_now.addMSecs(24 * 60 * kMinute - 1);
    QVERIFY(m_ceremonies->status(begun->ceremony.id, owner()).ok());
    m_now = m_now.addMSecs(1);
    const auto forgotten = m_ceremonies->status(begun->ceremony.id, owner());
    QVERIFY(!forgotten.ok());
    QCOMPARE(forgotten.error().code, QStringLiteral("ceremony.not_found"));
}

void TestCeremonyRegistry::anotherOwnerSeesNothing()
{
    const auto begun = m_ceremonies->begin(owner(), {}, kDevice);
    QVERIFY(begun.ok());
    CeremonyRegistry::Owner other = owner();
    other.principal = QStringLiteral("someone-else");
    QVERIFY(!m_ceremonies->status(begun->ceremony.id, other).ok());
    QVERIFY(!m_ceremonies->cancel(begun->ceremony.id, other).ok());
    other = owner();
    other.providerReference = QStringLiteral("another-reference");
    QVERIFY(!m_ceremonies->status(begun->ceremony.id, other).ok());
    // The owner's control: still open.
    QCOMPARE(m_ceremonies->status(begun->ceremony.id, owner())->state,
             CeremonyRegistry::State::Open);
}

void TestCeremonyRegistry::revocationCancels()
{
    const auto open = m_ceremonies->begin(owner(1), {}, kDevice);
    const auto verifying = m_ceremonies->begin(owner(2), {}, kDevice);
    QVERIFY(open.ok() && verifying.ok());
    QVERIFY(m_ceremonies->claim(verifying->ceremony.id, kDevice, verifying->capability.toLatin1()));
    m_ceremonies->cancelProfile(owner(1).profileId);
    m_ceremonies->cancelProfile(owner(2).profileId);
    QVERIFY(!m_ceremonies->matches(open->ceremony.id, kDevice, open->capability.toLatin1()));
    QVERIFY(!m_ceremonies->isVerifying(verifying->ceremony.id));
    QCOMPARE(m_ceremonies->status(open->ceremony.id, owner(1))->state,
             CeremonyRegistry::State::Cancelled);
    // By owner: only that owner's ceremonies.
    const auto mine = m_ceremonies->begin(owner(3), {}, kDevice);
    const auto theirs = m_ceremonies->begin(owner(4), {}, kDevice);
    QVERIFY(mine.ok() && theirs.ok());
    CeremonyRegistry::Owner other = owner(3);
    other.principal = QStringLiteral("someone-else");
    m_ceremonies->cancelOwner(other);
    QCOMPARE(m_ceremonies->status(mine->ceremony.id, owner(3))->state,
             CeremonyRegistry::State::Open);
    m_ceremonies->cancelOwner(owner(3));
    QCOMPARE(m_ceremonies->status(mine->ceremony.id, owner(3))->state,
             CeremonyRegistry::State::Cancelled);
    QCOMPARE(m_ceremonies->status(theirs->ceremony.id, owner(4))->state,
             CeremonyRegistry::State::Open);
}

void TestCeremonyRegistry::verificationsCountAgainstTheBrowserLimit()
{
    LeaseRegistry leases([this] { return m_now; });
    const LeaseRegistry::Holder holder{owner().profileId,           QStringLiteral("tenant"),
                                       QStringLiteral("principal"), QStringLiteral("reference"),
                                       QStringLiteral("run"),       1};
    QVERIFY(leases.acquire(holder, std::nullopt).ok());
    QVERIFY(leases.reserve(2)); // one lease and a verification's two: the limit
    QCOMPARE(leases.liveCount(), 3);
    QVERIFY(!leases.reserve(1));
    LeaseRegistry::Holder second = holder;
    second.profileId = owner(2).profileId;
    const auto refused = leases.acquire(second, std::nullopt);
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().code, QStringLiteral("tool.browser.provider_unavailable"));
    leases.release(2);
    QVERIFY(leases.acquire(second, std::nullopt).ok());
    QVERIFY(!leases.reserve(2)); // two leases: no room for two more
    QCOMPARE(leases.liveCount(), 2);
}

QTEST_GUILESS_MAIN(TestCeremonyRegistry)
#include "tst_ceremonyregistry.moc"
