#include "vault/AesGcm.h"

#include <QTest>

using namespace veetbot;

// AES-256-GCM against published known answers (NIST CAVP gcmEncryptExtIV256 and the
// McGrew-Viega GCM specification's AES-256 cases 13-16), tag length, and refusals that
// never release plaintext.
class AesGcmTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void knownAnswer_data();
    void knownAnswer();
    void sealUsesFreshNonceAndFullTag();
    void roundTrip();
    void tamperFails_data();
    void tamperFails();
    void shortTagRefused_data();
    void shortTagRefused();
    void wrongKeySizeRefused();
    void wrongNonceSizeRefused();
};

namespace {
QByteArray hex(const char *text)
{
    return QByteArray::fromHex(QByteArray(text));
}

SecretBytes keyOf(const QByteArray &bytes)
{
    return SecretBytes(QByteArray(bytes.constData(), bytes.size()));
}

// McGrew-Viega test cases 15/16 share key, IV and (a prefix of) this plaintext.
const char *const kMvKey = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308";
const char *const kMvIv = "cafebabefacedbaddecaf888";
const char *const kMvPlain60 = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                               "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39";
const char *const kMvCipher60 = "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
                                "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662";
} // namespace

void AesGcmTest::knownAnswer_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("iv");
    QTest::addColumn<QByteArray>("plaintext");
    QTest::addColumn<QByteArray>("aad");
    QTest::addColumn<QByteArray>("ciphertext");
    QTest::addColumn<QByteArray>("tag");

    // gcmEncryptExtIV256.rsp [Keylen=256 IVlen=96 PTlen=0 AADlen=0 Taglen=128] Count=0
    QTest::newRow("CAVP PT0 AAD0 count0")
        << hex("b52c505a37d78eda5dd34f20c22540ea1b58963cf8e5bf8ffa85f9f2492505b4")
        << hex("516c33929df5a3284ff463d7") << QByteArray() << QByteArray() << QByteArray()
        << hex("bdc1ac884d332457a1d2664f168c76f0");
    // [PTlen=0 AADlen=128] Count=0: empty plaintext, AAD only
    QTest::newRow("CAVP PT0 AAD128 count0")
        << hex("78dc4e0aaf52d935c3c01eea57428f00ca1fd475f5da86a49c8dd73d68c8e223")
        << hex("d79cf22d504cc793c3fb6c8a") << QByteArray()
        << hex("b96baa8c1c75a671bfb2d08d06be5f36") << QByteArray()
        << hex("3e5d486aa2e30b22e040b85723a06e76");
    // [PTlen=128 AADlen=0] Count=0
    QTest::newRow("CAVP PT128 AAD0 count0")
        << hex("31bdadd96698c204aa9ce1448ea94ae1fb4a9a0b3c9d773b51bb1822666b8f22")
        << hex("0d18e06c7c725ac9e362e1ce") << hex("2db5168e932556f8089a0622981d017d")
        << QByteArray() << hex("fa4362189661d163fcd6a56d8bf0405a")
        << hex("d636ac1bbedd5cc3ee727dc2ab4a9489");
    // [PTlen=408 AADlen=160] Count=0: partial final block and AAD
    QTest::newRow("CAVP PT408 AAD160 count0")
        << hex("24501ad384e473963d476edcfe08205237acfd49b5b8f33857f8114e863fec7f")
        << hex("9ff18563b978ec281b3f2794")
        << hex("27f348f9cdc0c5bd5e66b1ccb63ad920ff2219d14e8d631b3872265cf117ee86757accb158bd9a"
               "bb3868fdc0d0b074b5f01b2c")
        << hex("adb5ec720ccf9898500028bf34afccbcaca126ef")
        << hex("eb7cb754c824e8d96f7c6d9b76c7d26fb874ffbf1d65c6f64a698d839b0b06145dae82057ad559"
               "94cf59ad7f67c0fa5e85fab8")
        << hex("bc95c532fecc594c36d1550286a7a3f0");
    // McGrew-Viega, "The Galois/Counter Mode of Operation", AES-256 test cases.
    QTest::newRow("GCM spec TC13 empty")
        << QByteArray(32, '\0') << QByteArray(12, '\0') << QByteArray() << QByteArray()
        << QByteArray() << hex("530f8afbc74536b9a963b4f1c4cb738b");
    QTest::newRow("GCM spec TC14 one block")
        << QByteArray(32, '\0') << QByteArray(12, '\0') << QByteArray(16, '\0') << QByteArray()
        << hex("cea7403d4d606b6e074ec5d3baf39d18") << hex("d0d1c8a799996bf0265b98b5d48ab919");
    QTest::newRow("GCM spec TC15 four blocks")
        << hex(kMvKey) << hex(kMvIv) << QByteArray(hex(kMvPlain60) + hex("1aafd255"))
        << QByteArray() << QByteArray(hex(kMvCipher60) + hex("898015ad"))
        << hex("b094dac5d93471bdec1a502270e3cc6c");
    QTest::newRow("GCM spec TC16 with AAD")
        << hex(kMvKey) << hex(kMvIv) << hex(kMvPlain60)
        << hex("feedfacedeadbeeffeedfacedeadbeefabaddad2") << hex(kMvCipher60)
        << hex("76fc6ece0f4e1768cddf8853bb2d551b");
}

void AesGcmTest::knownAnswer()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, iv);
    QFETCH(QByteArray, plaintext);
    QFETCH(QByteArray, aad);
    QFETCH(QByteArray, ciphertext);
    QFETCH(QByteArray, tag);
    QCOMPARE(key.size(), 32);
    QCOMPARE(iv.size(), 12);
    QCOMPARE(tag.size(), 16);

    const Result<QByteArray> sealed =
        AesGcm::sealWithNonceForTesting(keyOf(key), iv, aad, plaintext);
    QVERIFY(sealed.ok());
    QCOMPARE(sealed->toHex(), QByteArray(ciphertext + tag).toHex());

    const Result<SecretBytes> opened =
        AesGcm::open(keyOf(key), iv, aad, QByteArray(ciphertext + tag));
    QVERIFY(opened.ok());
    QCOMPARE(opened->bytes().toHex(), plaintext.toHex());
}

void AesGcmTest::sealUsesFreshNonceAndFullTag()
{
    const SecretBytes key = keyOf(hex(kMvKey));
    const QByteArray plaintext = hex(kMvPlain60);
    const Result<AesGcm::Sealed> first = AesGcm::seal(key, "aad", plaintext);
    const Result<AesGcm::Sealed> second = AesGcm::seal(key, "aad", plaintext);
    QVERIFY(first.ok());
    QVERIFY(second.ok());
    QCOMPARE(first->nonce.size(), AesGcm::kNonceBytes);
    QCOMPARE(first->ciphertextAndTag.size(), plaintext.size() + 16);
    QVERIFY(first->nonce != second->nonce);
    QVERIFY(first->ciphertextAndTag != second->ciphertextAndTag);
    QVERIFY(!first->ciphertextAndTag.contains(plaintext.left(16)));

    const Result<AesGcm::Sealed> empty = AesGcm::seal(key, QByteArray(), QByteArray());
    QVERIFY(empty.ok());
    QCOMPARE(empty->ciphertextAndTag.size(), 16);
}

void AesGcmTest::roundTrip()
{
    const SecretBytes key = keyOf(QByteArray(32, '\x42'));
    QByteArray plaintext(100000, Qt::Uninitialized);
    for (int i = 0; i < plaintext.size(); ++i)
        plaintext[i] = char(i * 31 + 7);
    const Result<AesGcm::Sealed> sealed = AesGcm::seal(key, "context", plaintext);
    QVERIFY(sealed.ok());
    const Result<SecretBytes> opened =
        AesGcm::open(key, sealed->nonce, "context", sealed->ciphertextAndTag);
    QVERIFY(opened.ok());
    QVERIFY(opened->bytes() == plaintext);
}

void AesGcmTest::tamperFails_data()
{
    QTest::addColumn<QString>("what");
    QTest::newRow("ciphertext first byte") << "ciphertext";
    QTest::newRow("ciphertext last byte") << "ciphertext-last";
    QTest::newRow("tag") << "tag";
    QTest::newRow("aad changed") << "aad";
    QTest::newRow("aad dropped") << "aad-empty";
    QTest::newRow("aad extended") << "aad-longer";
    QTest::newRow("nonce") << "nonce";
    QTest::newRow("key") << "key";
    QTest::newRow("byte appended") << "appended";
    QTest::newRow("tag byte dropped") << "dropped";
}

void AesGcmTest::tamperFails()
{
    QFETCH(QString, what);
    QByteArray key = hex(kMvKey);
    QByteArray nonce = hex(kMvIv);
    QByteArray aad = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2");
    QByteArray sealed = QByteArray(hex(kMvCipher60) + hex("76fc6ece0f4e1768cddf8853bb2d551b"));
    // The untampered input opens: the failure below is caused by the change alone.
    QVERIFY(AesGcm::open(keyOf(key), nonce, aad, sealed).ok());

    if (what == QLatin1String("ciphertext"))
        sealed[0] = char(sealed[0] ^ 0x01);
    else if (what == QLatin1String("ciphertext-last"))
        sealed[sealed.size() - 17] = char(sealed[sealed.size() - 17] ^ 0x80);
    else if (what == QLatin1String("tag"))
        sealed[sealed.size() - 1] = char(sealed[sealed.size() - 1] ^ 0x01);
    else if (what == QLatin1String("aad"))
        aad[3] = char(aad[3] ^ 0x01);
    else if (what == QLatin1String("aad-empty"))
        aad.clear();
    else if (what == QLatin1String("aad-longer"))
        aad.append('\0');
    else if (what == QLatin1String("nonce"))
        nonce[11] = char(nonce[11] ^ 0x01);
    else if (what == QLatin1String("key"))
        key[31] = char(key[31] ^ 0x01);
    else if (what == QLatin1String("appended"))
        sealed.append('\0');
    else if (what == QLatin1String("dropped"))
        sealed.chop(1);
    else
        QFAIL("unknown row");

    const Result<SecretBytes> opened = AesGcm::open(keyOf(key), nonce, aad, sealed);
    QVERIFY(!opened.ok());
    QCOMPARE(opened.error().code, QStringLiteral("vault.tag_mismatch"));
}

void AesGcmTest::shortTagRefused_data()
{
    QTest::addColumn<int>("length");
    QTest::newRow("empty") << 0;
    QTest::newRow("one byte") << 1;
    QTest::newRow("12-byte tag") << 12;
    QTest::newRow("15 bytes") << 15;
}

void AesGcmTest::shortTagRefused()
{
    QFETCH(int, length);
    // TC13's valid 16-byte tag, truncated: GCM would verify a truncated tag if asked to.
    const QByteArray tag = hex("530f8afbc74536b9a963b4f1c4cb738b").left(length);
    const Result<SecretBytes> opened =
        AesGcm::open(keyOf(QByteArray(32, '\0')), QByteArray(12, '\0'), QByteArray(), tag);
    QVERIFY(!opened.ok());
    QCOMPARE(opened.error().code, QStringLiteral("vault.corrupt_record"));
}

void AesGcmTest::wrongKeySizeRefused()
{
    for (int size : {0, 16, 24, 31, 33}) {
        const SecretBytes key(QByteArray(size, '\x01'));
        const Result<AesGcm::Sealed> sealed = AesGcm::seal(key, QByteArray(), "x");
        QVERIFY(!sealed.ok());
        QCOMPARE(sealed.error().code, QStringLiteral("vault.key_unavailable"));
        const Result<SecretBytes> opened =
            AesGcm::open(key, QByteArray(12, '\0'), QByteArray(), QByteArray(17, '\0'));
        QVERIFY(!opened.ok());
        QCOMPARE(opened.error().code, QStringLiteral("vault.key_unavailable"));
    }
}

void AesGcmTest::wrongNonceSizeRefused()
{
    const SecretBytes key = keyOf(QByteArray(32, '\0'));
    const QByteArray tag = hex("530f8afbc74536b9a963b4f1c4cb738b");
    QVERIFY(AesGcm::open(key, QByteArray(12, '\0'), QByteArray(), tag).ok());
    for (int size : {0, 8, 11, 13, 16}) {
        const Result<SecretBytes> opened = AesGcm::open(key, QByteArray(size, '\0'), {}, tag);
        QVERIFY(!opened.ok());
        QCOMPARE(opened.error().code, QStringLiteral("vault.corrupt_record"));
        QVERIFY(!AesGcm::sealWithNonceForTesting(key, QByteArray(size, '\0'), {}, {}).ok());
    }
}

QTEST_GUILESS_MAIN(AesGcmTest)
#include "tst_aesgcm.moc"
