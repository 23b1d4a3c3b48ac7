// libFuzzer target for the profile-store envelope: untrusted bytes from the material volume.
// Beyond "no crash, no sanitizer report" it checks invariants and traps when one breaks:
//  - an accepted envelope re-serializes canonically and parses back to the same envelope;
//  - opening it with a fixed keyring either fails with a vault.* code or yields plaintext
//    only for the fixed key (the seed corpus holds envelopes sealed under it);
//  - strict JSON accepted under small limits canonicalizes, and the canonical form is a
//    fixed point (parse(canonical) canonicalizes to the same bytes).

#include "ports/Keyring.h"
#include "vault/Envelope.h"
#include "json/CanonicalJson.h"
#include "json/StrictJson.h"

#include <cstddef>
#include <cstdint>

namespace {

using namespace veetbot;

// The key the seed envelopes were sealed with: 32 bytes 0x00..0x1f under version "k1".
class FixedKeyring final : public Keyring
{
public:
    Result<QString> currentVersion() const override { return QStringLiteral("k1"); }
    Result<SecretBytes> key(const QString &version) const override
    {
        if (version != QLatin1String("k1"))
            return Error{QStringLiteral("fuzz.unknown_version"), QStringLiteral("unknown")};
        QByteArray bytes(32, Qt::Uninitialized);
        for (int i = 0; i < bytes.size(); ++i)
            bytes[i] = char(i);
        return SecretBytes(bytes);
    }
    QStringList versions() const override { return {QStringLiteral("k1")}; }
};

void require(bool condition)
{
    if (!condition)
        __builtin_trap();
}

void fuzzEnvelope(QByteArrayView input)
{
    const Result<Envelope> envelope = Envelope::parse(input);
    if (!envelope) {
        require(envelope.error().code.startsWith(QLatin1String("vault.")));
        return;
    }
    require(envelope->nonce.size() == 12);
    require(envelope->ciphertextAndTag.size() >= 16);
    require(envelope->metadata.isValid());

    const Result<QByteArray> bytes = envelope->serialize();
    require(bytes.ok());
    const Result<Envelope> again = Envelope::parse(*bytes);
    require(again.ok());
    require(again->metadata == envelope->metadata);
    require(again->nonce == envelope->nonce);
    require(again->ciphertextAndTag == envelope->ciphertextAndTag);
    const Result<QByteArray> twice = again->serialize();
    require(twice.ok() && *twice == *bytes);

    static const FixedKeyring keyring;
    const Result<SecretBytes> plaintext = envelope->open(keyring);
    if (plaintext)
        require(plaintext->size() == envelope->ciphertextAndTag.size() - 16);
    else
        require(plaintext.error().code.startsWith(QLatin1String("vault.")));
}

void fuzzStrictJson(QByteArrayView input)
{
    StrictJson::Limits limits;
    limits.maxBytes = 64 * 1024;
    limits.maxDepth = 32;
    limits.maxMembers = 1024;
    StrictJson::Failure failure = StrictJson::Failure::None;
    const std::optional<QJsonValue> value = StrictJson::parse(input, limits, &failure);
    if (!value) {
        require(failure != StrictJson::Failure::None);
        return;
    }
    require(failure == StrictJson::Failure::None);
    const std::optional<QByteArray> canonical = CanonicalJson::serialize(*value);
    require(canonical.has_value());
    StrictJson::Limits relaxed = limits;
    relaxed.maxBytes = 4 * canonical->size() + 16; // escapes can grow the text
    const std::optional<QJsonValue> reparsed = StrictJson::parse(*canonical, relaxed);
    require(reparsed.has_value());
    const std::optional<QByteArray> recanonical = CanonicalJson::serialize(*reparsed);
    require(recanonical.has_value() && *recanonical == *canonical);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArrayView input(reinterpret_cast<const char *>(data), qsizetype(size));
    fuzzEnvelope(input);
    fuzzStrictJson(input);
    return 0;
}
