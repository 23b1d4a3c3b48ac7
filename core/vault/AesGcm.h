#pragma once

#include "domain/Result.h"
#include "domain/SecretBytes.h"

#include <QByteArray>
#include <QByteArrayView>

namespace veetbot {

// AES-256-GCM through OpenSSL EVP with a 96-bit nonce and a 128-bit tag, nothing else.
// seal() draws a fresh random nonce for every call. open() decrypts into a private buffer
// and releases it only after EVP_DecryptFinal_ex has verified the tag; on any failure the
// buffer is cleansed and no byte of it is returned. Never implements a primitive itself,
// never accepts a truncated tag, never logs.
class AesGcm
{
public:
    static constexpr qsizetype kKeyBytes = 32;
    static constexpr qsizetype kNonceBytes = 12;
    static constexpr qsizetype kTagBytes = 16;
    // EVP lengths are int; the vault bounds plaintext far below this.
    static constexpr qsizetype kMaxInputBytes = qsizetype(1) << 30;

    struct Sealed
    {
        QByteArray nonce;            // kNonceBytes
        QByteArray ciphertextAndTag; // ciphertext || 16-byte tag
    };

    // Encrypts under a fresh RAND_bytes nonce. vault.key_unavailable for a key that is
    // not exactly 32 bytes; vault.crypto_failure if OpenSSL or the random source fails.
    static Result<Sealed> seal(const SecretBytes &key, QByteArrayView aad,
                               QByteArrayView plaintext);

    // Known-answer form with a caller-chosen nonce. The store never calls it: reusing a
    // nonce under one key breaks GCM.
    static Result<QByteArray> sealWithNonceForTesting(const SecretBytes &key, QByteArrayView nonce,
                                                      QByteArrayView aad, QByteArrayView plaintext);

    // The plaintext, only once the tag verified. vault.corrupt_record for a nonce that is
    // not 12 bytes or an input shorter than the 16-byte tag; vault.tag_mismatch when
    // authentication fails (wrong key, nonce, AAD, ciphertext or tag).
    static Result<SecretBytes> open(const SecretBytes &key, QByteArrayView nonce,
                                    QByteArrayView aad, QByteArrayView ciphertextAndTag);
};

} // namespace veetbot
