// The profile service's leases with an injected clock: one per profile, the identical acquire,
// another run refused, the 15- and 60-minute caps, renewal, the action sequence, admission of
// at most three browsers, and references that only name their own holder's lease.

#include "service/server/LeaseRegistry.h"

#include <QTest>

using namespace veetbot;

class TestLeaseRegistry : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void onePerProfileAndTheIdenticalAcquire();
    void anotherRunIsRefused();
    void deadlinesAreCapped();
    void renewalStaysWithinTheLife();
    void anExpiredLeaseIsGone();
    void theSequenceBindsActs();
    void atMostThreeBrowsers();
    void referencesNameOnlyTheirHolder();
    void revocationClosesEveryLeaseOfTheProfile();
    void aNewRegistryHonoursNoReference();
    void theLiveViewFindsALeaseByItsRunAndOwner();

private:
    LeaseRegistry::Holder holder(int profile = 1, const QString &run = QStringLiteral("run-1"),
                                 int attempt = 1) const;
    QDateTime m_now;
    std::unique_ptr<LeaseRegistry> m_leases;
};

namespace {
constexpr qint64 kMinute = 60 * 1000;
}

void TestLeaseRegistry::init()
{
    m_now = QDateTime(QDate(2026, 12, 1), QTime(12, 0), Qt::UTC);
    m_leases = std::make_unique<LeaseRegistry>([this] { return m_now; });
}

LeaseRegistry::Holder TestLeaseRegistry::holder(int profile, const QString &run, int attempt) const
{
    return {QUuid(QStringLiteral("00000000-0000-4000-8000-00000000000%1").arg(profile)),
            QStringLiteral("tenant"),
            QStringLiteral("principal"),
            QStringLiteral("reference-%1").arg(profile),
            run,
            attempt};
}

void TestLeaseRegistry::onePerProfileAndTheIdenticalAcquire()
{
    const auto first = m_leases->acquire(holder(), std::nullopt);
    QVERIFY(first.ok());
    QVERIFY(!first->reattached);
    QCOMPARE(first->reference.size(), 43);
    QVERIFY(m_leases->advance(first->reference.toLatin1(), holder(), 0).ok());
    // The same profile, principal, reference, run and attempt: the same lease, its sequence,
    // whatever deadline it asks for.
    const auto again = m_leases->acquire(holder(), m_now.addSecs(30));
    QVERIFY(again.ok());
    QVERIFY(again->reattached);
    QCOMPARE(again->reference, first->reference);
    QCOMPARE(again->lease.sequence, 1);
    QCOMPARE(again->lease.expiresAt, first->lease.expiresAt);
    QCOMPARE(m_leases->liveCount(), 1);
}

void TestLeaseRegistry::anotherRunIsRefused()
{
    QVERIFY(m_leases->acquire(holder(), std::nullopt).ok());
    for (const auto &other :
         {holder(1, QStringLiteral("run-2")), holder(1, QStringLiteral("run-1"), 2)}) {
        const auto refused = m_leases->acquire(other, std::nullopt);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().code, QStringLiteral("tool.browser.profile_unavailable"));
    }
    // Another profile is free.
    QVERIFY(m_leases->acquire(holder(2), std::nullopt).ok());
}

void TestLeaseRegistry::deadlinesAreCapped()
{
    const auto capped = m_leases->acquire(holder(1), m_now.addSecs(3600 * 5));
    QCOMPARE(capped->lease.expiresAt, m_now.addMSecs(15 * kMinute));
    const auto shorter = m_leases->acquire(holder(2), m_now.addSecs(120));
    QCOMPARE(shorter->lease.expiresAt, m_now.addSecs(120));
    const auto none = m_leases->acquire(holder(3), std::nullopt);
    QCOMPARE(none->lease.expiresAt, m_now.addMSecs(15 * kMinute));
}

void TestLeaseRegistry::renewalStaysWithinTheLife()
{
    const auto acquired = m_leases->acquire(holder(), std::nullopt);
    const QByteArray reference = acquired->reference.toLatin1();
    const QDateTime start = m_now;
    // Renewed every 10 minutes: never more than 15 minutes ahead, never past 60 minutes.
    for (int i = 1; i <= 5; ++i) {
        m_now = start.addMSecs(i * 10 * kMinute);
        const auto renewed = m_leases->renew(reference, holder(), std::nullopt);
        QVERIFY2(renewed.ok(), qPrintable(QString::number(i)));
        const QDateTime expected =
            std::min(m_now.addMSecs(15 * kMinute), start.addMSecs(60 * kMinute));
        QCOMPARE(renewed->expiresAt, expected);
    }
    m_now = start.addMSecs(60 * kMinute);
    QVERIFY(!m_leases->renew(reference, holder(), std::nullopt).ok()); // its life is over
    QCOMPARE(m_leases->liveCount(), 0);
    // A requested deadline shorter than the current expiry never shortens it.
    const auto second = m_leases->acquire(holder(), std::nullopt);
    QCOMPARE(m_leases->renew(second->reference.toLatin1(), holder(), m_now.addSecs(1))->expiresAt,
             second->lease.expiresAt);
}

void TestLeaseRegistry::anExpiredLeaseIsGone()
{
    const auto acquired = m_leases->acquire(holder(), m_now.addSecs(60));
    m_now = m_now.addSecs(59);
    QVERIFY(m_leases->validate(acquired->reference.toLatin1(), holder()).ok());
    QVERIFY(m_leases->takeEnded().isEmpty());
    m_now = m_now.addSecs(1);
    QVERIFY(!m_leases->validate(acquired->reference.toLatin1(), holder()).ok());
    const QList<LeaseRegistry::Lease> ended = m_leases->takeEnded();
    QCOMPARE(ended.size(), 1);
    QCOMPARE(ended.first().holder, holder());
    QVERIFY(m_leases->takeEnded().isEmpty());
    // The profile is free again, for any run.
    QVERIFY(m_leases->acquire(holder(1, QStringLiteral("run-2")), std::nullopt).ok());
}

void TestLeaseRegistry::theSequenceBindsActs()
{
    const auto acquired = m_leases->acquire(holder(), std::nullopt);
    const QByteArray reference = acquired->reference.toLatin1();
    QCOMPARE(m_leases->advance(reference, holder(), 0)->sequence, 1);
    QVERIFY(!m_leases->advance(reference, holder(), 0).ok()); // a replay of act 0
    QVERIFY(!m_leases->advance(reference, holder(), 5).ok());
    QCOMPARE(m_leases->advance(reference, holder(), 1)->sequence, 2);
}

void TestLeaseRegistry::atMostThreeBrowsers()
{
    for (int i = 1; i <= 3; ++i)
        QVERIFY(m_leases->acquire(holder(i), std::nullopt).ok());
    const auto fourth = m_leases->acquire(holder(4), std::nullopt);
    QVERIFY(!fourth.ok());
    QCOMPARE(fourth.error().code, QStringLiteral("tool.browser.provider_unavailable"));
    // Re-attaching to a live lease needs no room.
    QVERIFY(m_leases->acquire(holder(2), std::nullopt).ok());
    const auto first = m_leases->acquire(holder(1), std::nullopt);
    QVERIFY(m_leases->close(first->reference.toLatin1(), holder(1)));
    QVERIFY(m_leases->acquire(holder(4), std::nullopt).ok());
}

void TestLeaseRegistry::referencesNameOnlyTheirHolder()
{
    const auto one = m_leases->acquire(holder(1), std::nullopt);
    const auto two = m_leases->acquire(holder(2), std::nullopt);
    QVERIFY(one->reference != two->reference);
    QVERIFY(!m_leases->validate(one->reference.toLatin1(), holder(2)).ok());
    QVERIFY(
        !m_leases->validate(one->reference.toLatin1(), holder(1, QStringLiteral("run-2"))).ok());
    LeaseRegistry::Holder otherPrincipal = holder(1);
    otherPrincipal.principal = QStringLiteral("someone-else");
    QVERIFY(!m_leases->validate(one->reference.toLatin1(), otherPrincipal).ok());
    QByteArray altered = one->reference.toLatin1();
    altered[0] = altered[0] == 'A' ? 'B' : 'A';
    QVERIFY(!m_leases->validate(altered, holder(1)).ok());
    QVERIFY(!m_leases->validate(QByteArray(129, 'A'), holder(1)).ok());
    QVERIFY(!m_leases->validate(QByteArray(), holder(1)).ok());
    QVERIFY(m_leases->validate(one->reference.toLatin1(), holder(1)).ok());
    // Closing twice: the second finds nothing.
    QVERIFY(m_leases->close(one->reference.toLatin1(), holder(1)));
    QVERIFY(!m_leases->close(one->reference.toLatin1(), holder(1)));
}

void TestLeaseRegistry::revocationClosesEveryLeaseOfTheProfile()
{
    const auto one = m_leases->acquire(holder(1), std::nullopt);
    QVERIFY(m_leases->acquire(holder(2), std::nullopt).ok());
    const QList<LeaseRegistry::Lease> closed = m_leases->closeProfile(holder(1).profileId);
    QCOMPARE(closed.size(), 1);
    QVERIFY(!m_leases->validate(one->reference.toLatin1(), holder(1)).ok());
    QCOMPARE(m_leases->liveCount(), 1);
}

void TestLeaseRegistry::aNewRegistryHonoursNoReference()
{
    // A restarted service: its keys are new, so no earlier reference names anything.
    const auto acquired = m_leases->acquire(holder(), std::nullopt);
    LeaseRegistry restarted([this] { return m_now; });
    QVERIFY(!restarted.validate(acquired->reference.toLatin1(), holder()).ok());
    const auto fresh = restarted.acquire(holder(), std::nullopt);
    QVERIFY(fresh.ok());
    QVERIFY(fresh->reference != acquired->reference);
}

// The owner's live view names a run, never a reference: only a live lease of that run and
// owner is found.
void TestLeaseRegistry::theLiveViewFindsALeaseByItsRunAndOwner()
{
    QVERIFY(!m_leases->leaseOfRun(QStringLiteral("tenant"), QStringLiteral("principal"),
                                  QStringLiteral("run-1")));
    const auto acquired = m_leases->acquire(holder(1, QStringLiteral("run-1")), std::nullopt);
    QVERIFY(acquired.ok());
    const auto found = m_leases->leaseOfRun(QStringLiteral("tenant"), QStringLiteral("principal"),
                                            QStringLiteral("run-1"));
    QVERIFY(found);
    QCOMPARE(found->id, acquired->lease.id);
    QVERIFY(!m_leases->leaseOfRun(QStringLiteral("tenant"), QStringLiteral("principal"),
                                  QStringLiteral("run-2")));
    QVERIFY(!m_leases->leaseOfRun(QStringLiteral("tenant"), QStringLiteral("another"),
                                  QStringLiteral("run-1")));
    QVERIFY(!m_leases->leaseOfRun(QStringLiteral("another"), QStringLiteral("principal"),
                                  QStringLiteral("run-1")));
    // An expired lease is no run's.
    m_now = m_now.addMSecs(16 * kMinute);
    QVERIFY(!m_leases->leaseOfRun(QStringLiteral("tenant"), QStringLiteral("principal"),
                                  QStringLiteral("run-1")));
}

QTEST_APPLESS_MAIN(TestLeaseRegistry)
#include "tst_leaseregistry.moc"
