// The model API key of `veetbot run` in a real secret service (scripts/keychain-test.sh: a
// private session bus and an unlocked gnome-keyring in a throwaway HOME): `veetbot model
// set-key` stores what it reads on stdin, readModelKey() (what `veetbot run` calls for its key
// when VEETBOT_MODEL_API_KEY is not set) gives it back byte for byte, `veetbot model
// clear-key` removes it, and the key is on no output and in no file of HOME in the clear.

#include "ModelKeyCommand.h"

#include <QCoreApplication>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTest>

using namespace veetbot;

namespace {

const QByteArray kCanary = "sk-MODELKEY-CANARY-7f3a91";

struct Ran
{
    int exitCode = -1;
    QByteArray out;
};

// `veetbot model ACTION`, with `input` on its stdin; stdout and stderr together.
Ran model(const QString &action, const QByteArray &input = {})
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot"),
                  {QStringLiteral("model"), action});
    if (!process.waitForStarted(10000))
        return {};
    process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    return Ran{process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
               process.readAll()};
}

} // namespace

class ModelKeyRoundTripTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void setReadClear();
};

void ModelKeyRoundTripTest::initTestCase()
{
    // Only ever against the throwaway keyring of scripts/keychain-test.sh.
    const QByteArray home = qgetenv("HOME");
    QVERIFY2(!home.isEmpty() && qgetenv("VEETBOT_KEYCHAIN_TEST_HOME") == home,
             "run through scripts/keychain-test.sh");
    QVERIFY(qEnvironmentVariableIsEmpty("VEETBOT_MODEL_API_KEY"));
}

void ModelKeyRoundTripTest::setReadClear()
{
    // Nothing stored: no key, and no error.
    Result<SecretBytes> none = readModelKey();
    QVERIFY2(none.ok(), none.ok() ? "" : qPrintable(none.error().code));
    QVERIFY(none->isEmpty());

    const Ran set = model(QStringLiteral("set-key"), kCanary + '\n');
    QVERIFY2(set.exitCode == 0, set.out.constData());
    QVERIFY(!set.out.contains(kCanary));
    Result<SecretBytes> stored = readModelKey();
    QVERIFY2(stored.ok(), stored.ok() ? "" : qPrintable(stored.error().code));
    QCOMPARE(stored->bytes(), kCanary); // the line, without its newline

    // An empty line stores nothing and keeps the key.
    const Ran empty = model(QStringLiteral("set-key"), "\n");
    QCOMPARE(empty.exitCode, 3);
    QVERIFY(empty.out.contains("model.key_invalid"));
    QCOMPARE(readModelKey()->bytes(), kCanary);

    // In no file of HOME in the clear (the keyring's own file holds it encrypted).
    int files = 0;
    QDirIterator it(QString::fromLocal8Bit(qgetenv("HOME")), QDir::Files | QDir::Hidden,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile file(it.next());
        if (!file.open(QIODevice::ReadOnly))
            continue;
        ++files;
        QVERIFY2(!file.readAll().contains(kCanary), qPrintable(file.fileName()));
    }
    QVERIFY(files > 0);

    const Ran cleared = model(QStringLiteral("clear-key"));
    QVERIFY2(cleared.exitCode == 0, cleared.out.constData());
    none = readModelKey();
    QVERIFY(none.ok() && none->isEmpty());
    // Clearing again is not an error.
    QCOMPARE(model(QStringLiteral("clear-key")).exitCode, 0);
}

QTEST_GUILESS_MAIN(ModelKeyRoundTripTest)
#include "tst_modelkey_roundtrip.moc"
