#include "AesGcm.h"

#include "vault/VaultError.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cstring>

namespace veetbot {

namespace {

// Owns one EVP_CIPHER_CTX; freeing it also cleanses the expanded key schedule.
class CipherContext
{
public:
    CipherContext() : m_ctx(EVP_CIPHER_CTX_new()) {}
    ~CipherContext() { EVP_CIPHER_CTX_free(m_ctx); }
    CipherContext(const CipherContext &) = delete;
    CipherContext &operator=(const CipherContext &) = delete;

    EVP_CIPHER_CTX *get() const { return m_ctx; }
    explicit operator bool() const { return m_ctx != nullptr; }

private:
    EVP_CIPHER_CTX *m_ctx;
};

// Cleanses a plaintext buffer unless it was handed over after verification.
class PendingPlaintextGuard
{
public:
    explicit PendingPlaintextGuard(QByteArray &buffer) : m_buffer(&buffer) {}
    ~PendingPlaintextGuard()
    {
        if (m_buffer && !m_buffer->isEmpty())
            OPENSSL_cleanse(m_buffer->data(), size_t(m_buffer->size()));
    }
    PendingPlaintextGuard(const PendingPlaintextGuard &) = delete;
    PendingPlaintextGuard &operator=(const PendingPlaintextGuard &) = delete;
    void release() { m_buffer = nullptr; }

private:
    QByteArray *m_buffer;
};

const unsigned char *bytesOf(QByteArrayView view)
{
    return reinterpret_cast<const unsigned char *>(view.data());
}

Result<QByteArray> sealWithNonce(const SecretBytes &key, QByteArrayView nonce, QByteArrayView aad,
                                 QByteArrayView plaintext)
{
    if (key.size() != AesGcm::kKeyBytes)
        return vaultError(VaultFailure::KeyUnavailable);
    if (nonce.size() != AesGcm::kNonceBytes)
        return vaultError(VaultFailure::CryptoFailure);
    if (plaintext.size() > AesGcm::kMaxInputBytes || aad.size() > AesGcm::kMaxInputBytes)
        return vaultError(VaultFailure::TooLarge);

    CipherContext ctx;
    if (!ctx)
        return vaultError(VaultFailure::CryptoFailure);
    if (EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, int(AesGcm::kNonceBytes), nullptr) !=
            1 ||
        EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, key.data(), bytesOf(nonce)) != 1)
        return vaultError(VaultFailure::CryptoFailure);

    int length = 0;
    if (!aad.isEmpty() &&
        EVP_EncryptUpdate(ctx.get(), nullptr, &length, bytesOf(aad), int(aad.size())) != 1)
        return vaultError(VaultFailure::CryptoFailure);

    QByteArray out(plaintext.size() + AesGcm::kTagBytes, Qt::Uninitialized);
    auto *outBytes = reinterpret_cast<unsigned char *>(out.data());
    int written = 0;
    if (!plaintext.isEmpty()) {
        if (EVP_EncryptUpdate(ctx.get(), outBytes, &length, bytesOf(plaintext),
                              int(plaintext.size())) != 1)
            return vaultError(VaultFailure::CryptoFailure);
        written = length;
    }
    if (EVP_EncryptFinal_ex(ctx.get(), outBytes + written, &length) != 1)
        return vaultError(VaultFailure::CryptoFailure);
    written += length;
    if (written != plaintext.size())
        return vaultError(VaultFailure::CryptoFailure);
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, int(AesGcm::kTagBytes),
                            outBytes + written) != 1)
        return vaultError(VaultFailure::CryptoFailure);
    return out;
}

} // namespace

Result<AesGcm::Sealed> AesGcm::seal(const SecretBytes &key, QByteArrayView aad,
                                    QByteArrayView plaintext)
{
    QByteArray nonce(kNonceBytes, Qt::Uninitialized);
    if (RAND_bytes(reinterpret_cast<unsigned char *>(nonce.data()), int(kNonceBytes)) != 1)
        return vaultError(VaultFailure::CryptoFailure);
    Result<QByteArray> sealed = sealWithNonce(key, nonce, aad, plaintext);
    if (!sealed)
        return sealed.error();
    return Sealed{nonce, std::move(sealed).value()};
}

Result<QByteArray> AesGcm::sealWithNonceForTesting(const SecretBytes &key, QByteArrayView nonce,
                                                   QByteArrayView aad, QByteArrayView plaintext)
{
    return sealWithNonce(key, nonce, aad, plaintext);
}

Result<SecretBytes> AesGcm::open(const SecretBytes &key, QByteArrayView nonce, QByteArrayView aad,
                                 QByteArrayView ciphertextAndTag)
{
    if (key.size() != kKeyBytes)
        return vaultError(VaultFailure::KeyUnavailable);
    if (nonce.size() != kNonceBytes || ciphertextAndTag.size() < kTagBytes)
        return vaultError(VaultFailure::CorruptRecord);
    if (ciphertextAndTag.size() - kTagBytes > kMaxInputBytes || aad.size() > kMaxInputBytes)
        return vaultError(VaultFailure::TooLarge);

    const qsizetype ciphertextSize = ciphertextAndTag.size() - kTagBytes;
    const QByteArrayView ciphertext = ciphertextAndTag.first(ciphertextSize);
    // EVP_CTRL_GCM_SET_TAG takes a non-const pointer; hand it a private copy.
    unsigned char tag[kTagBytes];
    memcpy(tag, ciphertextAndTag.data() + ciphertextSize, size_t(kTagBytes));

    CipherContext ctx;
    if (!ctx)
        return vaultError(VaultFailure::CryptoFailure);
    if (EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, int(kNonceBytes), nullptr) != 1 ||
        EVP_DecryptInit_ex(ctx.get(), nullptr, nullptr, key.data(), bytesOf(nonce)) != 1)
        return vaultError(VaultFailure::CryptoFailure);

    int length = 0;
    if (!aad.isEmpty() &&
        EVP_DecryptUpdate(ctx.get(), nullptr, &length, bytesOf(aad), int(aad.size())) != 1)
        return vaultError(VaultFailure::CryptoFailure);

    // Unverified plaintext lives only in this buffer until the tag checks out; the guard
    // cleanses it on every path that does not hand it over.
    QByteArray pending(ciphertextSize, Qt::Uninitialized);
    PendingPlaintextGuard guard(pending);
    auto *pendingBytes = reinterpret_cast<unsigned char *>(pending.data());
    int written = 0;
    if (ciphertextSize > 0) {
        if (EVP_DecryptUpdate(ctx.get(), pendingBytes, &length, bytesOf(ciphertext),
                              int(ciphertextSize)) != 1)
            return vaultError(VaultFailure::CryptoFailure);
        written = length;
    }
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, int(kTagBytes), tag) != 1)
        return vaultError(VaultFailure::CryptoFailure);
    if (EVP_DecryptFinal_ex(ctx.get(), pendingBytes + written, &length) != 1)
        return vaultError(VaultFailure::TagMismatch);
    written += length;
    if (written != ciphertextSize)
        return vaultError(VaultFailure::CryptoFailure);
    guard.release();
    return SecretBytes(std::move(pending));
}

} // namespace veetbot
