#include "Envelope.h"

#include "ports/Keyring.h"
#include "vault/VaultError.h"
#include "json/CanonicalJson.h"
#include "json/StrictJson.h"

#include <QJsonArray>
#include <QSet>

#include <limits>

namespace veetbot {

namespace {

const QString kProfileIdKey = QStringLiteral("profile_id");
const QString kTenantKey = QStringLiteral("tenant");
const QString kPrincipalKey = QStringLiteral("principal");
const QString kReferenceKey = QStringLiteral("provider_reference");
const QString kOriginsKey = QStringLiteral("allowed_origins");
const QString kFormatVersionKey = QStringLiteral("format_version");
const QString kKeyVersionKey = QStringLiteral("key_version");
const QString kFenceKey = QStringLiteral("revocation_fence");

bool isLowerHex(QChar c)
{
    return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f');
}

bool isCanonicalUuid(const QString &text)
{
    if (text.size() != 36)
        return false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? text.at(i) != u'-' : !isLowerHex(text.at(i)))
            return false;
    }
    return true;
}

bool isScopeText(const QString &text)
{
    if (text.isEmpty() || text.size() > ProfileIdentity::kMaxScopeChars ||
        !QStringView(text).isValidUtf16())
        return false;
    for (QChar c : text) {
        const char16_t u = c.unicode();
        if (u < 0x20 || (u >= 0x7F && u <= 0x9F))
            return false;
    }
    return true;
}

bool isReference(const QString &text)
{
    if (text.isEmpty() || text.size() > ProfileIdentity::kMaxReferenceChars)
        return false;
    for (QChar c : text) {
        if (c.unicode() < 0x21 || c.unicode() > 0x7E)
            return false;
    }
    return true;
}

// "https://" + lower-case ASCII host + optional ":port"; the normalized form the
// orchestration's Origin type produces. Deliberately a shape check only: a public-suffix
// list update must never make the store refuse to start.
bool isOriginText(const QString &text)
{
    static const QString scheme = QStringLiteral("https://");
    if (text.size() > ProfileIdentity::kMaxOriginChars || !text.startsWith(scheme))
        return false;
    qsizetype i = scheme.size();
    const qsizetype hostStart = i;
    while (i < text.size()) {
        const QChar c = text.at(i);
        if ((c >= u'a' && c <= u'z') || (c >= u'0' && c <= u'9') || c == u'.' || c == u'-')
            ++i;
        else
            break;
    }
    if (i == hostStart || text.at(hostStart) == u'.' || text.at(i - 1) == u'.')
        return false;
    if (i == text.size())
        return true;
    if (text.at(i) != u':')
        return false;
    ++i;
    const qsizetype portStart = i;
    int port = 0;
    while (i < text.size() && text.at(i) >= u'0' && text.at(i) <= u'9' && i - portStart < 5) {
        port = port * 10 + (text.at(i).unicode() - u'0');
        ++i;
    }
    return i == text.size() && i != portStart && text.at(portStart) != u'0' && port <= 65535;
}

bool isKeyVersion(const QString &text)
{
    if (text.isEmpty() || text.size() > ProfileMetadata::kMaxKeyVersionChars)
        return false;
    for (QChar c : text) {
        if (!((c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9') ||
              c == u'.' || c == u'_' || c == u'-'))
            return false;
    }
    return true;
}

std::optional<qint64> integerOf(const QJsonValue &value)
{
    if (!value.isDouble())
        return std::nullopt;
    constexpr qint64 notIntegral = std::numeric_limits<qint64>::min();
    const qint64 integer = value.toInteger(notIntegral);
    if (integer == notIntegral || integer > StrictJson::kMaxSafeInteger ||
        integer < -StrictJson::kMaxSafeInteger)
        return std::nullopt;
    return integer;
}

bool hasExactlyKeys(const QJsonObject &object, std::initializer_list<const QString *> keys)
{
    if (object.size() != qsizetype(keys.size()))
        return false;
    for (const QString *key : keys) {
        if (!object.contains(*key))
            return false;
    }
    return true;
}

// Standard alphabet with "=" padding in canonical form only: length a multiple of four, at
// most two trailing "=", and zero bits in the last quantum's unused positions (so exactly
// one text encodes each byte string).
std::optional<QByteArray> strictBase64(const StrictJson::Value *value)
{
    if (!value || !value->isString())
        return std::nullopt;
    const QByteArray &text = value->string;
    if (text.size() % 4 != 0)
        return std::nullopt;
    // Qt refuses characters outside the alphabet and misplaced padding...
    QByteArray::FromBase64Result decoded = QByteArray::fromBase64Encoding(
        text, QByteArray::Base64Encoding | QByteArray::AbortOnBase64DecodingErrors);
    if (decoded.decodingStatus != QByteArray::Base64DecodingStatus::Ok)
        return std::nullopt;
    // ...but tolerates non-zero bits in the unused part of the last quantum.
    const qsizetype padding = text.endsWith("==") ? 2 : text.endsWith('=') ? 1 : 0;
    if (padding > 0) {
        static const QByteArray alphabet =
            QByteArrayLiteral("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
        const qsizetype sextet = alphabet.indexOf(text.at(text.size() - padding - 1));
        if (sextet < 0 || (sextet & (padding == 2 ? 0x0F : 0x03)) != 0)
            return std::nullopt;
    }
    if (decoded.decoded.size() != text.size() / 4 * 3 - padding)
        return std::nullopt;
    return decoded.decoded;
}

Result<SecretBytes> keyFor(const Keyring &keyring, const QString &version)
{
    Result<SecretBytes> key = keyring.key(version);
    if (!key || key->size() != AesGcm::kKeyBytes)
        return vaultError(VaultFailure::KeyUnavailable);
    return key;
}

} // namespace

bool ProfileIdentity::isValid() const
{
    if (!isCanonicalUuid(profileId) || !isScopeText(tenant) || !isScopeText(principal) ||
        !isReference(providerReference))
        return false;
    if (allowedOrigins.isEmpty() || allowedOrigins.size() > kMaxOrigins)
        return false;
    for (qsizetype i = 0; i < allowedOrigins.size(); ++i) {
        if (!isOriginText(allowedOrigins.at(i)))
            return false;
        // ASCII only, so code-unit order is byte order.
        if (i > 0 && !CanonicalJson::lessByUtf16(allowedOrigins.at(i - 1), allowedOrigins.at(i)))
            return false;
    }
    return true;
}

bool ProfileMetadata::isValid() const
{
    return identity.isValid() && formatVersion == kFormatVersion && isKeyVersion(keyVersion) &&
           revocationFence >= 0 && revocationFence <= StrictJson::kMaxSafeInteger;
}

QJsonObject ProfileMetadata::toJson() const
{
    QJsonObject object;
    object.insert(kProfileIdKey, identity.profileId);
    object.insert(kTenantKey, identity.tenant);
    object.insert(kPrincipalKey, identity.principal);
    object.insert(kReferenceKey, identity.providerReference);
    object.insert(kOriginsKey, QJsonArray::fromStringList(identity.allowedOrigins));
    object.insert(kFormatVersionKey, qint64(formatVersion));
    object.insert(kKeyVersionKey, keyVersion);
    object.insert(kFenceKey, revocationFence);
    return object;
}

Result<ProfileMetadata> ProfileMetadata::fromJson(const QJsonValue &value)
{
    if (!value.isObject())
        return vaultError(VaultFailure::CorruptRecord);
    const QJsonObject object = value.toObject();
    if (!hasExactlyKeys(object, {&kProfileIdKey, &kTenantKey, &kPrincipalKey, &kReferenceKey,
                                 &kOriginsKey, &kFormatVersionKey, &kKeyVersionKey, &kFenceKey}))
        return vaultError(VaultFailure::CorruptRecord);
    const std::optional<qint64> format = integerOf(object.value(kFormatVersionKey));
    if (!format)
        return vaultError(VaultFailure::CorruptRecord);
    if (*format != kFormatVersion)
        return vaultError(VaultFailure::UnknownFormat);

    ProfileMetadata metadata;
    for (const QString *key :
         {&kProfileIdKey, &kTenantKey, &kPrincipalKey, &kReferenceKey, &kKeyVersionKey}) {
        if (!object.value(*key).isString())
            return vaultError(VaultFailure::CorruptRecord);
    }
    metadata.identity.profileId = object.value(kProfileIdKey).toString();
    metadata.identity.tenant = object.value(kTenantKey).toString();
    metadata.identity.principal = object.value(kPrincipalKey).toString();
    metadata.identity.providerReference = object.value(kReferenceKey).toString();
    metadata.keyVersion = object.value(kKeyVersionKey).toString();
    const QJsonValue origins = object.value(kOriginsKey);
    if (!origins.isArray())
        return vaultError(VaultFailure::CorruptRecord);
    for (const QJsonValue &origin : origins.toArray()) {
        if (!origin.isString())
            return vaultError(VaultFailure::CorruptRecord);
        metadata.identity.allowedOrigins.append(origin.toString());
    }
    const std::optional<qint64> fence = integerOf(object.value(kFenceKey));
    if (!fence)
        return vaultError(VaultFailure::CorruptRecord);
    metadata.formatVersion = int(*format);
    metadata.revocationFence = *fence;
    if (!metadata.isValid())
        return vaultError(VaultFailure::CorruptRecord);
    return metadata;
}

Result<QByteArray> ProfileMetadata::additionalData() const
{
    std::optional<QByteArray> canonical = CanonicalJson::serialize(toJson());
    if (!canonical)
        return vaultError(VaultFailure::CorruptRecord);
    return std::move(*canonical);
}

Result<Envelope> Envelope::seal(const ProfileMetadata &metadata, const SecretBytes &plaintext,
                                const Keyring &keyring)
{
    if (!metadata.isValid())
        return vaultError(VaultFailure::InvalidMetadata);
    if (plaintext.size() > kMaxPlaintextBytes)
        return vaultError(VaultFailure::TooLarge);
    Result<QByteArray> aad = metadata.additionalData();
    if (!aad)
        return vaultError(VaultFailure::InvalidMetadata);
    Result<SecretBytes> key = keyFor(keyring, metadata.keyVersion);
    if (!key)
        return key.error();
    Result<AesGcm::Sealed> sealed = AesGcm::seal(*key, *aad, plaintext.bytes());
    if (!sealed)
        return sealed.error();
    Envelope envelope;
    envelope.metadata = metadata;
    envelope.nonce = sealed->nonce;
    envelope.ciphertextAndTag = sealed->ciphertextAndTag;
    return envelope;
}

Result<Envelope> Envelope::parse(QByteArrayView bytes)
{
    // Bounded before a single byte is interpreted.
    if (bytes.size() > kMaxEnvelopeBytes)
        return vaultError(VaultFailure::TooLarge);
    StrictJson::Limits limits;
    limits.maxBytes = kMaxEnvelopeBytes;
    limits.maxDepth = 3; // envelope -> metadata -> allowed_origins
    limits.maxMembers = ProfileIdentity::kMaxOrigins;
    StrictJson::Failure failure = StrictJson::Failure::None;
    const std::optional<StrictJson::Value> document =
        StrictJson::parseDocument(bytes, limits, &failure);
    if (!document)
        return vaultError(failure == StrictJson::Failure::TooLarge ? VaultFailure::TooLarge
                                                                   : VaultFailure::CorruptRecord);
    if (!document->isObject())
        return vaultError(VaultFailure::CorruptRecord);
    // The format decides how the rest is read, so it is checked first.
    const StrictJson::Value *format = document->member("format");
    if (!format || format->type != StrictJson::Value::Type::Integer)
        return vaultError(VaultFailure::CorruptRecord);
    if (format->integer != kFormat)
        return vaultError(VaultFailure::UnknownFormat);
    const StrictJson::Value *metadataValue = document->member("metadata");
    const StrictJson::Value *nonceValue = document->member("nonce");
    const StrictJson::Value *ciphertextValue = document->member("ciphertext");
    if (document->members.size() != 4 || !metadataValue || !nonceValue || !ciphertextValue)
        return vaultError(VaultFailure::CorruptRecord);

    Result<ProfileMetadata> metadata = ProfileMetadata::fromJson(metadataValue->toJsonValue());
    if (!metadata)
        return metadata.error();

    const std::optional<QByteArray> nonce = strictBase64(nonceValue);
    if (!nonce || nonce->size() != AesGcm::kNonceBytes)
        return vaultError(VaultFailure::CorruptRecord);

    if (ciphertextValue->isString() && ciphertextValue->string.size() > kMaxCiphertextBase64Chars)
        return vaultError(VaultFailure::TooLarge);
    const std::optional<QByteArray> ciphertext = strictBase64(ciphertextValue);
    if (!ciphertext || ciphertext->size() < AesGcm::kTagBytes)
        return vaultError(VaultFailure::CorruptRecord); // includes a short tag
    if (ciphertext->size() > kMaxCiphertextBytes)
        return vaultError(VaultFailure::TooLarge);

    Envelope envelope;
    envelope.metadata = std::move(metadata).value();
    envelope.nonce = *nonce;
    envelope.ciphertextAndTag = *ciphertext;
    return envelope;
}

Result<QByteArray> Envelope::serialize() const
{
    Result<QByteArray> metadataJson = metadata.additionalData();
    if (!metadataJson)
        return metadataJson.error();
    // Members in RFC 8785 order; base64 needs no escaping, so this is the canonical form.
    QByteArray out;
    const QByteArray ciphertextText = ciphertextAndTag.toBase64();
    out.reserve(ciphertextText.size() + metadataJson->size() + 96);
    out.append("{\"ciphertext\":\"");
    out.append(ciphertextText);
    out.append("\",\"format\":");
    out.append(QByteArray::number(kFormat));
    out.append(",\"metadata\":");
    out.append(*metadataJson);
    out.append(",\"nonce\":\"");
    out.append(nonce.toBase64());
    out.append("\"}");
    return out;
}

Result<SecretBytes> Envelope::open(const Keyring &keyring) const
{
    return openAs(metadata, keyring);
}

Result<SecretBytes> Envelope::openAs(const ProfileMetadata &expected, const Keyring &keyring) const
{
    if (ciphertextAndTag.size() > kMaxCiphertextBytes)
        return vaultError(VaultFailure::TooLarge);
    Result<QByteArray> aad = expected.additionalData();
    if (!aad)
        return vaultError(VaultFailure::TagMismatch);
    Result<SecretBytes> key = keyFor(keyring, expected.keyVersion);
    if (!key)
        return key.error();
    return AesGcm::open(*key, nonce, *aad, ciphertextAndTag);
}

} // namespace veetbot
