// The vault as the profile control plane: idempotent provisioning, scope conflicts, fencing
// and removal by reference or by profile id, names only across the port.

#include "domain/profile/BrowserProfile.h"
#include "domain/web/TestOverrides.h"
#include "vault/DirectoryKeyring.h"
#include "vault/KeyDirectory.h"
#include "vault/VaultControlPlane.h"

#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

using namespace veetbot;

class TestVaultControlPlane : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void provisioningIsIdempotentAcrossRestarts();
    void changedScopeConflicts();
    void revokeFencesAndRemoveDeletes();
    void unboundReservationIsFoundByProfileId();
    void storeDirectoryIsCreatedPrivate();
    void openingLeavesTheProcessAsItWas();

private:
    std::unique_ptr<VaultControlPlane> openVault();
    MaterialScope scope(const QString &origin = QStringLiteral("https://shop.acme-store.com"),
                        const QString &principal = QStringLiteral("principal-a")) const;
    int envelopeCount() const;

    std::unique_ptr<QTemporaryDir> m_dir;
    QUuid m_profileId;
};

void TestVaultControlPlane::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(KeyDirectory::init(m_dir->path() + QStringLiteral("/keys")).ok());
    m_profileId = BrowserProfile::newId();
}

std::unique_ptr<VaultControlPlane> TestVaultControlPlane::openVault()
{
    const QString keys = m_dir->path() + QStringLiteral("/keys");
    std::unique_ptr<VaultControlPlane> vault;
    VaultControlPlane::open(
        m_dir->path() + QStringLiteral("/vault"),
        [keys](std::function<void(VaultControlPlane::KeyringResult)> done) {
            Result<DirectoryKeyring> keyring = DirectoryKeyring::open(keys);
            if (!keyring)
                done(keyring.error());
            else
                done(std::unique_ptr<Keyring>(
                    std::make_unique<DirectoryKeyring>(std::move(keyring).value())));
        },
        [&vault](Result<std::unique_ptr<VaultControlPlane>> opened) {
            if (opened)
                vault = std::move(opened).value();
        });
    return vault;
}

MaterialScope TestVaultControlPlane::scope(const QString &origin, const QString &principal) const
{
    return MaterialScope{m_profileId,
                         QStringLiteral("tenant-a"),
                         principal,
                         {Origin::parse(origin, TestOverrides()).value()}};
}

int TestVaultControlPlane::envelopeCount() const
{
    int count = 0;
    QDirIterator it(m_dir->path() + QStringLiteral("/vault"), {QStringLiteral("*.env")},
                    QDir::Files);
    while (it.hasNext()) {
        it.next();
        ++count;
    }
    return count;
}

void TestVaultControlPlane::provisioningIsIdempotentAcrossRestarts()
{
    QString reference;
    {
        auto vault = openVault();
        QVERIFY(vault);
        const auto first = vault->provision(scope());
        QVERIFY(first.ok());
        QCOMPARE(first->providerName, QStringLiteral("webengine"));
        QVERIFY(!first->keyVersion.isEmpty());
        reference = first->providerReference;
    }
    auto vault = openVault(); // a restart: a fresh store validating what is on disk
    QVERIFY(vault);
    const auto again = vault->provision(scope());
    QVERIFY(again.ok());
    QCOMPARE(again->providerReference, reference);
    QCOMPARE(envelopeCount(), 1);
}

void TestVaultControlPlane::changedScopeConflicts()
{
    auto vault = openVault();
    QVERIFY(vault->provision(scope()).ok());
    QCOMPARE(vault->provision(scope(QStringLiteral("https://other.acme-store.com"))).error().code,
             QStringLiteral("profile.conflict"));
    QCOMPARE(vault
                 ->provision(scope(QStringLiteral("https://shop.acme-store.com"),
                                   QStringLiteral("principal-b")))
                 .error()
                 .code,
             QStringLiteral("profile.conflict"));
    QCOMPARE(envelopeCount(), 1);
}

void TestVaultControlPlane::revokeFencesAndRemoveDeletes()
{
    auto vault = openVault();
    const auto material = vault->provision(scope());
    QVERIFY(material.ok());
    // Another scope cannot fence or remove it.
    QCOMPARE(vault
                 ->revoke(scope(QStringLiteral("https://shop.acme-store.com"),
                                QStringLiteral("principal-b")),
                          material->providerReference)
                 .error()
                 .code,
             QStringLiteral("profile.conflict"));
    QVERIFY(vault->revoke(scope(), material->providerReference).ok());
    QVERIFY(vault->revoke(scope(), material->providerReference).ok()); // repeatable
    // A fenced profile cannot be provisioned again.
    QCOMPARE(vault->provision(scope()).error().code, QStringLiteral("profile.conflict"));
    QVERIFY(vault->remove(scope(), material->providerReference).ok());
    QCOMPARE(envelopeCount(), 0);
    QVERIFY(vault->remove(scope(), material->providerReference).ok()); // already gone
    QVERIFY(vault->isEmpty());
}

void TestVaultControlPlane::unboundReservationIsFoundByProfileId()
{
    // A crash between provisioning and binding leaves material the metadata never named.
    auto vault = openVault();
    QVERIFY(vault->provision(scope()).ok());
    QVERIFY(vault->revoke(scope(), std::nullopt).ok());
    QVERIFY(vault->remove(scope(), std::nullopt).ok());
    QCOMPARE(envelopeCount(), 0);
}

void TestVaultControlPlane::storeDirectoryIsCreatedPrivate()
{
    const mode_t saved = ::umask(0022);
    const std::unique_ptr<VaultControlPlane> vault = openVault();
    ::umask(saved);
    QVERIFY(vault);
    struct stat status
    {
    };
    QCOMPARE(
        ::lstat(QFile::encodeName(m_dir->path() + QStringLiteral("/vault")).constData(), &status),
        0);
    QVERIFY(S_ISDIR(status.st_mode));
    QCOMPARE(status.st_mode & 07777, mode_t(0700));
}

void TestVaultControlPlane::openingLeavesTheProcessAsItWas()
{
    // The core-dump policy is the program's (its main() applies it first thing): opening the
    // vault changes no process-wide state.
    struct rlimit before
    {
    };
    QCOMPARE(::getrlimit(RLIMIT_CORE, &before), 0);
    QCOMPARE(::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 1);
    QVERIFY(openVault());
    struct rlimit after
    {
    };
    QCOMPARE(::getrlimit(RLIMIT_CORE, &after), 0);
    QCOMPARE(after.rlim_cur, before.rlim_cur);
    QCOMPARE(after.rlim_max, before.rlim_max);
    QCOMPARE(::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 1);
}

QTEST_GUILESS_MAIN(TestVaultControlPlane)
#include "tst_vaultcontrolplane.moc"
