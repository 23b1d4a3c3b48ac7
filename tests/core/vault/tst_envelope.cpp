#include "MemoryKeyring.h"

#include "vault/Envelope.h"
#include "json/CanonicalJson.h"
#include "json/StrictJson.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace veetbot;
using veetbot::test::MemoryKeyring;

// The versioned envelope: round trip, every authenticated field bound by the tag, strict
// shape, bounds before parsing, and key resolution without fallback.
class EnvelopeTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void roundTrip();
    void serializationIsCanonical();
    void emptyPlaintext();
    void aadIsCanonicalMetadata();
    void everyAadFieldBound_data();
    void everyAadFieldBound();
    void everyAadFieldBoundInStoredJson_data();
    void everyAadFieldBoundInStoredJson();
    void tamperedNonce();
    void tamperedCiphertextAndTag_data();
    void tamperedCiphertextAndTag();
    void truncatedEnvelope();
    void shortTagRefused_data();
    void shortTagRefused();
    void oversizedEnvelopeRefusedBeforeParsing();
    void oversizedCiphertextRefused();
    void plaintextBound();
    void duplicateKeysRefused_data();
    void duplicateKeysRefused();
    void unknownFormat_data();
    void unknownFormat();
    void shapeRefused_data();
    void shapeRefused();
    void wrongKey();
    void sealRefusesInvalidMetadata();
    void boundaryIdentityAccepted();

private:
    ProfileMetadata m_metadata;
    MemoryKeyring m_keyring;
    QByteArray m_plaintext;
    QByteArray sealedBytes();
    QJsonObject sealedObject();
    static QByteArray reserialize(const QJsonObject &object);
};

namespace {
const QString kReference = QStringLiteral("ref-Zx9_abc");

ProfileMetadata sampleMetadata()
{
    ProfileMetadata metadata;
    metadata.identity.profileId = QStringLiteral("0f8fad5b-d9cb-469f-a165-70867728950e");
    metadata.identity.tenant = QStringLiteral("tenant-a");
    metadata.identity.principal = QStringLiteral("user-1");
    metadata.identity.providerReference = kReference;
    metadata.identity.allowedOrigins = {QStringLiteral("https://accounts.shop.de"),
                                        QStringLiteral("https://shop.de")};
    metadata.keyVersion = QStringLiteral("k1");
    metadata.revocationFence = 0;
    return metadata;
}

QString errorCode(const Result<Envelope> &result)
{
    return result ? QStringLiteral("<ok>") : result.error().code;
}
} // namespace

void EnvelopeTest::init()
{
    m_metadata = sampleMetadata();
    m_keyring = MemoryKeyring();
    m_keyring.setKey(QStringLiteral("k1"), MemoryKeyring::keyBytes('a'));
    // Same key bytes under another name: a change of key_version alone must fail the tag.
    m_keyring.setKey(QStringLiteral("k1-alias"), MemoryKeyring::keyBytes('a'));
    m_keyring.setKey(QStringLiteral("k2"), MemoryKeyring::keyBytes('b'));
    m_keyring.setCurrent(QStringLiteral("k1"));
    m_plaintext = QByteArrayLiteral("{\"cookies\":[{\"name\":\"sid\",\"value\":\"CANARY-7f3a\"}]}");
}

QByteArray EnvelopeTest::sealedBytes()
{
    const Result<Envelope> envelope =
        Envelope::seal(m_metadata, SecretBytes(m_plaintext), m_keyring);
    if (!envelope)
        return QByteArray();
    const Result<QByteArray> bytes = envelope->serialize();
    return bytes ? *bytes : QByteArray();
}

QJsonObject EnvelopeTest::sealedObject()
{
    return StrictJson::parse(sealedBytes())->toObject();
}

QByteArray EnvelopeTest::reserialize(const QJsonObject &object)
{
    const std::optional<QByteArray> bytes = CanonicalJson::serialize(object);
    return bytes ? *bytes : QByteArray();
}

void EnvelopeTest::roundTrip()
{
    const QByteArray bytes = sealedBytes();
    QVERIFY(!bytes.isEmpty());
    QVERIFY(!bytes.contains("CANARY"));
    const Result<Envelope> parsed = Envelope::parse(bytes);
    QVERIFY(parsed.ok());
    QCOMPARE(parsed->metadata, m_metadata);
    QCOMPARE(parsed->nonce.size(), 12);
    QCOMPARE(parsed->ciphertextAndTag.size(), m_plaintext.size() + 16);
    const Result<SecretBytes> opened = parsed->open(m_keyring);
    QVERIFY(opened.ok());
    QCOMPARE(opened->bytes(), m_plaintext);
    // openAs with identical expectations is the same check.
    QVERIFY(parsed->openAs(m_metadata, m_keyring).ok());
}

void EnvelopeTest::serializationIsCanonical()
{
    const QByteArray bytes = sealedBytes();
    QVERIFY(bytes.startsWith("{\"ciphertext\":\""));
    QVERIFY(bytes.contains("\",\"format\":1,\"metadata\":{\"allowed_origins\":["));
    QCOMPARE(reserialize(StrictJson::parse(bytes)->toObject()), bytes);
    // Sealing twice never reuses a nonce.
    QVERIFY(Envelope::parse(sealedBytes())->nonce != Envelope::parse(bytes)->nonce);
}

void EnvelopeTest::emptyPlaintext()
{
    m_plaintext.clear();
    const Result<Envelope> parsed = Envelope::parse(sealedBytes());
    QVERIFY(parsed.ok());
    QCOMPARE(parsed->ciphertextAndTag.size(), 16);
    const Result<SecretBytes> opened = parsed->open(m_keyring);
    QVERIFY(opened.ok());
    QVERIFY(opened->isEmpty());
}

void EnvelopeTest::aadIsCanonicalMetadata()
{
    QCOMPARE(
        *m_metadata.additionalData(),
        QByteArray(R"({"allowed_origins":["https://accounts.shop.de","https://shop.de"],)"
                   R"("format_version":1,"key_version":"k1",)"
                   R"("principal":"user-1","profile_id":"0f8fad5b-d9cb-469f-a165-70867728950e",)"
                   R"("provider_reference":"ref-Zx9_abc","revocation_fence":0,)"
                   R"("tenant":"tenant-a"})"));
    // The envelope carries exactly these bytes as its metadata member.
    const QByteArray member = ",\"metadata\":" + *m_metadata.additionalData() + ",\"nonce\"";
    QVERIFY(sealedBytes().contains(member));
}

void EnvelopeTest::everyAadFieldBound_data()
{
    QTest::addColumn<QString>("field");
    for (const char *field :
         {"profile_id", "tenant", "principal", "provider_reference", "allowed_origins",
          "allowed_origins_order", "format_version", "key_version", "revocation_fence"})
        QTest::newRow(field) << QString::fromLatin1(field);
}

void EnvelopeTest::everyAadFieldBound()
{
    // The parsed envelope's metadata changed in memory: open() must fail on the tag alone.
    QFETCH(QString, field);
    Result<Envelope> parsed = Envelope::parse(sealedBytes());
    QVERIFY(parsed.ok());
    QVERIFY(parsed->open(m_keyring).ok());
    Envelope envelope = std::move(parsed).value();
    ProfileMetadata &metadata = envelope.metadata;
    if (field == QLatin1String("profile_id"))
        metadata.identity.profileId = QStringLiteral("0f8fad5b-d9cb-469f-a165-70867728950f");
    else if (field == QLatin1String("tenant"))
        metadata.identity.tenant = QStringLiteral("tenant-b");
    else if (field == QLatin1String("principal"))
        metadata.identity.principal = QStringLiteral("user-2");
    else if (field == QLatin1String("provider_reference"))
        metadata.identity.providerReference = QStringLiteral("ref-other");
    else if (field == QLatin1String("allowed_origins"))
        metadata.identity.allowedOrigins.append(QStringLiteral("https://x.shop.de"));
    else if (field == QLatin1String("allowed_origins_order"))
        std::swap(metadata.identity.allowedOrigins[0], metadata.identity.allowedOrigins[1]);
    else if (field == QLatin1String("format_version"))
        metadata.formatVersion = 2;
    else if (field == QLatin1String("key_version"))
        metadata.keyVersion = QStringLiteral("k1-alias");
    else if (field == QLatin1String("revocation_fence"))
        metadata.revocationFence = 1;
    else
        QFAIL("unknown field");
    const Result<SecretBytes> opened = envelope.open(m_keyring);
    QVERIFY(!opened.ok());
    QCOMPARE(opened.error().code, QStringLiteral("vault.tag_mismatch"));
}

void EnvelopeTest::everyAadFieldBoundInStoredJson_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("parseCode"); // "" when the changed envelope still parses
    QTest::newRow("profile_id") << "profile_id"
                                << QJsonValue(
                                       QStringLiteral("11111111-2222-4333-8444-555555555555"))
                                << "";
    QTest::newRow("tenant") << "tenant" << QJsonValue(QStringLiteral("tenant-b")) << "";
    QTest::newRow("principal") << "principal" << QJsonValue(QStringLiteral("user-2")) << "";
    QTest::newRow("provider_reference")
        << "provider_reference" << QJsonValue(QStringLiteral("ref-other")) << "";
    QTest::newRow("allowed_origins removed")
        << "allowed_origins" << QJsonValue(QJsonArray{QStringLiteral("https://shop.de")}) << "";
    QTest::newRow("allowed_origins added")
        << "allowed_origins"
        << QJsonValue(QJsonArray{QStringLiteral("https://accounts.shop.de"),
                                 QStringLiteral("https://evil.de"),
                                 QStringLiteral("https://shop.de")})
        << "";
    QTest::newRow("key_version") << "key_version" << QJsonValue(QStringLiteral("k1-alias")) << "";
    QTest::newRow("revocation_fence") << "revocation_fence" << QJsonValue(qint64(1)) << "";
    // A different format version is not decrypted at all.
    QTest::newRow("format_version")
        << "format_version" << QJsonValue(qint64(2)) << "vault.unknown_format";
}

void EnvelopeTest::everyAadFieldBoundInStoredJson()
{
    QFETCH(QString, field);
    QFETCH(QJsonValue, value);
    QFETCH(QString, parseCode);
    QJsonObject object = sealedObject();
    QJsonObject metadata = object.value(QStringLiteral("metadata")).toObject();
    QVERIFY(metadata.contains(field));
    QVERIFY(metadata.value(field) != value);
    metadata.insert(field, value);
    object.insert(QStringLiteral("metadata"), metadata);
    const Result<Envelope> parsed = Envelope::parse(reserialize(object));
    if (!parseCode.isEmpty()) {
        QCOMPARE(errorCode(parsed), parseCode);
        return;
    }
    QVERIFY(parsed.ok());
    const Result<SecretBytes> opened = parsed->open(m_keyring);
    QVERIFY(!opened.ok());
    QCOMPARE(opened.error().code, QStringLiteral("vault.tag_mismatch"));
}

void EnvelopeTest::tamperedNonce()
{
    QJsonObject object = sealedObject();
    QByteArray nonce =
        QByteArray::fromBase64(object.value(QStringLiteral("nonce")).toString().toLatin1());
    QCOMPARE(nonce.size(), 12);
    nonce[0] = char(nonce[0] ^ 0x01);
    object.insert(QStringLiteral("nonce"), QString::fromLatin1(nonce.toBase64()));
    const Result<Envelope> parsed = Envelope::parse(reserialize(object));
    QVERIFY(parsed.ok());
    const Result<SecretBytes> opened = parsed->open(m_keyring);
    QVERIFY(!opened.ok());
    QCOMPARE(opened.error().code, QStringLiteral("vault.tag_mismatch"));
}

void EnvelopeTest::tamperedCiphertextAndTag_data()
{
    QTest::addColumn<int>("offsetFromEnd");
    QTest::newRow("first ciphertext byte") << -1;
    QTest::newRow("last ciphertext byte") << 17;
    QTest::newRow("first tag byte") << 16;
    QTest::newRow("last tag byte") << 1;
}

void EnvelopeTest::tamperedCiphertextAndTag()
{
    QFETCH(int, offsetFromEnd);
    QJsonObject object = sealedObject();
    QByteArray sealed =
        QByteArray::fromBase64(object.value(QStringLiteral("ciphertext")).toString().toLatin1());
    const qsizetype index = offsetFromEnd < 0 ? 0 : sealed.size() - offsetFromEnd;
    sealed[index] = char(sealed[index] ^ 0x20);
    object.insert(QStringLiteral("ciphertext"), QString::fromLatin1(sealed.toBase64()));
    const Result<Envelope> parsed = Envelope::parse(reserialize(object));
    QVERIFY(parsed.ok());
    const Result<SecretBytes> opened = parsed->open(m_keyring);
    QVERIFY(!opened.ok());
    QCOMPARE(opened.error().code, QStringLiteral("vault.tag_mismatch"));
}

void EnvelopeTest::truncatedEnvelope()
{
    const QByteArray bytes = sealedBytes();
    QVERIFY(Envelope::parse(bytes).ok());
    for (qsizetype length : {qsizetype(0), qsizetype(1), qsizetype(20), bytes.size() / 2,
                             bytes.size() - 2, bytes.size() - 1}) {
        const Result<Envelope> parsed = Envelope::parse(bytes.left(length));
        QVERIFY2(!parsed.ok(), QByteArray::number(length).constData());
        QCOMPARE(parsed.error().code, QStringLiteral("vault.corrupt_record"));
    }
}

void EnvelopeTest::shortTagRefused_data()
{
    QTest::addColumn<int>("bytes");
    QTest::newRow("no bytes") << 0;
    QTest::newRow("12-byte tag") << 12;
    QTest::newRow("15 bytes") << 15;
}

void EnvelopeTest::shortTagRefused()
{
    QFETCH(int, bytes);
    m_plaintext.clear();
    QJsonObject object = sealedObject();
    const QByteArray tag =
        QByteArray::fromBase64(object.value(QStringLiteral("ciphertext")).toString().toLatin1());
    QCOMPARE(tag.size(), 16);
    object.insert(QStringLiteral("ciphertext"), QString::fromLatin1(tag.left(bytes).toBase64()));
    const Result<Envelope> parsed = Envelope::parse(reserialize(object));
    QCOMPARE(errorCode(parsed), QStringLiteral("vault.corrupt_record"));
}

void EnvelopeTest::oversizedEnvelopeRefusedBeforeParsing()
{
    // Invalid bytes throughout: only a check made before parsing can call this too large.
    const QByteArray oversized(Envelope::kMaxEnvelopeBytes + 1, '\xFF');
    QCOMPARE(errorCode(Envelope::parse(oversized)), QStringLiteral("vault.too_large"));
    const QByteArray atBound(Envelope::kMaxEnvelopeBytes, '\xFF');
    QCOMPARE(errorCode(Envelope::parse(atBound)), QStringLiteral("vault.corrupt_record"));
}

void EnvelopeTest::oversizedCiphertextRefused()
{
    QJsonObject object = sealedObject();
    object.insert(QStringLiteral("ciphertext"),
                  QString(Envelope::kMaxCiphertextBase64Chars + 4, QLatin1Char('A')));
    const QByteArray bytes = reserialize(object);
    QVERIFY(bytes.size() <= Envelope::kMaxEnvelopeBytes);
    QCOMPARE(errorCode(Envelope::parse(bytes)), QStringLiteral("vault.too_large"));
}

void EnvelopeTest::plaintextBound()
{
    const Result<Envelope> tooLarge = Envelope::seal(
        m_metadata, SecretBytes(QByteArray(Envelope::kMaxPlaintextBytes + 1, 'x')), m_keyring);
    QCOMPARE(errorCode(tooLarge), QStringLiteral("vault.too_large"));
    const Result<Envelope> atBound = Envelope::seal(
        m_metadata, SecretBytes(QByteArray(Envelope::kMaxPlaintextBytes, 'x')), m_keyring);
    QVERIFY(atBound.ok());
    const Result<QByteArray> bytes = atBound->serialize();
    QVERIFY(bytes.ok());
    QVERIFY(bytes->size() <= Envelope::kMaxEnvelopeBytes);
    const Result<Envelope> parsed = Envelope::parse(*bytes);
    QVERIFY(parsed.ok());
    const Result<SecretBytes> opened = parsed->open(m_keyring);
    QVERIFY(opened.ok());
    QCOMPARE(opened->size(), Envelope::kMaxPlaintextBytes);
}

void EnvelopeTest::duplicateKeysRefused_data()
{
    QTest::addColumn<QByteArray>("from");
    QTest::addColumn<QByteArray>("to");
    QTest::newRow("top-level format")
        << QByteArray("\"format\":1,") << QByteArray("\"format\":1,\"format\":1,");
    QTest::newRow("top-level nonce") << QByteArray(",\"nonce\":\"")
                                     << QByteArray(",\"nonce\":\"AAAAAAAAAAAAAAAA\",\"nonce\":\"");
    QTest::newRow("metadata tenant")
        << QByteArray("\"tenant\":\"tenant-a\"")
        << QByteArray("\"tenant\":\"tenant-a\",\"tenant\":\"tenant-b\"");
    QTest::newRow("metadata fence escaped")
        << QByteArray("\"revocation_fence\":0,")
        << QByteArray("\"revocation_fence\":0,\"revocation_f\\u0065nce\":0,");
}

void EnvelopeTest::duplicateKeysRefused()
{
    QFETCH(QByteArray, from);
    QFETCH(QByteArray, to);
    QByteArray bytes = sealedBytes();
    QVERIFY(bytes.contains(from));
    bytes.replace(from, to);
    QCOMPARE(errorCode(Envelope::parse(bytes)), QStringLiteral("vault.corrupt_record"));
}

void EnvelopeTest::unknownFormat_data()
{
    QTest::addColumn<QJsonValue>("format");
    QTest::addColumn<QString>("code");
    QTest::newRow("2") << QJsonValue(qint64(2)) << "vault.unknown_format";
    QTest::newRow("0") << QJsonValue(qint64(0)) << "vault.unknown_format";
    QTest::newRow("-1") << QJsonValue(qint64(-1)) << "vault.unknown_format";
    QTest::newRow("string") << QJsonValue(QStringLiteral("1")) << "vault.corrupt_record";
    QTest::newRow("null") << QJsonValue(QJsonValue::Null) << "vault.corrupt_record";
    QTest::newRow("missing") << QJsonValue(QJsonValue::Undefined) << "vault.corrupt_record";
}

void EnvelopeTest::unknownFormat()
{
    QFETCH(QJsonValue, format);
    QFETCH(QString, code);
    QJsonObject object = sealedObject();
    if (format.isUndefined())
        object.remove(QStringLiteral("format"));
    else
        object.insert(QStringLiteral("format"), format);
    QCOMPARE(errorCode(Envelope::parse(reserialize(object))), code);
}

void EnvelopeTest::shapeRefused_data()
{
    QTest::addColumn<QString>("member"); // "" = top level
    QTest::addColumn<QString>("key");
    QTest::addColumn<QJsonValue>("value"); // Undefined = remove
    const QJsonValue remove(QJsonValue::Undefined);
    QTest::newRow("extra top-level") << ""
                                     << "extra" << QJsonValue(1);
    QTest::newRow("no nonce") << ""
                              << "nonce" << remove;
    QTest::newRow("no ciphertext") << ""
                                   << "ciphertext" << remove;
    QTest::newRow("no metadata") << ""
                                 << "metadata" << remove;
    QTest::newRow("metadata array") << ""
                                    << "metadata" << QJsonValue(QJsonArray());
    QTest::newRow("nonce 11 bytes") << ""
                                    << "nonce" << QJsonValue(QStringLiteral("AAAAAAAAAAAAAAA="));
    QTest::newRow("nonce 13 bytes")
        << ""
        << "nonce" << QJsonValue(QStringLiteral("AAAAAAAAAAAAAAAAAA=="));
    QTest::newRow("nonce unpadded") << ""
                                    << "nonce" << QJsonValue(QStringLiteral("AAAAAAAAAAAAAAA"));
    QTest::newRow("nonce url alphabet")
        << ""
        << "nonce" << QJsonValue(QStringLiteral("AAAAAAAAAAAAAA-_"));
    QTest::newRow("nonce number") << ""
                                  << "nonce" << QJsonValue(12);
    QTest::newRow("ciphertext bad base64") << ""
                                           << "ciphertext" << QJsonValue(QStringLiteral("!!!!"));
    QTest::newRow("extra metadata") << "metadata"
                                    << "expires" << QJsonValue(1);
    QTest::newRow("no tenant") << "metadata"
                               << "tenant" << remove;
    QTest::newRow("no fence") << "metadata"
                              << "revocation_fence" << remove;
    QTest::newRow("empty tenant") << "metadata"
                                  << "tenant" << QJsonValue(QString());
    QTest::newRow("control char tenant") << "metadata"
                                         << "tenant" << QJsonValue(QStringLiteral("a\nb"));
    QTest::newRow("long principal") << "metadata"
                                    << "principal" << QJsonValue(QString(257, QLatin1Char('p')));
    QTest::newRow("upper-case uuid")
        << "metadata"
        << "profile_id" << QJsonValue(QStringLiteral("0F8FAD5B-D9CB-469F-A165-70867728950E"));
    QTest::newRow("braced uuid") << "metadata"
                                 << "profile_id"
                                 << QJsonValue(
                                        QStringLiteral("{0f8fad5b-d9cb-469f-a165-70867728950e}"));
    QTest::newRow("reference with space")
        << "metadata"
        << "provider_reference" << QJsonValue(QStringLiteral("ref 1"));
    QTest::newRow("reference too long")
        << "metadata"
        << "provider_reference" << QJsonValue(QString(129, QLatin1Char('r')));
    QTest::newRow("origins unsorted")
        << "metadata"
        << "allowed_origins"
        << QJsonValue(QJsonArray{QStringLiteral("https://shop.de"),
                                 QStringLiteral("https://accounts.shop.de")});
    QTest::newRow("origins duplicated")
        << "metadata"
        << "allowed_origins"
        << QJsonValue(
               QJsonArray{QStringLiteral("https://shop.de"), QStringLiteral("https://shop.de")});
    QTest::newRow("origins empty") << "metadata"
                                   << "allowed_origins" << QJsonValue(QJsonArray());
    QTest::newRow("origin http") << "metadata"
                                 << "allowed_origins"
                                 << QJsonValue(QJsonArray{QStringLiteral("http://shop.de")});
    QTest::newRow("origin with path")
        << "metadata"
        << "allowed_origins" << QJsonValue(QJsonArray{QStringLiteral("https://shop.de/")});
    QTest::newRow("origin upper case")
        << "metadata"
        << "allowed_origins" << QJsonValue(QJsonArray{QStringLiteral("https://Shop.de")});
    QTest::newRow("origin port too large")
        << "metadata"
        << "allowed_origins" << QJsonValue(QJsonArray{QStringLiteral("https://shop.de:65536")});
    QTest::newRow("origin port leading zero")
        << "metadata"
        << "allowed_origins" << QJsonValue(QJsonArray{QStringLiteral("https://shop.de:0443")});
    QTest::newRow("origin not a string") << "metadata"
                                         << "allowed_origins" << QJsonValue(QJsonArray{1});
    QTest::newRow("negative fence") << "metadata"
                                    << "revocation_fence" << QJsonValue(qint64(-1));
    QTest::newRow("string fence") << "metadata"
                                  << "revocation_fence" << QJsonValue(QStringLiteral("0"));
    QTest::newRow("key version slash") << "metadata"
                                       << "key_version" << QJsonValue(QStringLiteral("../k1"));
    QTest::newRow("empty key version") << "metadata"
                                       << "key_version" << QJsonValue(QString());
}

void EnvelopeTest::shapeRefused()
{
    QFETCH(QString, member);
    QFETCH(QString, key);
    QFETCH(QJsonValue, value);
    QJsonObject object = sealedObject();
    QJsonObject target = member.isEmpty() ? object : object.value(member).toObject();
    if (value.isUndefined())
        target.remove(key);
    else
        target.insert(key, value);
    if (member.isEmpty())
        object = target;
    else
        object.insert(member, target);
    QCOMPARE(errorCode(Envelope::parse(reserialize(object))),
             QStringLiteral("vault.corrupt_record"));
}

void EnvelopeTest::wrongKey()
{
    const Result<Envelope> parsed = Envelope::parse(sealedBytes());
    QVERIFY(parsed.ok());

    MemoryKeyring other;
    other.setKey(QStringLiteral("k1"), MemoryKeyring::keyBytes('z'));
    Result<SecretBytes> opened = parsed->open(other);
    QVERIFY(!opened.ok());
    QCOMPARE(opened.error().code, QStringLiteral("vault.tag_mismatch"));

    MemoryKeyring missing;
    missing.setKey(QStringLiteral("k2"), MemoryKeyring::keyBytes('a'));
    opened = parsed->open(missing);
    QVERIFY(!opened.ok());
    QCOMPARE(opened.error().code, QStringLiteral("vault.key_unavailable"));

    MemoryKeyring shortKey;
    shortKey.setKey(QStringLiteral("k1"), MemoryKeyring::keyBytes('a').left(16));
    opened = parsed->open(shortKey);
    QVERIFY(!opened.ok());
    QCOMPARE(opened.error().code, QStringLiteral("vault.key_unavailable"));

    // Sealing resolves the version named in the metadata; there is no fallback key.
    m_metadata.keyVersion = QStringLiteral("k9");
    QCOMPARE(errorCode(Envelope::seal(m_metadata, SecretBytes(m_plaintext), m_keyring)),
             QStringLiteral("vault.key_unavailable"));
}

void EnvelopeTest::sealRefusesInvalidMetadata()
{
    m_metadata.identity.allowedOrigins = {QStringLiteral("https://shop.de"),
                                          QStringLiteral("https://accounts.shop.de")};
    QCOMPARE(errorCode(Envelope::seal(m_metadata, SecretBytes(m_plaintext), m_keyring)),
             QStringLiteral("vault.invalid_metadata"));
    m_metadata = sampleMetadata();
    m_metadata.identity.tenant = QString(QChar(0xD800));
    QCOMPARE(errorCode(Envelope::seal(m_metadata, SecretBytes(m_plaintext), m_keyring)),
             QStringLiteral("vault.invalid_metadata"));
}

void EnvelopeTest::boundaryIdentityAccepted()
{
    m_metadata.identity.tenant = QString(ProfileIdentity::kMaxScopeChars, QChar(0x00E9));
    m_metadata.identity.principal = QString::fromUtf8("\xF0\x9F\x98\x80 user \"quoted\"");
    m_metadata.identity.providerReference = QString(ProfileIdentity::kMaxReferenceChars, u'~');
    m_metadata.identity.allowedOrigins = {QStringLiteral("https://a-b.shop.de:8443"),
                                          QStringLiteral("https://shop.de"),
                                          QStringLiteral("https://shop.de:65535")};
    m_metadata.keyVersion = QString(ProfileMetadata::kMaxKeyVersionChars, u'k');
    m_metadata.revocationFence = StrictJson::kMaxSafeInteger;
    m_keyring.setKey(m_metadata.keyVersion, MemoryKeyring::keyBytes('c'));
    const Result<Envelope> parsed = Envelope::parse(sealedBytes());
    QVERIFY(parsed.ok());
    QCOMPARE(parsed->metadata, m_metadata);
    QCOMPARE(parsed->open(m_keyring)->bytes(), m_plaintext);
}

QTEST_GUILESS_MAIN(EnvelopeTest)
#include "tst_envelope.moc"
